import { answer, approvers, decidedCall, editedArgs, principal, reason, seen, voice } from './fields.ts';
import { DECISION_KINDS, type DecisionKind, LIMITS, POLICY_BASES, POLICY_OUTCOMES } from './vocabulary.ts';
import * as z from './zod.ts';

/**
 * A decision on the wire (§9, §13): each decision kind's shapes in one table, `DECISIONS` — as a request sends it, as
 * it is recorded, shown and voted — which every decision union is built from; with what an edit's record carries (the
 * policies' judgement, `askPolicy`) and the refusal a decision would get. `wire.ts` re-exports it.
 */

/** Edited arguments as recorded and shown: a JSON object. */
const recordedArgs = z.defer(() => z.record(z.string(), z.unknown()));
/** An `answer` ask's decision: the answer is the call's result (§3.4). */
const answerShape = z.fields(() => ({
  ...decidedCall(),
  answer: answer.check(
    z.describe(`An answer ask's answer: any JSON value, at most ${LIMITS.answerBytes / 1024} KB as JSON.`),
  ),
  ...seen(),
  ...voice(),
}));
export type AnswerDecision = z.output<z.ZodMiniObject<ReturnType<typeof answerShape>>>;
/** An `approval` ask approved: the call is left without a result and listed in `dispatch`. */
export const approveDecision = z.defer(() =>
  z.strictObject({
    ...decidedCall(),
    decision: z.literal('approve').check(z.describe('What is decided; absent with an answer.')),
    ...seen(),
    ...voice(),
  }),
);
export type ApproveDecision = z.output<typeof approveDecision>;
/** An `approval` ask approved with new arguments: they replace the call's in the transcript and in `dispatch`. */
export const editDecision = z.defer(() =>
  z.strictObject({
    ...decidedCall(),
    decision: z.literal('edit'),
    args: editedArgs.check(
      z.describe(
        `The edited arguments that replace the call's: a JSON object of at most ${LIMITS.answerBytes / 1024} KB.`,
      ),
    ),
    ...seen(),
    ...voice(),
  }),
);
export type EditDecision = z.output<typeof editDecision>;
/** Any ask rejected: `rejectionText(reason)` is the call's result, marked as a failure where the format can (§3.8). */
export const rejectDecision = z.defer(() =>
  z.strictObject({
    ...decidedCall(),
    decision: z.literal('reject'),
    reason: z.optional(
      reason.check(z.describe(`Why, written into the call's result; at most ${LIMITS.reasonBytes / 1024} KB.`)),
    ),
    ...seen(),
    ...voice(),
  }),
);
export type RejectDecision = z.output<typeof rejectDecision>;

/** What the deployment's policies require of an ask that waits for people (§17): the agent cannot weaken it. */
export const policyRequirements = z.defer(() =>
  z.object({
    /** The union of the applying permits' `@approvers`. */
    approvers: z.optional(approvers),
    /** The largest `@approvals`. */
    approvals: z.optional(z.number()),
    /** Some applying permit says `@fourEyes("true")`. */
    fourEyes: z.optional(z.literal(true)),
    /** §19: the shortest `@validFor` of the applying permits (an ISO 8601 duration): how long an approval lets it run. */
    validFor: z.optional(z.string()),
  }),
);
export type PolicyRequirements = z.output<typeof policyRequirements>;

/**
 * What the deployment's policies made of an `approval` ask at pause time (§17), as recorded on it: approved, rejected
 * or left to people, and which policies said so. In shadow mode (`shadow`) only recorded: people were asked as if no
 * policy existed.
 */
export const askPolicy = z.defer(() =>
  z.object({
    outcome: z.enum(POLICY_OUTCOMES),
    /** The determining policies' `@id`s: the forbids that rejected, the permits that approved or that apply. */
    policyIds: z.array(z.string()),
    /** No policy of the file determined it: the deployment's default applied, or the evaluation failed (fail closed). */
    basis: z.optional(z.enum(POLICY_BASES)),
    /** A rejection's reason: the forbid's `@reason` (else its id), or what failed. */
    reason: z.optional(z.string()),
    /** An ask that waits: what the applying permits require. */
    requires: z.optional(policyRequirements),
    /**
     * An ask that waits, whose agent named approvers too: `narrowed` when those were kept where the policies' list has
     * them; `replaced` when the two shared no one, so the policies' list stands.
     */
    agentApprovers: z.optional(z.enum(['narrowed', 'replaced'])),
    /** Shadow mode: what the policies would have done; nothing was decided or required by them. */
    shadow: z.optional(z.literal(true)),
    /** The version of the policy set that judged it (§19). */
    version: z.optional(z.string()),
  }),
);
export type AskPolicy = z.output<typeof askPolicy>;

const answered = z.defer(() => z.object({ answer: z.unknown() }));
const approved = z.defer(() => z.object({ decision: z.literal('approve') }));
const edited = z.defer(() => z.object({ decision: z.literal('edit'), args: recordedArgs }));
const rejected = z.defer(() => z.object({ decision: z.literal('reject'), reason: z.optional(z.string()) }));
/** An edit's judgement: what the policies made of its arguments (§19). */
const judged = z.fields(() => ({ policy: z.optional(askPolicy) }));
/** Who made a recorded decision (§13), the person a delegate made it for (§20), and an edit's judgement (§19). */
const recordedBy = z.fields(() => ({ by: z.optional(principal), for: z.optional(principal), ...judged() }));
/** Who voted, for whom when a delegate voted (§20), when (§13), and an edit's judgement (§19). */
const votedBy = z.fields(() => ({ by: principal, for: z.optional(principal), at: z.string(), ...judged() }));

/**
 * Each decision kind's shapes (§9, §13): as a request sends it, as it is recorded, as it is shown with who made it,
 * and as a vote on an ask with a quorum. A kind of `DECISION_KINDS` without its line fails to compile here, and its
 * shapes join every union below.
 */
const DECISIONS = {
  approve: {
    request: approveDecision,
    body: approved,
    recorded: z.defer(() => z.extend(approved, recordedBy())),
    vote: z.defer(() => z.extend(approved, votedBy())),
  },
  edit: {
    request: editDecision,
    body: edited,
    recorded: z.defer(() => z.extend(edited, recordedBy())),
    vote: z.defer(() => z.extend(edited, votedBy())),
  },
  reject: {
    request: rejectDecision,
    body: rejected,
    recorded: z.defer(() => z.extend(rejected, recordedBy())),
    vote: z.defer(() => z.extend(rejected, votedBy())),
  },
} satisfies {
  [K in DecisionKind]: Record<'request' | 'body' | 'recorded' | 'vote', z.ZodMiniType<{ decision: K }>>;
};
/** One shape of every decision kind, in `DECISIONS`' order. */
const ofEach = <P extends 'request' | 'body' | 'recorded' | 'vote'>(part: P) =>
  Object.values(DECISIONS).map((kind) => kind[part]);

/** What a person settled one ask with (§9). */
export type Decision = AnswerDecision | z.output<(typeof DECISIONS)[keyof typeof DECISIONS]['request']>;
/**
 * One decision (§9): which it is is read from `decision` (absent with an answer), so a failure names the field of the
 * decision it is, not of all of them. Unknown keys are refused: `{answer, decision}` is no decision.
 */
export const decision = z.defer(
  () =>
    z.discriminatedUnion(
      'decision',
      [
        // Absent: the answer's own way of telling which decision it is.
        z.strictObject({ ...answerShape(), decision: z.optional(z.undefined().check(z.meta({ not: {} }))) }),
        ...ofEach('request'),
      ],
      {
        error: (issue) =>
          issue.code === 'invalid_union'
            ? `must be ${DECISION_KINDS.map((kind) => JSON.stringify(kind)).join(', ')}, or absent with an answer`
            : undefined,
      },
    ) as unknown as z.ZodMiniType<Decision>,
);
/** Decisions for one paused round (`applyDecisions`, which may decide every call of a round without asks): one or more. */
export const roundDecisions = z.defer(() => z.array(decision).check(z.minLength(1)));
/** The decisions of one request (§9): 1 to `LIMITS.asks.max`, one per ask at most. */
export const decisions = z.defer(() => roundDecisions.check(z.maxLength(LIMITS.asks.max)));

/** A decision without the ask it is for (§9): how it is recorded and shown. */
export const decisionBody = z.defer(() => z.union([answered, ...ofEach('body')]));
export type DecisionBody = z.output<typeof decisionBody>;

/** A recorded decision, as sent (without the ask it is for), with who made it (§13). */
export const recordedDecisionView = z.defer(() => z.union([z.extend(answered, recordedBy()), ...ofEach('recorded')]));
export type RecordedDecisionView = z.output<typeof recordedDecisionView>;

/** One vote on an ask with a quorum, in the order recorded (§13): an approval's, an edit's or a veto's. */
export const voteView = z.defer(() => z.union(ofEach('vote')));
export type VoteView = z.output<typeof voteView>;

/** Votes for an ask's current arguments, and how many it needs. */
export const tally = z.defer(() => z.object({ have: z.number(), need: z.number() }));
export type Tally = z.output<typeof tally>;

/** Why a principal may not decide an ask now: the code their decision would get (§16). */
export const REFUSAL_CODES = [
  'forbidden',
  'self_decision',
  'not_an_approver',
  'already_voted',
  'already_decided',
  'pause_cancelled',
  'pause_expired',
  'unsupported_record',
  // §20
  'unknown_person',
] as const;
export const refusalCode = z.defer(() => z.enum(REFUSAL_CODES));
export type RefusalCode = (typeof REFUSAL_CODES)[number];
