import type {
  CancelInput,
  CheckpointStore,
  ClaimExecutionInput,
  ContinuationKey,
  DecideInput,
  DecideResult,
  ExecutionClaimed,
  ExecutionEnded,
  FinishExecutionInput,
  ListPausesQuery,
  PauseClosed,
  PauseCreated,
  PauseInput,
  PauseKey,
  PausePage,
  PauseView,
  ResumeInput,
  ResumeResult,
} from '../checkpoints/checkpoint-store.ts';
import type { claimBody, linkBody } from '../inputs.ts';
import type { Actor, ClaimResult, CreatedLink, DeliveredLink } from '../wire.ts';
import type * as z from '../zod.ts';

/**
 * The store's operations as the agent's side uses them (§15): the store's own input and output types, less what the
 * caller's identity settles. Over HTTP the token names the tenant and the principal, so `tenant` and `by` are not
 * sent; and the HTTP bodies carry none of the store's bookkeeping (`replayed`, `taskToken`, §5's resume body), so
 * the results leave those out. A store bound to a tenant (`storeOperations`) answers the same.
 */

/** An input of the store, without the scope the caller's identity carries. */
export type Unscoped<T> = Omit<T, 'tenant' | 'by'>;
/** A result of the store, without the bookkeeping the HTTP bodies leave out (distributes over unions). */
export type Unbooked<T> = T extends unknown ? Omit<T, 'replayed' | 'taskToken'> : never;

/** The body of a pause request: the store's `PauseInput` without `tenant` and `by`. */
export type ClientPauseInput = Unscoped<PauseInput>;
/** A pause made (the 201, with the answer link when the service has an inbox, §11), or one the deployment's policies
 * decided whole (§17: the 200, `status: 'resumed'`, with its continuation). */
export type ClientPauseCreated = (Unbooked<PauseCreated> & { answerUrl?: string }) | ClientPauseClosed;
/** A pause the deployment's policies decided whole (§17, the 200): its continuation. */
export type ClientPauseClosed = Unbooked<PauseClosed>;
/** Part one's answer to a pause. */
export type ClientResumeInput = Unscoped<ResumeInput>;
/** A committed continuation, its messages whole. */
export type ClientContinuation = Unbooked<ResumeResult>;
/** Decisions for some or all of a pause's asks. */
export type ClientDecideInput = Unscoped<DecideInput>;
/** Still pending (the 202 body), or the committed continuation (the 200 body). */
export type ClientDecideResult = Unbooked<DecideResult>;
/** A cancel. */
export type ClientCancelInput = Unscoped<CancelInput>;
/** Names one pause. */
export type ClientPauseKey = Unscoped<PauseKey>;
/** Names one continuation. */
export type ClientContinuationKey = Unscoped<ContinuationKey>;
/** §19: a claim of a dispatched call before it runs (a retry under the same `idempotencyKey` is the same claim). */
export type ClientClaimExecutionInput = Unscoped<ClaimExecutionInput>;
/** §19: how a claimed execution ended. */
export type ClientFinishExecutionInput = Unscoped<FinishExecutionInput>;
/** A page query; `mine` lists only pauses with an ask the caller may decide and has not yet decided (§13). */
export type ClientListPausesQuery = Unscoped<ListPausesQuery> & { mine?: boolean };

/**
 * A link for one recipient (§13): the pause and the link body (`deliver: true` mails it to `email` instead of
 * answering with it, §16: a delivered link, deciding as that address).
 */
export type CreateLinkInput = ClientPauseKey & z.input<typeof linkBody>;

/** The 201 body of a granted link (§16): the link, deciding as you; `recipient` is whom you give it to, a label. */
export type LinkCreated = CreatedLink;

/** The 202 body of a delivered link (§16): Handback mailed it to `recipient`; the URL is theirs alone. */
export type LinkDelivered = DeliveredLink;

/** What the client and a store bound to a tenant both do: the operations the framework adapters use. */
export interface HandbackOperations {
  /** Records a paused turn. */
  pause(input: ClientPauseInput): Promise<ClientPauseCreated>;
  /** Answers a pause that has exactly one `answer` ask (part one). */
  resume(input: ClientResumeInput): Promise<ClientContinuation>;
  /** Records decisions (§9): pending while asks remain, else the continuation. */
  decide(input: ClientDecideInput): Promise<ClientDecideResult>;
  /** Cancels a pause (§10). */
  cancel(input: ClientCancelInput): Promise<ClientContinuation>;
  /** One pause, with its messages (all of them) when asked. */
  getPause(key: ClientPauseKey, options?: { includeMessages?: boolean }): Promise<PauseView>;
  /** The continuation that closed a pause, its messages whole. */
  getContinuation(key: ClientContinuationKey): Promise<ClientContinuation>;
  /** The caller's pauses, newest first. */
  listPauses(query?: ClientListPausesQuery): Promise<PausePage>;
  /**
   * §19: claims a dispatched call before running it: the call to run, once; `AlreadyClaimedError` when another
   * claimed it; a refusal at run time (`PolicyForbidsError`, `ApprovalExpiredError`, `PolicyEvaluationError`).
   */
  claimExecution(input: ClientClaimExecutionInput): Promise<ExecutionClaimed>;
  /** §19: tells how a claimed execution ended (its claimant only, once). */
  finishExecution(input: ClientFinishExecutionInput): Promise<ExecutionEnded>;
}

/** A claim of a closed pause's hand-off (§18): the pause and who claims it (the claim body). */
export type ClientClaimInput = ClientPauseKey & z.input<typeof claimBody>;

/** The HTTP client: the shared operations, links for a recipient, and hand-off claims. */
export interface HandbackClient extends HandbackOperations {
  /** A link for one recipient (§13); a `person` principal that may read the pause. */
  createLink(input: CreateLinkInput & { deliver?: false }): Promise<LinkCreated>;
  createLink(input: CreateLinkInput & { deliver: true }): Promise<LinkDelivered>;
  /** Claims a closed pause's hand-off (§18): `claimed` for the first claimant (and its retries), false for others. */
  claim(input: ClientClaimInput): Promise<ClaimResult>;
}

export type { ClaimResult, ExecutionClaimed, ExecutionEnded };

/** The operations of `store` for one tenant, deciding as `by` (default the library's principal, §13). */
export function storeOperations(store: CheckpointStore, scope: { tenant: string; by?: Actor }): HandbackOperations {
  const { tenant, by } = scope;
  const as = by === undefined ? {} : { by };
  return {
    pause: (input) => store.pause({ ...input, tenant, ...as }),
    resume: (input) => store.resume({ ...input, tenant, ...as }),
    decide: (input) => store.decide({ ...input, tenant, ...as }),
    cancel: (input) => store.cancel({ ...input, tenant, ...as }),
    getPause: (key, options) => store.getPause({ ...key, tenant }, options),
    getContinuation: (key) => store.getContinuation({ ...key, tenant }),
    listPauses: (query = {}) => store.listPauses({ ...query, tenant }),
    claimExecution: (input) => store.claimExecution({ ...input, tenant, ...as }),
    finishExecution: (input) => store.finishExecution({ ...input, tenant, ...as }),
  };
}
