import type { Decision, DispatchCall } from '../rehydrate/decisions.ts';
import type { ToolCall } from '../rehydrate/formats/format.ts';
import type { FormatName } from '../rehydrate/formats/index.ts';
import type { AskKind, DecisionBody, OnExpiry, Outcome } from './record.ts';
import type { PAUSE_STATUSES } from './rules.ts';

/**
 * The checkpoint store, as the handlers and a user's own agent Lambda use it. `createDynamoDBCheckpointStore` builds
 * it on a table; every method reads the store on every call, never a cache. The rules behind each method live in one
 * place, `checkpoint-service.ts`, above a narrow persistence port.
 */
export interface CheckpointStore {
  /** Records a paused turn (§4 checked at pause time); one open pause per run and tenant. */
  pause(input: PauseInput): Promise<PauseCreated>;
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
  getPause(key: PauseKey, options?: { includeMessages?: boolean }): Promise<PauseView>;
  /** The continuation that closed a pause. */
  getContinuation(key: ContinuationKey): Promise<Continuation>;
  /** The tenant's pauses, newest first, by status when given. */
  listPauses(query: ListPausesQuery): Promise<PausePage>;
  /**
   * The sweep (§10): sends due reminders, marks `onExpiry: "fail"` pauses expired and closes `onExpiry: "reject"` ones
   * with their continuation. Each action happens exactly once, whoever else sweeps or decides at the same time.
   */
  closeDue(options?: { limit?: number }): Promise<SweepResult>;
}

/** A pause's status at the time it is read. */
export type PauseStatus = (typeof PAUSE_STATUSES)[number];

/** A JSON Schema (2020-12) document: an object or a boolean. */
export type JsonSchema = Record<string, unknown> | boolean;

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
  /** At most 4 KB of JSON, returned as given. */
  metadata?: Record<string, unknown>;
  /** The request's `Idempotency-Key`: the same key with the same body returns the first pause again. */
  idempotencyKey?: string;
}

/** The 201 body of a pause. */
export interface PauseCreated {
  runId: string;
  interruptId: string;
  /** The first ask's call. */
  toolCallId: string;
  /** Every ask's call, in the order given. */
  asks: string[];
  status: 'paused';
  createdAt: string;
  expiresAt: string;
  /** True when an earlier request with the same `Idempotency-Key` and body made this pause. */
  replayed?: boolean;
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

/** An ask as GET shows it: what it is about, and its recorded decision (with the original args kept when edited). */
export interface AskView {
  toolCallId: string;
  name: string;
  /** The model's arguments (`null` with `argsOmitted` when too large for a listing: GET the pause to see them). */
  args: unknown;
  argsOmitted?: true;
  kind: AskKind;
  prompt: string | null;
  answerSchema?: JsonSchema;
  argsSchema?: JsonSchema;
  editable?: boolean;
  decision?: RecordedDecisionView;
  decidedAt?: string;
}

/** A recorded decision, as sent (without the ask it is for). */
export type RecordedDecisionView = DecisionBody;

/** The GET-pause body (§5, §9), plus the format; `messages` only when asked for. */
export interface PauseView {
  runId: string;
  interruptId: string;
  status: PauseStatus | string;
  format: FormatName;
  /** The first ask's call (part one). */
  toolCall: ToolCall;
  /** The first ask's prompt (part one). */
  prompt: string | null;
  /** The first ask's answer schema (part one). */
  answerSchema: JsonSchema | null;
  asks: AskView[];
  /** Asks decided and still waiting. */
  decided: string[];
  pending: string[];
  metadata: Record<string, unknown> | null;
  /** The last user text and the assistant's text in the paused round, for the person deciding. */
  context?: { user?: string; assistant?: string };
  onExpiry: OnExpiry;
  createdAt: string;
  expiresAt: string;
  remindAt?: string;
  resumedAt?: string;
  continuationId?: string;
  outcome?: Outcome;
  messages?: unknown[];
}

/** Part one's resume: the answer to a pause's one `answer` ask. */
export interface ResumeInput {
  tenant: string;
  runId: string;
  interruptId: string;
  /** Any JSON value, at most 256 KB. */
  answer: unknown;
}

/** Decisions for some or all of a pause's asks. */
export interface DecideInput {
  tenant: string;
  runId: string;
  interruptId: string;
  decisions: Decision[];
}

/** A cancel (§10). */
export interface CancelInput {
  tenant: string;
  runId: string;
  interruptId: string;
  /** Text of at most 2 KB, written into every undecided ask's rejection. */
  reason?: string;
}

/** A continuation: the rebuilt messages, named by `continuationId` (the resume body of §5, §9, §10). */
export interface Continuation {
  runId: string;
  interruptId: string;
  continuationId: string;
  format: FormatName;
  outcome: Outcome;
  /** The approved and edited calls the agent must now run, in call order (§9). */
  dispatch: DispatchCall[];
  messages: unknown[];
  resumedAt: string;
}

/** A closing's outcome: the continuation, whether this call replayed an earlier one, and the pause's task token. */
export interface ResumeResult extends Continuation {
  /** True when an earlier request committed this continuation and this call returned it again. */
  replayed: boolean;
  /** The pause's Step Functions task token, for the hand-off. */
  taskToken?: string;
}

/** A decision request that left asks undecided: the 202 body of §9. */
export interface PendingDecisions {
  runId: string;
  interruptId: string;
  status: 'paused';
  decided: string[];
  pending: string[];
  /** True when every decision in the request was already recorded. */
  replayed: boolean;
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
}

/** A page of pauses, newest first; `cursor` when more follow. */
export interface PausePage {
  items: PauseView[];
  cursor?: string;
}

/** What one sweep did. */
export interface SweepResult {
  /** Pauses whose reminder was sent by this sweep. */
  reminded: PauseView[];
  /** `onExpiry: "fail"` pauses marked expired by this sweep. */
  expired: PauseView[];
  /** `onExpiry: "reject"` pauses this sweep closed, with their continuations (to hand off). */
  closed: ResumeResult[];
}
