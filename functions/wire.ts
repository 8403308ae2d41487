import type {
  AskKind,
  ChannelName,
  FormatName,
  OnExpiry,
  Outcome,
  PauseStatus,
  PrincipalKind,
  Via,
} from './vocabulary.ts';

/**
 * The JSON Handback speaks (§5, §9–§12): what a pause, an ask, a decision and a continuation look like on the wire,
 * declared once. A leaf module beside `vocabulary.ts` (it imports nothing else, and uses no Node or DOM type), so
 * the store, the handlers and the inbox page all read the same declarations.
 */

/** A JSON Schema (2020-12) document: an object or a boolean. */
export type JsonSchema = Record<string, unknown> | boolean;

/** One reason a value was refused: where in it (a JSON pointer) and why. */
export interface AnswerFailure {
  path: string;
  message: string;
}

/**
 * Who made a pause, a decision, a vote or a cancel, as recorded with it: `{kind, subject, email?, name?, via}`. From a
 * bearer JWT, `subject` is `sub`; a link's is `email:<address>` or `link:<interruptId>`; a trigger's without `by` is
 * `service:<trigger>`; the sweep's `service:sweep`; the library's default `library`.
 */
export interface Principal {
  kind: PrincipalKind;
  subject: string;
  email?: string;
  name?: string;
  via: Via;
  /**
   * On a link a person made for a recipient (§13): that person's subject. What the link decides counts as theirs
   * too, so a link never gives its maker a second vote, nor a way past four eyes.
   */
  grantedBy?: string;
}

/** A principal as a request brings it: what is recorded, plus the groups its token names (matched, not recorded). */
export interface Actor extends Principal {
  groups?: readonly string[];
}

/** Who may decide an ask: any principal matching any entry (emails compare case-insensitively). */
export interface Approvers {
  subjects?: string[];
  emails?: string[];
  groups?: string[];
}

/** Whom a pause tells (§14): a channel and its address there (a Slack channel id, an email address). */
export interface NotifyEntry {
  channel: ChannelName;
  to: string;
}

/** A tool call of the paused round, in a format-neutral shape. */
export interface ToolCall {
  /** The call's id; a gemini call without one is addressed by its position: `#0`, `#1`, … */
  id: string;
  name: string;
  args: unknown;
}

/** A decision without the ask it is for (§9): how it is recorded and shown. */
export type DecisionBody =
  | { answer: unknown }
  | { decision: 'approve' }
  | { decision: 'edit'; args: Record<string, unknown> }
  | { decision: 'reject'; reason?: string };

/** An `answer` ask's decision: the answer is the call's result (§3.4). */
export interface AnswerDecision {
  toolCallId: string;
  answer: unknown;
}

/** An `approval` ask approved: the call is left without a result and listed in `dispatch`. */
export interface ApproveDecision {
  toolCallId: string;
  decision: 'approve';
}

/** An `approval` ask approved with new arguments: they replace the call's in the transcript and in `dispatch`. */
export interface EditDecision {
  toolCallId: string;
  decision: 'edit';
  args: Record<string, unknown>;
}

/** Any ask rejected: `rejectionText(reason)` is the call's result, marked as a failure where the format can (§3.8). */
export interface RejectDecision {
  toolCallId: string;
  decision: 'reject';
  reason?: string;
}

/** What a person settled one ask with (§9). */
export type Decision = AnswerDecision | ApproveDecision | EditDecision | RejectDecision;

/** A call the agent must now run: approved, or approved with edited arguments (then `args` are the new ones). */
export interface DispatchCall {
  toolCallId: string;
  name: string;
  args: unknown;
}

/** A recorded decision, as sent (without the ask it is for), with who made it (§13). */
export type RecordedDecisionView = DecisionBody & { by?: Principal };

/** One vote on an ask with a quorum, in the order recorded (§13). */
export type VoteView = (
  | { decision: 'approve' }
  | { decision: 'edit'; args: Record<string, unknown> }
  | { decision: 'reject'; reason?: string }
) & { by: Principal; at: string };

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
  /** Who may decide it (§13). */
  approvers?: Approvers;
  /** Distinct approvals it needs, when more than one (§13). */
  approvals?: number;
  /** The votes so far, for an ask with a quorum (§13). */
  votes?: VoteView[];
  /** For the principal asking: whether they may decide it now (§13). */
  mayDecide?: boolean;
}

/** The turn's words a person deciding needs: the last user text, the assistant's text in the paused round. */
export interface TurnContext {
  user?: string;
  assistant?: string;
}

/** The GET-pause body (§5, §9), plus the format; `messages` only when asked for. */
export interface PauseView {
  runId: string;
  interruptId: string;
  /** A `PauseStatus`, or a status a newer version of Handback wrote. */
  status: PauseStatus | (string & {});
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
  context?: TurnContext;
  onExpiry: OnExpiry;
  /** Who paused it (§13). */
  pausedBy?: Principal;
  /** Who cancelled it (§13). */
  cancelledBy?: Principal;
  /** The principal that paused it may not decide it (§13). */
  fourEyes?: true;
  createdAt: string;
  expiresAt: string;
  remindAt?: string;
  /** Whom the channels tell (§14), as the pause gave it. */
  notify?: NotifyEntry[];
  resumedAt?: string;
  continuationId?: string;
  outcome?: Outcome;
  messages?: unknown[];
}

/** A page of pauses, newest first; `cursor` when more follow. */
export interface PausePage {
  items: PauseView[];
  cursor?: string;
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
  /** The asks with a quorum still waiting for votes, and how many count of how many they need (§13). */
  votes?: Record<string, { have: number; need: number }>;
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

/** What a hand-off claim found (§18): whether this claimant has the closed pause, and who does. */
export interface ClaimResult {
  runId: string;
  interruptId: string;
  /** True when the claimant holds the claim (the first claim, or a retry of it). */
  claimed: boolean;
  /** Who holds the claim. */
  claimant: string;
  /** When it was first claimed. */
  claimedAt: string;
}
