import { type Approvers, approvers, format, jsonSchema, linkRecipient, notifyEntry, principal } from './fields.ts';
import { ASK_KINDS, EXECUTION_STATUSES, ON_EXPIRY, OUTCOMES, PAUSE_STATUSES, POLICY_OUTCOMES } from './vocabulary.ts';
import { askPolicy, recordedDecisionView, refusalCode, tally, voteView } from './wire-decisions.ts';
import * as z from './zod.ts';

/**
 * The JSON Handback speaks (§5, §9–§12): what a pause, an ask, a decision and a continuation look like on the wire,
 * declared once, as zod schemas with their types inferred from them. The views are what the store, the handlers and
 * the inbox page are written against; the fields a caller sends are `fields.ts`'s and a decision's shapes
 * `wire-decisions.ts`'s (both re-exported here), each one schema with every bound. `npm run openapi` turns them into
 * the API description (`scripts/openapi.ts`), so a field added here is in both; what only the HTTP edge answers with
 * is `wire-http.ts`'s. A leaf of the words layer: it imports the vocabulary, `fields.ts`, `wire-decisions.ts` and zod,
 * and uses no Node or DOM type.
 */

export {
  type Actor,
  type AnswerFailure,
  type Approvers,
  actor,
  answer,
  approvers,
  CHANNEL_ADDRESSES,
  emailAddress,
  foldEmail,
  format,
  type InputProblem,
  isEmailAddress,
  type JsonSchema,
  jsonObject,
  jsonSchema,
  type KnownPerson,
  type LinkRecipient,
  linkRecipient,
  type NotifyEntry,
  notifyEntry,
  notifyEntryKey,
  notifyList,
  type Principal,
  personId,
  principal,
  principalGroups,
  reason,
  tenant,
} from './fields.ts';

/** A tool call of the paused round, in a format-neutral shape. */
export const toolCall = z.defer(() =>
  z.object({
    /** The call's id; a gemini call without one is addressed by its position: `#0`, `#1`, … */
    id: z.string(),
    name: z.string(),
    args: z.unknown(),
  }),
);
export type ToolCall = z.output<typeof toolCall>;

/** A call the agent must now run: approved, or approved with edited arguments (then `args` are the new ones). */
export const dispatchCall = z.defer(() => z.object({ toolCallId: z.string(), name: z.string(), args: z.unknown() }));
export type DispatchCall = z.output<typeof dispatchCall>;
/** A dispatched call of a stored continuation (§19): with how long its approval lets it run, when a policy says. */
export const dispatchedCall = z.defer(() =>
  z.extend(dispatchCall, {
    /** Until when its approval lets it run (a permit's `@validFor`); a claim after it is 410 `approval_expired`. */
    approvedUntil: z.optional(z.string()),
  }),
);

// §19
/**
 * Where a dispatched call's execution stands (§19), on its ask's view once its pause closed with it in `dispatch`:
 * `waiting` (approved, no claim yet: `at` is when its pause closed), `claimed` (`at` the claim), `succeeded` or
 * `failed` (`at` when its claimant said so), `refused` at run time (`at` the refused claim, `reason` why).
 */
export const executionView = z.defer(() =>
  z.object({
    status: z.enum(EXECUTION_STATUSES),
    at: z.string(),
    /** Who claimed it (or whose claim was refused). */
    by: z.optional(principal),
    /** refused: why (the forbidding policy and its reason, the approval's end); failed: what the claimant said. */
    reason: z.optional(z.string()),
    /** refused: the code the claim was answered with (`policy_forbids`, `approval_expired`, `policy_error`). */
    code: z.optional(z.string()),
    /** succeeded, failed: when it was claimed. */
    claimedAt: z.optional(z.string()),
    /** succeeded: what the claimant said of it. */
    detail: z.optional(z.string()),
    /** waiting: until when its approval lets it run (a permit's `@validFor`). */
    approvedUntil: z.optional(z.string()),
    /** Shadow mode: what the policies in force would have done with the claim; nothing was refused. */
    policy: z.optional(z.object({ outcome: z.enum(POLICY_OUTCOMES), policyIds: z.array(z.string()) })),
  }),
);
export type ExecutionView = z.output<typeof executionView>;

// §21 escalation
/** One level of an escalation ladder (§21, `ladder.ts` parses them): its time from the pause, and whom it adds. */
export interface LadderLevel {
  /** Seconds from the pause's creation. */
  afterSeconds: number;
  /** The approvers it adds (as `@approvers` names them). */
  approvers?: Approvers;
  /** Each waiting approver's manager in the directory of persons, the pauser and `onBehalfOf` skipped. */
  manager?: true;
}

/** An ask's escalation ladder as GET shows it (§21): the level reached (0: none yet), and the next one to come. */
export const escalationView = z.defer(() =>
  z.object({
    level: z.number(),
    /** The last level reached: when, and the approvers it added (what the inbox says: "escalated to … at …"). */
    last: z.optional(z.object({ at: z.string(), approvers: z.optional(approvers) })),
    next: z.optional(
      z.object({
        at: z.string(),
        approvers: z.optional(approvers),
        /** The level adds each waiting approver's manager in the directory of persons. */
        manager: z.optional(z.literal(true)),
      }),
    ),
  }),
);
export type EscalationView = z.output<typeof escalationView>;

/** An ask as GET shows it: what it is about, and its recorded decision (with the original args kept when edited). */
export const askView = z.defer(() =>
  z.object({
    toolCallId: z.string(),
    name: z.string(),
    /** The model's arguments (`null` with `argsOmitted` when too large for a listing: GET the pause to see them). */
    args: z.unknown(),
    argsOmitted: z.optional(z.literal(true)),
    kind: z.enum(ASK_KINDS),
    prompt: z.nullable(z.string()),
    answerSchema: z.optional(jsonSchema),
    argsSchema: z.optional(jsonSchema),
    editable: z.optional(z.boolean()),
    decision: z.optional(recordedDecisionView),
    decidedAt: z.optional(z.string()),
    /** Who may decide it (§13). */
    approvers: z.optional(approvers),
    /** Distinct approvals it needs, when more than one (§13). */
    approvals: z.optional(z.number()),
    /** The votes so far, for an ask with a quorum (§13). */
    votes: z.optional(z.array(voteView)),
    /** What the deployment's policies made of it (§17), when policies are configured. */
    policy: z.optional(askPolicy),
    /** What the policies make of its current, edited arguments (§19), when they differ from the model's. */
    policyNow: z.optional(askPolicy),
    /** The principal that paused it may not decide it, by a policy's `@fourEyes` (§17). */
    fourEyes: z.optional(z.literal(true)),
    /** Its escalation ladder (§21), when it is on one. */
    escalation: z.optional(escalationView),
    /** For the principal asking: whether they may decide it now (§13). */
    mayDecide: z.optional(z.boolean()),
    /**
     * Changes exactly when the ask's current arguments change (§16): the model's, or the newest edit's. A decision
     * sends it back; an approve or edit of other arguments is `args_changed`.
     */
    argsHash: z.optional(z.string()),
    /** The approvals counting for the current arguments, and how many settle the ask (§16). */
    tally: z.optional(tally),
    /** For the principal asking: the code a decision by them would get now (§16); absent when they may decide. */
    refusal: z.optional(refusalCode),
    /** §19: a dispatched call's execution: waiting for the agent, claimed, ended, or refused at run time. */
    execution: z.optional(executionView),
  }),
);
export type AskView = z.output<typeof askView>;

/** The turn's words a person deciding needs: the last user text, the assistant's text in the paused round. */
export const turnContext = z.defer(() => z.object({ user: z.optional(z.string()), assistant: z.optional(z.string()) }));
export type TurnContext = z.output<typeof turnContext>;

/** The GET-pause body (§5, §9), plus the format; `messages` only when asked for. */
export const pauseView = z.defer(() =>
  z.object({
    runId: z.string(),
    interruptId: z.string(),
    /** A `PauseStatus`, or a status a newer version of Handback wrote. */
    status: z.union([z.enum(PAUSE_STATUSES), z.string()]),
    format,
    /** The first ask's call (part one). */
    toolCall,
    /** The first ask's prompt (part one). */
    prompt: z.nullable(z.string()),
    /** The first ask's answer schema (part one). */
    answerSchema: z.nullable(jsonSchema),
    asks: z.array(askView),
    /** Asks decided and still waiting. */
    decided: z.array(z.string()),
    pending: z.array(z.string()),
    metadata: z.nullable(z.record(z.string(), z.unknown())),
    /** The last user text and the assistant's text in the paused round, for the person deciding. */
    context: z.optional(turnContext),
    onExpiry: z.enum(ON_EXPIRY),
    /** Who paused it (§13). */
    pausedBy: z.optional(principal),
    /** Who cancelled it (§13). */
    cancelledBy: z.optional(principal),
    /** Why it was cancelled, as the canceller said (§10), shown where people decide (§22). */
    cancelReason: z.optional(z.string()),
    /** The principal that paused it may not decide it (§13). */
    fourEyes: z.optional(z.literal(true)),
    createdAt: z.string(),
    expiresAt: z.string(),
    remindAt: z.optional(z.string()),
    /** Whom the channels tell (§14), as the pause gave it. */
    notify: z.optional(z.array(notifyEntry)),
    resumedAt: z.optional(z.string()),
    continuationId: z.optional(z.string()),
    outcome: z.optional(z.enum(OUTCOMES)),
    messages: z.optional(z.array(z.unknown())),
  }),
);
export type PauseView = z.output<typeof pauseView>;

/** A page of pauses, newest first; `cursor` when more follow. */
export const pausePage = z.defer(() => z.object({ items: z.array(pauseView), cursor: z.optional(z.string()) }));
export type PausePage = z.output<typeof pausePage>;

/** A decision request that left asks undecided: the 202 body of §9. */
export const pendingDecisions = z.defer(() =>
  z.object({
    runId: z.string(),
    interruptId: z.string(),
    status: z.literal('paused'),
    decided: z.array(z.string()),
    pending: z.array(z.string()),
    /** The asks with a quorum still waiting for votes, and how many count of how many they need (§13). */
    votes: z.optional(z.record(z.string(), tally)),
  }),
);
export type PendingDecisions = z.output<typeof pendingDecisions> & {
  /** True when every decision in the request was already recorded (the store's; not on the wire). */
  replayed: boolean;
};

/** A continuation: the rebuilt messages, named by `continuationId` (the resume body of §5, §9, §10). */
export const continuation = z.defer(() =>
  z.object({
    runId: z.string(),
    interruptId: z.string(),
    continuationId: z.string(),
    format,
    outcome: z.enum(OUTCOMES),
    /** The approved and edited calls the agent must now run, in call order (§9); each one claimed before it runs (§19). */
    dispatch: z.array(dispatchedCall),
    messages: z.array(z.unknown()),
    resumedAt: z.string(),
    /** The W3C `traceparent` the pause was made in (§21): the agent's next invocation joins its trace. */
    traceparent: z.optional(z.string()),
  }),
);
export type Continuation = z.output<typeof continuation>;

/** What a hand-off delivers (§6): the continuation without `resumedAt`, its messages left out past 256 KB. */
export type HandoffPointer = Omit<Continuation, 'messages' | 'resumedAt'> & { messages?: unknown[] };

/** The 201 body of a pause. */
export const pauseCreated = z.defer(() =>
  z.object({
    runId: z.string(),
    interruptId: z.string(),
    /** The first ask's call. */
    toolCallId: z.string(),
    /** Every ask's call, in the order given. */
    asks: z.array(z.string()),
    status: z.literal('paused'),
    createdAt: z.string(),
    expiresAt: z.string(),
    /** When an inbox is configured: the inbox page with a signed token in the fragment (§11). */
    answerUrl: z.optional(z.string()),
  }),
);
export type PauseCreated = Omit<z.output<typeof pauseCreated>, 'answerUrl'> & {
  /** True when an earlier request with the same `Idempotency-Key` and body made this pause (the store's). */
  replayed?: boolean;
};

/** A granted link (§16): its URL, to hand to the recipient (201). */
export const createdLink = z.defer(() => z.object({ answerUrl: z.string(), recipient: linkRecipient }));
export type CreatedLink = z.output<typeof createdLink>;

/** A delivered link's receipt (§16): mailed to the recipient; the URL is theirs alone (202). */
export const deliveredLink = z.defer(() => z.object({ recipient: linkRecipient, delivered: z.literal(true) }));
export type DeliveredLink = z.output<typeof deliveredLink>;

/** What a hand-off claim found (§18): whether this claimant has the closed pause, and who does. */
export const claimResult = z.defer(() =>
  z.object({
    runId: z.string(),
    interruptId: z.string(),
    /** True when the claimant holds the claim (the first claim, or a retry of it). */
    claimed: z.boolean(),
    /** Who holds the claim. */
    claimant: z.string(),
    /** When it was first claimed. */
    claimedAt: z.string(),
  }),
);
export type ClaimResult = z.output<typeof claimResult>;

// §19
/** An execution claimed (§19, the 200 of `POST …/executions`): the call to run now, as dispatched, and when. */
export const executionClaimed = z.defer(() =>
  z.object({
    toolCallId: z.string(),
    name: z.string(),
    /** The arguments to run it with: the decided ones (the model's, or the person's edit). */
    args: z.unknown(),
    /** The hash of `args` (§16), as the pause's views show it. */
    argsHash: z.string(),
    claimedAt: z.string(),
    /** Until when its approval let it run, when a permit's `@validFor` bounds it. */
    approvedUntil: z.optional(z.string()),
  }),
);
export type ExecutionClaimed = z.output<typeof executionClaimed>;

/** An execution's end as recorded (§19, the 200 of `PUT …/executions/{toolCallId}`). */
export const executionEnded = z.defer(() => z.extend(executionView, { toolCallId: z.string() }));
export type ExecutionEnded = z.output<typeof executionEnded>;

export * from './wire-decisions.ts';
export * from './wire-persons.ts';
