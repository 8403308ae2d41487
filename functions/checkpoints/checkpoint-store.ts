import type { ToolCall } from '../rehydrate/formats/format.ts';
import type { FormatName } from '../rehydrate/formats/index.ts';

/**
 * The storage port: what the handlers and a user's own agent Lambda need of the checkpoint store. The DynamoDB
 * adapter (`dynamodb-store.ts`) is the one implementation; every method reads the table on every call, never a cache.
 */
export interface CheckpointStore {
  /** Records a paused turn (§4 checked at pause time); one open pause per run and tenant. */
  pause(input: PauseInput): Promise<PauseCreated>;
  /** Answers a pause exactly once (§5): the same answer again returns the same continuation. */
  resume(input: ResumeInput): Promise<ResumeResult>;
  /** One pause, with its messages when asked. */
  getPause(key: PauseKey, options?: { includeMessages?: boolean }): Promise<PauseView>;
  /** The continuation a resume produced. */
  getContinuation(key: ContinuationKey): Promise<Continuation>;
  /** The tenant's pauses, newest first, by status when given. */
  listPauses(query: ListPausesQuery): Promise<PausePage>;
}

/** A pause's status; `expired` is derived on read from `expiresAt`, never stored. */
export type PauseStatus = 'paused' | 'resumed' | 'expired';

/** A JSON Schema (2020-12) document: an object or a boolean. */
export type JsonSchema = Record<string, unknown> | boolean;

/** What a pause records (the HTTP pause body plus the tenant and run). */
export interface PauseInput {
  tenant: string;
  runId: string;
  format: FormatName;
  messages: unknown[];
  toolCallId: string;
  prompt?: string;
  answerSchema?: JsonSchema;
  /** 1–31,536,000; default 604,800 (7 days). */
  expiresInSeconds?: number;
  /** A Step Functions task token to complete on resume. */
  taskToken?: string;
  /** At most 4 KB of JSON, returned as given. */
  metadata?: Record<string, unknown>;
}

/** The 201 body of a pause. */
export interface PauseCreated {
  runId: string;
  interruptId: string;
  toolCallId: string;
  status: 'paused';
  createdAt: string;
  expiresAt: string;
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

/** The GET-pause body (§5), plus the format; `messages` only when asked for. */
export interface PauseView {
  runId: string;
  interruptId: string;
  status: PauseStatus;
  format: FormatName;
  toolCall: ToolCall;
  prompt: string | null;
  answerSchema: JsonSchema | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  expiresAt: string;
  resumedAt?: string;
  continuationId?: string;
  messages?: unknown[];
}

/** What a resume answers. */
export interface ResumeInput {
  tenant: string;
  runId: string;
  interruptId: string;
  /** Any JSON value, at most 256 KB. */
  answer: unknown;
}

/** A continuation: the rebuilt messages, named by `continuationId` (the resume body of §5). */
export interface Continuation {
  runId: string;
  interruptId: string;
  continuationId: string;
  format: FormatName;
  messages: unknown[];
  resumedAt: string;
}

/** A resume's outcome: the continuation, whether this call replayed an earlier resume, and the pause's task token. */
export interface ResumeResult extends Continuation {
  /** True when the pause was already resumed with the same answer and this call returned that continuation. */
  replayed: boolean;
  /** The pause's Step Functions task token, for the hand-off's `SendTaskSuccess`. */
  taskToken?: string;
}

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
