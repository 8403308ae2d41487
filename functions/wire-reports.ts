import {
  ASK_OUTCOMES,
  type AskOutcome,
  POLICY_DEFAULTS,
  POLICY_MODES,
  POLICY_OUTCOMES,
  SHADOW_PEOPLE,
} from './vocabulary.ts';
import { askPolicy } from './wire-decisions.ts';
import * as z from './zod.ts';

/**
 * What an operator reads of how the deployment decides, as JSON: the policy set and what shadow mode would have
 * decided (§19: `GET /policies`, `GET /policies/shadow`), and how decisions went (§21: `GET /stats`).
 */

/** One policy of the deployment's set, as the file has it. */
export const policyView = z.defer(() =>
  z.object({
    /** Its `@id`. */
    id: z.string(),
    effect: z.enum(['permit', 'forbid']),
    /** Every annotation it carries, Handback's (`@approvers`, `@reason`, …) and the author's own. */
    annotations: z.record(z.string(), z.string()),
    /** Its text, as the file has it. */
    text: z.string(),
  }),
);

/** `GET /policies`: the deployment's policy set, as the audit trail names it (§19). */
export const policySetView = z.defer(() =>
  z.object({
    /** The set's version: `HANDBACK_POLICY_VERSION`, else the first 16 hex digits of its files' SHA-256. */
    version: z.string(),
    mode: z.enum(POLICY_MODES),
    default: z.enum(POLICY_DEFAULTS),
    /** The IANA time zone of `context.clock`. */
    timeZone: z.string(),
    /** Its policies, in the file's order. */
    policies: z.array(policyView),
  }),
);
export type PolicySetView = z.output<typeof policySetView>;

/** One ask the policies judged in shadow mode, beside what people did with it. */
export const shadowEntry = z.defer(() =>
  z.object({
    runId: z.string(),
    interruptId: z.string(),
    toolCallId: z.string(),
    name: z.string(),
    createdAt: z.string(),
    /** What the policies would have done at pause time. */
    would: askPolicy,
    /** What people did: approved, edited, rejected; or it still waits, expired, was cancelled. */
    people: z.enum(SHADOW_PEOPLE),
    /** Whether the two agree: an approval approved as it was, a rejection rejected; null where nothing compares. */
    agreed: z.nullable(z.boolean()),
  }),
);
export type ShadowEntry = z.output<typeof shadowEntry>;

/** What one policy (or `default`, `error`) would have decided, against what people did, over the asks listed. */
export const shadowTally = z.defer(() =>
  z.object({
    policyId: z.string(),
    asks: z.number(),
    agreed: z.number(),
    disagreed: z.number(),
    /** The policies' would-be outcomes, by outcome. */
    would: z.partialRecord(z.enum(POLICY_OUTCOMES), z.number()),
    /** What people did, by what. */
    people: z.partialRecord(z.enum(SHADOW_PEOPLE), z.number()),
  }),
);
export type ShadowTally = z.output<typeof shadowTally>;

/** `GET /policies/shadow`: what shadow mode would have decided against what people did, per policy (§19). */
export const shadowReport = z.defer(() =>
  z.object({
    /** The pauses listed were created at or after it. */
    since: z.string(),
    /** Per policy, over this page's asks, in the order first met. */
    policies: z.array(shadowTally),
    /** The asks, newest pause first. */
    items: z.array(shadowEntry),
    /** When older pauses since `since` remain: the next page's cursor. */
    cursor: z.optional(z.string()),
  }),
);
export type ShadowReport = z.output<typeof shadowReport>;

// §21: how decisions are going.

const count = z.defer(() => z.number().check(z.int(), z.minimum(0)));
/** How many asks of a tool came to each outcome (§21). */
export const outcomeCounts = z.defer(() =>
  z.object(Object.fromEntries(ASK_OUTCOMES.map((outcome) => [outcome, count])) as Record<AskOutcome, typeof count>),
);
const milliseconds = z.defer(() => z.nullable(z.number().check(z.minimum(0))));
/** One tool's asks in a window (§21). */
export const toolStats = z.defer(() =>
  z.object({
    tool: z.string().check(z.describe("The tool's name, as the paused call named it.")),
    outcomes: outcomeCounts.check(z.describe('Asks settled, by what settled them.')),
    timeToDecisionMs: z
      .object({ p50: milliseconds, p90: milliseconds, max: milliseconds })
      .check(
        z.describe(
          'Milliseconds from the pause to the decision of the asks people decided (approve, edit, reject), by nearest rank; null when none was.',
        ),
      ),
    pending: count.check(z.describe('Asks still waiting for people.')),
    oldestPendingSeconds: z
      .nullable(z.number().check(z.int(), z.minimum(0)))
      .check(z.describe('Whole seconds the oldest of them has waited; null when none waits.')),
  }),
);
/** `GET /stats` (§21): how decisions went for the tenant's asks of the pauses made in the window, exactly. */
export const decisionStats = z.defer(() =>
  z.object({
    since: z.string(),
    until: z.string(),
    tools: z.array(toolStats).check(z.describe('Each tool with asks in the window, most asks first.')),
    toolsOmitted: z.optional(
      count.check(z.describe('Tools left out (those with the fewest asks) to keep the answer under 4 MB.')),
    ),
  }),
);
export type DecisionStats = z.output<typeof decisionStats>;
export type ToolStats = z.output<typeof toolStats>;
