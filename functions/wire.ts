import type {
  AskKind,
  ChannelName,
  FormatName,
  OnExpiry,
  Outcome,
  PauseStatus,
  PolicyBasis,
  PolicyOutcome,
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
   * The `email` is verified (§16): it came from a token's `email_verified`, the stack's own Cognito pool, Slack's
   * `users.info`, or a link Handback delivered to that address. Only then does the email match approvers' `emails`
   * and join the principal's identity (`email:<address>`); otherwise it is shown and nothing more.
   */
  emailVerified?: true;
  /**
   * On a link a person granted (§16: `POST …/links`, answered with the URL): whom they gave it to. A label: it matches
   * no approver and joins no identity; the decision is the grantor's.
   */
  for?: LinkRecipient;
  /**
   * Part three's links for a recipient: the subject of the person who made it. Read on decisions recorded then, so
   * they still count as that person's; §16's granted links record the grantor as the principal itself.
   */
  grantedBy?: string;
}

/** Whom a link was made for: an email address, and a name to show. */
export interface LinkRecipient {
  email: string;
  name?: string;
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
  /** The ask's `argsHash` as the person saw it (§16): an approve or edit of other arguments is `args_changed`. */
  argsHash?: string;
}

/** An `approval` ask approved: the call is left without a result and listed in `dispatch`. */
export interface ApproveDecision {
  toolCallId: string;
  decision: 'approve';
  /** The ask's `argsHash` as the person saw it (§16): an approve or edit of other arguments is `args_changed`. */
  argsHash?: string;
}

/** An `approval` ask approved with new arguments: they replace the call's in the transcript and in `dispatch`. */
export interface EditDecision {
  toolCallId: string;
  decision: 'edit';
  args: Record<string, unknown>;
  /** The ask's `argsHash` as the person saw it (§16): an approve or edit of other arguments is `args_changed`. */
  argsHash?: string;
}

/** Any ask rejected: `rejectionText(reason)` is the call's result, marked as a failure where the format can (§3.8). */
export interface RejectDecision {
  toolCallId: string;
  decision: 'reject';
  reason?: string;
  /** The ask's `argsHash` as the person saw it (§16): an approve or edit of other arguments is `args_changed`. */
  argsHash?: string;
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

/** What the deployment's policies require of an ask that waits for people (§17): the agent cannot weaken it. */
export interface PolicyRequirements {
  /** The union of the applying permits' `@approvers`. */
  approvers?: Approvers;
  /** The largest `@approvals`. */
  approvals?: number;
  /** Some applying permit says `@fourEyes("true")`. */
  fourEyes?: true;
}

/**
 * What the deployment's policies made of an `approval` ask at pause time (§17), as recorded on it: approved, rejected
 * or left to people, and which policies said so. In shadow mode (`shadow`) only recorded: people were asked as if no
 * policy existed.
 */
export interface AskPolicy {
  outcome: PolicyOutcome;
  /** The determining policies' `@id`s: the forbids that rejected, the permits that approved or that apply. */
  policyIds: string[];
  /** No policy of the file determined it: the deployment's default applied, or the evaluation failed (fail closed). */
  basis?: PolicyBasis;
  /** A rejection's reason: the forbid's `@reason` (else its id), or what failed. */
  reason?: string;
  /** An ask that waits: what the applying permits require. */
  requires?: PolicyRequirements;
  /**
   * An ask that waits, whose agent named approvers too: `narrowed` when those were kept where the policies' list has
   * them; `replaced` when the two shared no one, so the policies' list stands.
   */
  agentApprovers?: 'narrowed' | 'replaced';
  /** Shadow mode: what the policies would have done; nothing was decided or required by them. */
  shadow?: true;
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
  /** Who may decide it (§13). */
  approvers?: Approvers;
  /** Distinct approvals it needs, when more than one (§13). */
  approvals?: number;
  /** The votes so far, for an ask with a quorum (§13). */
  votes?: VoteView[];
  /** What the deployment's policies made of it (§17), when policies are configured. */
  policy?: AskPolicy;
  /** The principal that paused it may not decide it, by a policy's `@fourEyes` (§17). */
  fourEyes?: true;
  /** For the principal asking: whether they may decide it now (§13). */
  mayDecide?: boolean;
  /**
   * Changes exactly when the ask's current arguments change (§16): the model's, or the newest edit's. A decision
   * sends it back; an approve or edit of other arguments is `args_changed`.
   */
  argsHash?: string;
  /** The approvals counting for the current arguments, and how many settle the ask (§16). */
  tally?: Tally;
  /** For the principal asking: the code a decision by them would get now (§16); absent when they may decide. */
  refusal?: RefusalCode;
}

/** Votes for an ask's current arguments, and how many it needs. */
export interface Tally {
  have: number;
  need: number;
}

/** Why a principal may not decide an ask now: the code their decision would get (§16). */
export type RefusalCode =
  | 'forbidden'
  | 'self_decision'
  | 'not_an_approver'
  | 'already_voted'
  | 'already_decided'
  | 'pause_cancelled'
  | 'pause_expired'
  | 'unsupported_record';

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

/** What a hand-off delivers (§6): the continuation without `resumedAt`, its messages left out past 256 KB. */
export type HandoffPointer = Omit<Continuation, 'messages' | 'resumedAt'> & { messages?: unknown[] };

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
