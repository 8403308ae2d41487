import { BadRequestError } from '../errors.ts';
import { canonicalJson, capitalize, utf8Bytes } from '../json.ts';
import { type AgentAsk, type Settled, settle } from '../policies/outcomes.ts';
import type { PolicyEngine } from '../policies/port.ts';
import { LIMITS } from '../vocabulary.ts';
import type { Actor, Decision } from '../wire.ts';
import { matchDecisions, recordDecisions } from './deciding.ts';
import { isAnonymous } from './identity.ts';
import type { CheckedPause } from './pause-checks.ts';
import type { Ask, PauseRecord } from './record.ts';
import { modelHashes } from './tally.ts';

/**
 * The one seam where a pause's asks get their policy outcomes (§17), at pause time, before the pause is written: each
 * `approval` ask is evaluated once, and what the policies decided is recorded in the new record by the same
 * recording path as people's decisions (`recordDecisions`), as `policy:<id>`. The pause is then one conditional
 * write like any other: a retry under its `Idempotency-Key` meets that record (and the outcomes it holds, never
 * evaluated again), and no person can decide an ask before the policies' decisions are in it.
 */

/**
 * What the policies made of each ask of a checked pause at `now` (the service's clock), in ask order (undefined for
 * `answer` asks, which wait). Between two asks it yields to the event loop (§19): judging a pause never holds the
 * process for more than one ask's bounded evaluation.
 */
export async function judgeAsks(
  engine: PolicyEngine,
  pause: CheckedPause,
  by: Actor | undefined,
  now: Date,
): Promise<Array<Settled | undefined>> {
  const principal = {
    kind: pause.pausedBy.kind,
    subject: pause.pausedBy.subject,
    ...(by?.groups === undefined ? {} : { groups: by.groups }),
  };
  const { onBehalfOf } = pause.pausedBy;
  const settled: Array<Settled | undefined> = [];
  for (const ask of pause.asks) {
    if (ask.kind !== 'approval') {
      settled.push(undefined);
      continue;
    }
    if (settled.length > 0) await nextTurn();
    const verdict = engine.evaluate({
      principal,
      tool: ask.name,
      args: ask.args,
      runId: pause.runId,
      tenant: pause.tenant,
      format: pause.format,
      ...(onBehalfOf === undefined ? {} : { onBehalfOf: { subject: onBehalfOf.subject } }),
      now,
    });
    const agent: AgentAsk = {};
    if (ask.approvers !== undefined) agent.approvers = ask.approvers;
    if (ask.approvals !== undefined) agent.approvals = ask.approvals;
    const outcome = settle(agent, verdict, engine.mode);
    // §21: a permit's ladder escalates the ask it lets wait (in shadow mode people are asked as if there were none).
    if (outcome.decided === undefined && outcome.policy.shadow !== true) {
      const ladder = engine.ladderOf?.(verdict.policyIds);
      if (ladder !== undefined) outcome.ladder = ladder;
    }
    refuseUndecidable(pause, ask, outcome);
    settled.push(outcome);
  }
  return settled;
}

/** A turn of the event loop: other requests are served before the next evaluation. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * `record` (a pause about to be written) with the policies' outcomes: each ask's `policy`, the requirements of the
 * asks that wait, and the decisions of the others recorded as people's are. `complete` when the policies decided
 * every ask: the pause closes at once.
 */
export function withPolicyOutcomes(
  record: PauseRecord,
  settled: ReadonlyArray<Settled | undefined>,
  nowMs: number,
): { record: PauseRecord; complete: boolean } {
  const asks = record.asks.map((ask, index) => withOutcome(ask, settled[index]));
  let after: PauseRecord = { ...record, asks };
  // One recording per deciding policy: each decision is recorded with its own principal.
  const byDecider = new Map<string, { by: Actor; decisions: Decision[] }>();
  settled.forEach((outcome, index) => {
    if (outcome?.decided === undefined) return;
    const { body, by } = outcome.decided;
    const toolCallId = (asks[index] as Ask).toolCallId;
    const decision: Decision =
      body.decision === 'approve'
        ? { toolCallId, decision: 'approve' }
        : { toolCallId, decision: 'reject', reason: clipped(body.reason) };
    const entry: { by: Actor; decisions: Decision[] } = byDecider.get(by.subject) ?? { by, decisions: [] };
    entry.decisions.push(decision);
    byDecider.set(by.subject, entry);
  });
  let complete = false;
  for (const { by, decisions } of byDecider.values()) {
    // The asks' argument hashes are recorded at pause time: no transcript is needed for them.
    const recorded = recordDecisions(after, matchDecisions(after, decisions, modelHashes(after)), by, nowMs);
    if (recorded.after === undefined) continue;
    after = recorded.after;
    complete = recorded.complete;
  }
  // Still the record's first write.
  return { record: { ...after, rev: record.rev }, complete };
}

function withOutcome(ask: Ask, settled: Settled | undefined): Ask {
  if (settled === undefined) return ask;
  const next: Ask = { ...ask, policy: settled.policy };
  if (settled.decided !== undefined) {
    // The policy's decision settles the ask whatever quorum the agent asked for: no vote was taken.
    delete next.approvals;
    return next;
  }
  if (settled.policy.shadow === true) return next;
  // The agent's own list, kept where the policies changed it: an edit's requirements join it again (§19).
  const agent: NonNullable<Ask['agentAsked']> = {};
  if (ask.approvers !== undefined) agent.approvers = ask.approvers;
  if (ask.approvals !== undefined) agent.approvals = ask.approvals;
  const changed =
    canonicalJson(agent.approvers ?? null) !== canonicalJson(settled.approvers ?? null) ||
    (agent.approvals ?? 1) !== (settled.approvals ?? 1);
  if (changed) next.agentAsked = agent;
  if (settled.approvers === undefined) delete next.approvers;
  else next.approvers = settled.approvers;
  if (settled.approvals === undefined) delete next.approvals;
  else next.approvals = settled.approvals;
  if (settled.fourEyes === true) next.fourEyes = true;
  // Cut at the expiry and dropped once decided by `withLadders`, which every new pause goes through.
  if (settled.ladder !== undefined) next.escalation = { ladder: settled.ladder, reached: [] };
  return next;
}

/** A rejection's reason as §9 bounds it (2 KB): a long `@reason` or Cedar message is cut, with "…". */
function clipped(reason: string): string {
  if (utf8Bytes(reason) <= LIMITS.reasonBytes) return reason;
  let text = reason;
  while (utf8Bytes(`${text}…`) > LIMITS.reasonBytes) text = text.slice(0, Math.floor(text.length * 0.9));
  return `${text}…`;
}

/**
 * With auth off (one anonymous principal, §16) an ask whose policies require approvers, a quorum or four eyes could
 * never be decided: the pause is refused, naming the policies, rather than left waiting for no one.
 */
function refuseUndecidable(pause: CheckedPause, ask: Ask, settled: Settled): void {
  if (!isAnonymous(pause.pausedBy) || settled.decided !== undefined || settled.policy.shadow === true) return;
  const requires = settled.policy.requires;
  if (requires === undefined) return;
  const message = `the ask ${ask.toolCallId} (${ask.name}) needs what policy ${settled.policy.policyIds.join(', ')} requires (approvers, a quorum or four eyes), and auth is off: no one could decide it; sign requests with a token (see docs/local.md)`;
  throw new BadRequestError(`${capitalize(message)}.`, [{ path: '/asks', message }]);
}
