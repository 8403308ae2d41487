import type { PolicyDefault, PolicyMode } from '../vocabulary.ts';
import type { Approvers, AskPolicy, PolicyRequirements, Principal } from '../wire.ts';
import { durationSeconds } from './duration.ts';
import type { LadderLevel } from './port.ts';

/**
 * §17's outcomes, pure: Cedar's answers to an ask's two requests combined in the contract's order, and what that
 * outcome does to the ask the agent made — decided now, or waiting with requirements the agent may only narrow.
 */

/** Cedar's answer to one request: a decision with its determining and erroring policies, or a failed request. */
export type PolicyAnswer =
  | { kind: 'failure'; message: string }
  | { kind: 'allow' | 'deny'; policyIds: string[]; errors: Array<{ policyId: string; message: string }> };

/** What the policies' annotations say, by policy id. */
export type PolicyAnnotations = ReadonlyMap<
  string,
  { reason?: string; approvers?: Approvers; approvals?: number; fourEyes?: true; validFor?: string }
>;

/**
 * The policies' outcome for one ask, in §17's order: an explicit forbid of `call` rejects (with its `@reason`); else
 * a failed evaluation rejects (fail closed); else an allowed `callWithoutApproval` approves; else the permits of
 * `call` that apply let it wait with their requirements; else the default. `callWithoutApproval` is asked only when
 * the answer to `call` leaves it open.
 */
export function verdictOf(
  call: () => PolicyAnswer,
  callWithoutApproval: () => PolicyAnswer,
  policies: PolicyAnnotations,
  fallback: PolicyDefault,
): AskPolicy {
  const first = call();
  if (first.kind === 'failure') return failure([], first.message);
  if (first.kind === 'deny' && first.policyIds.length > 0) {
    const [id] = first.policyIds as [string];
    return { outcome: 'reject', policyIds: first.policyIds, reason: policies.get(id)?.reason ?? id };
  }
  if (first.errors.length > 0) return erroring(first.errors);
  const second = callWithoutApproval();
  if (second.kind === 'failure') return failure([], second.message);
  if (second.errors.length > 0) return erroring(second.errors);
  if (second.kind === 'allow') {
    const verdict: AskPolicy = { outcome: 'approve', policyIds: second.policyIds };
    // What the permits of `call` that apply would ask of people: an edit to arguments only `callWithoutApproval`
    // permits is still a person's vote, held to them (§19).
    const requires = first.kind === 'allow' ? requirementsOf(first.policyIds, policies) : undefined;
    if (requires !== undefined) verdict.requires = requires;
    return verdict;
  }
  if (first.kind === 'allow') {
    const verdict: AskPolicy = { outcome: 'ask', policyIds: first.policyIds };
    const requires = requirementsOf(first.policyIds, policies);
    if (requires !== undefined) verdict.requires = requires;
    return verdict;
  }
  return fallback === 'reject'
    ? { outcome: 'reject', policyIds: [], basis: 'default', reason: DEFAULT_REJECTION }
    : { outcome: 'ask', policyIds: [], basis: 'default' };
}

/** The reason of a rejection by the default (`HANDBACK_POLICY_DEFAULT=reject`). */
export const DEFAULT_REJECTION =
  'No policy of this deployment allows this call, and its default is to reject what none allows';

/** A rejection's reason for a failed evaluation: what failed, so the model and the person reading it know. */
export function errorReason(message: string): string {
  return `${ERROR_REASON}${message}`;
}

const ERROR_REASON = "The deployment's policies could not evaluate this call, so it was rejected: ";

/** What failed, in Cedar's (or the request's) words, from a failed evaluation's reason (`errorReason`). */
export function errorMessageOf(reason: string | undefined): string {
  if (reason === undefined) return 'the evaluation failed';
  return reason.startsWith(ERROR_REASON) ? reason.slice(ERROR_REASON.length) : reason;
}

function failure(policyIds: string[], message: string): AskPolicy {
  return { outcome: 'reject', policyIds, basis: 'error', reason: errorReason(message) };
}

function erroring(errors: ReadonlyArray<{ policyId: string; message: string }>): AskPolicy {
  const ids = [...new Set(errors.map((error) => error.policyId))];
  return failure(ids, errors.map((error) => `${error.policyId}: ${error.message}`).join('; '));
}

/** The requirements of the permits that apply: their approvers' union, the largest approvals, four eyes if any. */
function requirementsOf(ids: readonly string[], policies: PolicyAnnotations): PolicyRequirements | undefined {
  const requires: PolicyRequirements = {};
  for (const id of ids) {
    const policy = policies.get(id);
    if (policy === undefined) continue;
    if (policy.approvers !== undefined) requires.approvers = union(requires.approvers, policy.approvers);
    if (policy.approvals !== undefined && policy.approvals > (requires.approvals ?? 1)) {
      requires.approvals = policy.approvals;
    }
    if (policy.fourEyes === true) requires.fourEyes = true;
    // §19: the shortest validity of the permits that apply bounds the approval.
    if (policy.validFor !== undefined && shorter(policy.validFor, requires.validFor))
      requires.validFor = policy.validFor;
  }
  return Object.keys(requires).length === 0 ? undefined : requires;
}

/** Whether the duration `a` is shorter than `b` (or `b` is none). */
function shorter(a: string, b: string | undefined): boolean {
  return b === undefined || (durationSeconds(a) ?? 0) < (durationSeconds(b) ?? 0);
}

const KEYS = ['subjects', 'emails', 'groups'] as const;

function union(a: Approvers | undefined, b: Approvers): Approvers {
  const out: Approvers = {};
  for (const key of KEYS) {
    const list = [...(a?.[key] ?? [])];
    for (const entry of b[key] ?? []) if (!list.some((have) => same(key, have, entry))) list.push(entry);
    if (list.length > 0) out[key] = list;
  }
  return out;
}

/** The agent's entries that the policies' list has too (emails compare case-insensitively). */
function intersection(agent: Approvers, policies: Approvers): Approvers {
  const out: Approvers = {};
  for (const key of KEYS) {
    const list = (agent[key] ?? []).filter((entry) => (policies[key] ?? []).some((have) => same(key, have, entry)));
    if (list.length > 0) out[key] = list;
  }
  return out;
}

function same(key: (typeof KEYS)[number], a: string, b: string): boolean {
  return key === 'emails' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** What an ask asks of people, as the agent made it. */
export interface AgentAsk {
  approvers?: Approvers;
  approvals?: number;
}

/** What the policies' outcome does to one ask. */
export interface Settled {
  /** What is recorded on the ask (and shown on its view). */
  policy: AskPolicy;
  /** Decided now (enforce mode): the decision, and the policy principal that records it. */
  decided?: { body: { decision: 'approve' } | { decision: 'reject'; reason: string }; by: Principal };
  /** Waiting: the ask's approvers, approvals and four eyes once the policies' requirements are applied. */
  approvers?: Approvers;
  approvals?: number;
  fourEyes?: true;
  /** §21: the escalation ladder of the permits that let it wait (the first with an `@escalate`), in enforce mode. */
  ladder?: LadderLevel[];
}

/**
 * What `verdict` does to an ask in `mode`. Shadow: nothing but the record. Enforce: an approval or rejection is a
 * decision by `policy:<id>` (the first determining policy's id, or `default`, or `error`); an ask that waits takes
 * the policies' requirements — their approvers, or the agent's where they are among them (the agent may narrow,
 * never widen: where the two share no one, the policies' list stands), the larger approvals, four eyes if required.
 */
export function settle(ask: AgentAsk, verdict: AskPolicy, mode: PolicyMode): Settled {
  if (mode === 'shadow') return { policy: { ...verdict, shadow: true } };
  const policy: AskPolicy = { ...verdict };
  if (verdict.outcome !== 'ask') {
    const by = policyPrincipal(verdict.basis ?? verdict.policyIds[0] ?? 'default', verdict.version);
    const body =
      verdict.outcome === 'approve'
        ? { decision: 'approve' as const }
        : { decision: 'reject' as const, reason: verdict.reason ?? by.subject };
    return { policy, decided: { body, by } };
  }
  const settled: Settled = { policy };
  const required = verdict.requires?.approvers;
  if (required === undefined) {
    if (ask.approvers !== undefined) settled.approvers = ask.approvers;
  } else if (ask.approvers === undefined) {
    settled.approvers = required;
  } else {
    const both = intersection(ask.approvers, required);
    const narrowed = Object.keys(both).length > 0;
    settled.approvers = narrowed ? both : required;
    policy.agentApprovers = narrowed ? 'narrowed' : 'replaced';
  }
  const approvals = Math.max(ask.approvals ?? 1, verdict.requires?.approvals ?? 1);
  if (approvals > 1) settled.approvals = approvals;
  if (verdict.requires?.fourEyes === true) settled.fourEyes = true;
  return settled;
}

/** The principal a policy's decision is recorded with (§17), naming the set's version when known (§19). */
export function policyPrincipal(id: string, version?: string): Principal {
  const principal: Principal = { kind: 'service', subject: `policy:${id}`, via: 'policy' };
  if (version !== undefined) principal.policyVersion = version;
  return principal;
}

/**
 * An ask's requirements after a person's edit (§19), from `verdict` on the edited arguments (its outcome `ask` or
 * `approve`; a rejection refuses the edit before this): the `@approvers` of the permits of `call` that apply joined
 * with the agent's own list as at pause time (§17, its third outcome; the pause-time approvers where no such permit names any), and
 * never weaker than `atPause`: approvals the larger, four eyes if either says so. Also what `agentApprovers` the
 * join records.
 */
export function requirementsAfterEdit(
  atPause: PolicyRequirements,
  agent: AgentAsk,
  verdict: AskPolicy,
): { requires: PolicyRequirements; agentApprovers?: AskPolicy['agentApprovers'] } {
  const asking: AskPolicy = { outcome: 'ask', policyIds: verdict.policyIds };
  if (verdict.requires !== undefined) asking.requires = verdict.requires;
  const joined = settle(agent, asking, 'enforce');
  const requires: PolicyRequirements = {};
  const named = verdict.requires?.approvers !== undefined;
  const approvers = named ? joined.approvers : atPause.approvers;
  if (approvers !== undefined) requires.approvers = approvers;
  const approvals = Math.max(atPause.approvals ?? 1, joined.approvals ?? 1);
  if (approvals > 1) requires.approvals = approvals;
  if (atPause.fourEyes === true || joined.fourEyes === true) requires.fourEyes = true;
  const agentApprovers = named ? joined.policy.agentApprovers : undefined;
  return agentApprovers === undefined ? { requires } : { requires, agentApprovers };
}
