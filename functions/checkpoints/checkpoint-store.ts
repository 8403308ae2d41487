import type { AskKind, FormatName, OnExpiry, PauseStatus } from '../vocabulary.ts';
import type {
  Actor,
  Approvers,
  AskView,
  Continuation,
  Decision,
  JsonSchema,
  NotifyEntry,
  PauseCreated,
  PausePage,
  PauseView,
  PendingDecisions,
  RecordedDecisionView,
} from '../wire.ts';

/**
 * The checkpoint store, as the handlers and a user's own agent Lambda use it. `createDynamoDBCheckpointStore` builds
 * it on a table; every method reads the store on every call, never a cache. The rules behind each method live in one
 * place, `checkpoint-service.ts`, above a narrow persistence port.
 */
export interface CheckpointStore {
  /**
   * Records a paused turn (§4 checked at pause time); one open pause per run and tenant. Where the deployment's
   * policies decide every ask (§17), the pause closes at once and this is its continuation (`status: 'resumed'`).
   */
  pause(input: PauseInput): Promise<PauseCreated | PauseClosed>;
  /** Answers a pause that has exactly one `answer` ask, exactly once (§5): the same answer again replays. */
  resume(input: ResumeInput): Promise<ResumeResult>;
  /**
   * Records decisions for some or all of a pause's asks (§9). While asks remain undecided: `{status: 'paused',
   * decided, pending}`; the request that records the last decision commits the continuation and gets it.
   */
  decide(input: DecideInput): Promise<DecideResult>;
  /** Cancels a pause (§10): every undecided ask rejected with the reason, the continuation committed. */
  cancel(input: CancelInput): Promise<ResumeResult>;
  /** One pause, with its messages when asked. */
  getPause(key: PauseKey, options?: { includeMessages?: boolean; by?: Actor }): Promise<PauseView>;
  /** The continuation that closed a pause. */
  getContinuation(key: ContinuationKey): Promise<Continuation>;
  /** The tenant's pauses, newest first, by status when given. */
  listPauses(query: ListPausesQuery): Promise<PausePage>;
  /**
   * The sweep (§10): sends due reminders, marks `onExpiry: "fail"` pauses expired and closes `onExpiry: "reject"` ones
   * with their continuation. Each action happens exactly once, whoever else sweeps or decides at the same time.
   */
  closeDue(options?: { limit?: number }): Promise<SweepResult>;
  /**
   * Tells the store that the continuation of a closing the sweep made (`closeDue`'s `closed`) was handed off, so the
   * sweep stops delivering it again (§6: at least once).
   */
  acknowledgeHandoff(key: PauseKey): Promise<void>;
}

export type {
  AskView,
  Continuation,
  JsonSchema,
  PauseCreated,
  PausePage,
  PauseStatus,
  PauseView,
  PendingDecisions,
  RecordedDecisionView,
};

/** One ask of a pause body (§9). */
export interface AskInput {
  toolCallId: string;
  /** Default `answer`. */
  kind?: AskKind;
  prompt?: string;
  /** `answer` asks only. */
  answerSchema?: JsonSchema;
  /** `approval` asks only. */
  argsSchema?: JsonSchema;
  /** `approval` asks only; default true. */
  editable?: boolean;
  /** Who may decide this ask (§13); without it, any principal of the tenant that may decide at all. */
  approvers?: Approvers;
  /** `approval` asks only: distinct principals that must approve the same arguments (§13), 1–5; default 1. */
  approvals?: number;
}

/** What a pause records (the HTTP pause body plus the tenant and run): part one's `toolCallId`, or `asks`. */
export interface PauseInput {
  tenant: string;
  runId: string;
  format: FormatName;
  messages: unknown[];
  /** Part one's form: the one `answer` ask. Not with `asks`. */
  toolCallId?: string;
  /** With `toolCallId`. */
  prompt?: string;
  /** With `toolCallId`. */
  answerSchema?: JsonSchema;
  /** 1–16 asks (§9). Not with `toolCallId`. */
  asks?: AskInput[];
  /** 1–31,536,000; default 604,800 (7 days). */
  expiresInSeconds?: number;
  /** Default `fail`. */
  onExpiry?: OnExpiry;
  /** Emit `Pause Reminder` this many seconds before `expiresAt`. */
  remindBeforeSeconds?: number;
  /** A Step Functions task token to complete on resume. */
  taskToken?: string;
  /**
   * A Lambda durable function's callback id (`context.waitForCallback`) to complete when the pause closes, as a task
   * token is (`handback/durable`).
   */
  callbackId?: string;
  /** At most 4 KB of JSON, returned as given. */
  metadata?: Record<string, unknown>;
  /** The request's `Idempotency-Key`: the same key with the same body returns the first pause again. */
  idempotencyKey?: string;
  /** The principal pausing (§13). @default {kind: 'service', subject: 'library', via: 'library'} */
  by?: Actor;
  /** The principal that paused may not decide it (§13). */
  fourEyes?: boolean;
  /** Whom to tell, and where (§14); without it, the deployment's defaults. */
  notify?: NotifyEntry[];
}

/** Names one pause of one tenant. */
export interface PauseKey {
  tenant: string;
  runId: string;
  interruptId: string;
}

/** Names one continuation of one tenant. */
export interface ContinuationKey {
  tenant: string;
  runId: string;
  continuationId: string;
}

/** Part one's resume: the answer to a pause's one `answer` ask. */
export interface ResumeInput {
  tenant: string;
  runId: string;
  interruptId: string;
  /** Any JSON value, at most 256 KB. */
  answer: unknown;
  /** Who decides (§13). @default {kind: 'service', subject: 'library', via: 'library'} */
  by?: Actor;
}

/** Decisions for some or all of a pause's asks. */
export interface DecideInput {
  tenant: string;
  runId: string;
  interruptId: string;
  decisions: Decision[];
  /** Who decides (§13). @default {kind: 'service', subject: 'library', via: 'library'} */
  by?: Actor;
}

/** A cancel (§10). */
export interface CancelInput {
  tenant: string;
  runId: string;
  interruptId: string;
  /** Text of at most 2 KB, written into every undecided ask's rejection. */
  reason?: string;
  /** Who decides (§13). @default {kind: 'service', subject: 'library', via: 'library'} */
  by?: Actor;
}

/** A closing's outcome: the continuation, whether this call replayed an earlier one, and the pause's task token. */
export interface ResumeResult extends Continuation {
  /** True when an earlier request committed this continuation and this call returned it again. */
  replayed: boolean;
  /** The pause's Step Functions task token, for the hand-off. */
  taskToken?: string;
  /** The pause's durable-function callback id, for the hand-off. */
  callbackId?: string;
}

/**
 * A pause whose every ask the deployment's policies decided (§17): closed at once, its continuation committed — what
 * the last decision would have answered — with the fields of the 201 it did not need.
 */
export interface PauseClosed extends Omit<ResumeResult, 'replayed'> {
  status: 'resumed';
  /** True when an earlier request with the same `Idempotency-Key` and body made (and closed) this pause. */
  replayed?: boolean;
  toolCallId: string;
  asks: string[];
  createdAt: string;
  expiresAt: string;
}

/** What `decide` answers: still pending, or the committed continuation. */
export type DecideResult = ({ kind: 'pending' } & PendingDecisions) | ({ kind: 'closed' } & ResumeResult);

/** A page query over one tenant's pauses. */
export interface ListPausesQuery {
  tenant: string;
  status?: PauseStatus;
  /** 1–100, default 20. */
  limit?: number;
  /** The `cursor` of the previous page, opaque. */
  cursor?: string;
  /**
   * Only pauses with an ask this principal may decide and has not decided or voted on (§13, `mine=true`); read from
   * the open pauses, so give `status: 'paused'` with it.
   */
  waitingFor?: Actor;
}

/** What one sweep did. */
export interface SweepResult {
  /** Pauses whose reminder was sent by this sweep. */
  reminded: PauseView[];
  /** `onExpiry: "fail"` pauses marked expired by this sweep. */
  expired: PauseView[];
  /**
   * `onExpiry: "reject"` pauses this sweep closed, with their continuations (to hand off, then acknowledge), and
   * closings of earlier sweeps whose hand-off was not acknowledged (then `replayed`).
   */
  closed: Array<ResumeResult & { tenant: string }>;
}
