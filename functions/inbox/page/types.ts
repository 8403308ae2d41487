/**
 * What the page reads and sends over HTTP (§5, §9–§11), as JSON. Written out here rather than imported, since the
 * server's modules are type-checked for Node and the page's for the browser; `test/inbox/wire-types.test-d.ts` holds
 * them to the server's own types, so the two cannot drift apart unnoticed.
 */

/** A JSON Schema (2020-12) document: an object or a boolean. */
export type JsonSchema = Record<string, unknown> | boolean;

/** A recorded decision, as sent. */
export type RecordedDecisionView =
  | { answer: unknown }
  | { decision: 'approve' }
  | { decision: 'edit'; args: Record<string, unknown> }
  | { decision: 'reject'; reason?: string };

/** A decision the page sends (§9). */
export type Decision =
  | { toolCallId: string; answer: unknown }
  | { toolCallId: string; decision: 'approve' }
  | { toolCallId: string; decision: 'edit'; args: Record<string, unknown> }
  | { toolCallId: string; decision: 'reject'; reason?: string };

/** An ask as the API shows it. */
export interface AskView {
  toolCallId: string;
  name: string;
  args: unknown;
  argsOmitted?: true;
  kind: 'answer' | 'approval';
  prompt: string | null;
  answerSchema?: JsonSchema;
  argsSchema?: JsonSchema;
  editable?: boolean;
  decision?: RecordedDecisionView;
  decidedAt?: string;
}

/** A pause as the API shows it (the page reads these fields). */
export interface PauseView {
  runId: string;
  interruptId: string;
  status: string;
  asks: AskView[];
  decided: string[];
  pending: string[];
  context?: { user?: string; assistant?: string };
  createdAt: string;
  expiresAt: string;
  resumedAt?: string;
  outcome?: 'resumed' | 'expired' | 'cancelled';
}

/** A page of pauses, newest first. */
export interface PausePage {
  items: PauseView[];
  cursor?: string;
}

/** The 202 body: decisions recorded, others still waiting. */
export interface PendingDecisions {
  status: 'paused';
  decided: string[];
  pending: string[];
}

/** The 200 body of a decision that closed the pause (or of a cancel). */
export interface ContinuationBody {
  runId: string;
  interruptId: string;
  continuationId: string;
  outcome: 'resumed' | 'expired' | 'cancelled';
  dispatch: Array<{ toolCallId: string; name: string; args: unknown }>;
  resumedAt: string;
}

/** A slice of a pause's transcript. */
export interface MessagesSlice {
  messages?: unknown[];
  total?: number;
  next?: number;
  messagesOmitted?: true;
}

/** One reason a value was refused: where (a JSON pointer) and why. */
export interface AnswerFailure {
  path: string;
  message: string;
}

/** An RFC 9457 problem as the API sends it, or one the page makes for a request that got no answer. */
export interface Problem {
  status: number;
  code: string;
  title?: string;
  detail?: string;
  toolCallId?: string;
  expiresAt?: string;
  failures?: AnswerFailure[];
}
