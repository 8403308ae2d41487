import type {
  CancelInput,
  ClaimExecutionInput,
  ContinuationKey,
  DecideInput,
  FinishExecutionInput,
  ListPausesQuery,
  PauseKey,
  ResumeInput,
  StatsInput,
} from '../inputs.ts';
import type { PauseInput } from '../inputs-pause.ts';
import type { PauseStatus } from '../vocabulary.ts';
import type {
  Actor,
  AskView,
  Continuation,
  ExecutionClaimed,
  ExecutionEnded,
  JsonSchema,
  PauseCreated,
  PausePage,
  PauseView,
  PendingDecisions,
  RecordedDecisionView,
} from '../wire.ts';
import type { DecisionStats } from '../wire-reports.ts';

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
   * with their continuation, a bounded number at once (§23). Each action happens exactly once, whoever else sweeps or
   * decides at the same time. With `deliver`, each closing is handed to it as soon as it is committed and, once it
   * resolves, acknowledged as `acknowledgeHandoff` would; one it rejects stays due, and a later sweep delivers it again.
   */
  closeDue(options?: SweepOptions): Promise<SweepResult>;
  /**
   * Tells the store that the continuation of a closing the sweep made (`closeDue`'s `closed`) was handed off, so the
   * sweep stops delivering it again (§6: at least once).
   */
  acknowledgeHandoff(key: PauseKey): Promise<void>;
  /**
   * §19: claims a dispatched call before it runs — judged again by the policies in force and its approval's
   * `@validFor` (a refusal is recorded and thrown) — exactly once, whatever races it: every later claim is
   * `AlreadyClaimedError`.
   */
  claimExecution(input: ClaimExecutionInput): Promise<ExecutionClaimed>;
  /** §19: records how a claimed execution ended, told by its claimant, once. */
  finishExecution(input: FinishExecutionInput): Promise<ExecutionEnded>;
  /** How decisions went for the tenant's asks of the pauses made in a window (§21, `GET /stats`), counted exactly. */
  stats(input: StatsInput): Promise<DecisionStats>;
  /** The asks waiting now, of every tenant (§21: the sweep's metrics), in at most `limit` open pauses. */
  countPending(options?: { limit?: number }): Promise<PendingCensus>;
}

export type {
  CancelInput,
  ClaimExecutionInput,
  ContinuationKey,
  DecideInput,
  FinishExecutionInput,
  ListPausesQuery,
  PauseKey,
  ResumeInput,
  StatsInput,
} from '../inputs.ts';
export type { AskInput, PauseInput } from '../inputs-pause.ts';
export type {
  AskView,
  Continuation,
  DecisionStats,
  ExecutionClaimed,
  ExecutionEnded,
  JsonSchema,
  PauseCreated,
  PausePage,
  PauseStatus,
  PauseView,
  PendingDecisions,
  RecordedDecisionView,
};

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

/** How a sweep runs. */
export interface SweepOptions {
  /** Due pauses read at most. @default LIMITS.sweepBatch */
  limit?: number;
  /** Hands a closing's continuation off (§6); the sweep acknowledges the ones it resolves for. */
  deliver?: (closed: ResumeResult & { tenant: string }) => Promise<void>;
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
  /** §21: each escalation level this sweep reached, once (the `Escalations` metric's). */
  escalated?: Array<{ tenant: string; toolCallId: string; tool: string; level: number }>;
}

/** Asks waiting now, and since when the oldest of them waits (§21). */
export interface PendingCount {
  asks: number;
  /** When the oldest waiting ask's pause was made (epoch milliseconds); undefined when none waits. */
  oldestSinceMs?: number;
}

/** What `countPending` found: the asks waiting in every tenant's open pauses, in all and per tool. */
export interface PendingCensus extends PendingCount {
  /** The same, per tool. */
  tools: Map<string, PendingCount>;
  /** Open pauses with an ask waiting. */
  pauses: number;
  /** False when there were more open pauses than it reads (`limit`): the counts are of those it read. */
  complete: boolean;
}
