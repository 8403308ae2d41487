import { PolicyEvaluationError, PolicyForbidsError } from '../errors.ts';
import { errorMessageOf, requirementsAfterEdit } from '../policies/outcomes.ts';
import type { PolicyEngine } from '../policies/port.ts';
import type { AskPolicy, PolicyRequirements } from '../wire.ts';
import type { MatchedDecision } from './deciding.ts';
import { nextTurn } from './policy-decisions.ts';
import { type Ask, interruptIdOf, type PauseRecord } from './record.ts';
import { argsHashOf } from './tally.ts';

/**
 * The seam where a person's edits meet the deployment's policies (§19), before anything is recorded: each edit of an
 * `approval` ask is the same request as at pause time — the pauser, the tool, the run — with the editor's arguments,
 * at the service's clock. A forbid refuses it (403 `policy_forbids`), a failed evaluation too (422 `policy_error`);
 * otherwise the ask's requirements become the policies' for the new arguments, never weaker than at pause time, and
 * the edit carries what the policies said. In shadow mode nothing is refused or required: the would-be outcome is
 * recorded with the edit. Loaded with the engine, only by a request that edits where policies are configured.
 */

/** What judging a request's edits makes of the record it read. */
export interface JudgedEdits {
  /** The record with each edited ask's requirements and `policyNow` as its edit makes them. */
  record: PauseRecord;
  /** What the policies made of each edit, by the decision's position in the request. */
  policies: Map<number, AskPolicy>;
}

/**
 * Judges the edits among `matched` (decisions about to be recorded on `record`) at `nowMs`, in request order, yielding
 * to the event loop between two (§19); throws the first refusal, before anything is written.
 */
export async function judgeEdits(
  engine: PolicyEngine,
  record: PauseRecord,
  matched: readonly MatchedDecision[],
  nowMs: number,
): Promise<JudgedEdits> {
  const asks = [...record.asks];
  const policies = new Map<number, AskPolicy>();
  const principal = {
    kind: record.pausedBy.kind,
    subject: record.pausedBy.subject,
    ...(record.pausedBy.groups === undefined ? {} : { groups: record.pausedBy.groups }),
  };
  let judged = 0;
  for (const match of matched) {
    const { decision, index } = match;
    const ask = asks[index] as Ask;
    if (!('decision' in decision) || decision.decision !== 'edit' || ask.kind !== 'approval') continue;
    if (judged++ > 0) await nextTurn();
    const verdict = engine.evaluate({
      principal,
      tool: ask.name,
      args: decision.args,
      runId: record.runId,
      tenant: record.tenant,
      format: record.format,
      now: new Date(nowMs),
    });
    const argsHash = argsHashOf(decision.args);
    if (engine.mode === 'shadow') {
      const policy: AskPolicy = { ...verdict, shadow: true };
      policies.set(match.position, policy);
      asks[index] = withPolicyNow(ask, argsHash, match.modelHash, policy);
      continue;
    }
    if (verdict.outcome === 'reject') throw refusal(record, ask, verdict);
    const atPause = ask.atPause ?? requirementsOf(ask);
    const agent = ask.agentAsked ?? {
      ...(atPause.approvers === undefined ? {} : { approvers: atPause.approvers }),
      ...(atPause.approvals === undefined ? {} : { approvals: atPause.approvals }),
    };
    const { requires, agentApprovers } = requirementsAfterEdit(atPause, agent, verdict);
    const policy: AskPolicy = agentApprovers === undefined ? verdict : { ...verdict, agentApprovers };
    policies.set(match.position, policy);
    const next: Ask = withPolicyNow({ ...ask, atPause }, argsHash, match.modelHash, policy);
    delete next.approvers;
    delete next.approvals;
    delete next.fourEyes;
    if (requires.approvers !== undefined) next.approvers = requires.approvers;
    if (requires.approvals !== undefined) next.approvals = requires.approvals;
    if (requires.fourEyes === true) next.fourEyes = true;
    asks[index] = next;
  }
  return { record: { ...record, asks }, policies };
}

/** The ask's own requirements. */
function requirementsOf(ask: Ask): PolicyRequirements {
  const requires: PolicyRequirements = {};
  if (ask.approvers !== undefined) requires.approvers = ask.approvers;
  if (ask.approvals !== undefined) requires.approvals = ask.approvals;
  if (ask.fourEyes === true) requires.fourEyes = true;
  return requires;
}

/** `ask` with what the policies make of its current arguments, kept only while they are not the model's own. */
function withPolicyNow(ask: Ask, argsHash: string, modelHash: string, policy: AskPolicy): Ask {
  const next: Ask = { ...ask };
  if (argsHash === modelHash) delete next.policyNow;
  else next.policyNow = { argsHash, policy };
  return next;
}

/** The refusal of an edit the policies reject: a forbid (or the default `reject`), or an evaluation that failed. */
function refusal(record: PauseRecord, ask: Ask, verdict: AskPolicy): Error {
  const ids = { runId: record.runId, interruptId: interruptIdOf(record), toolCallId: ask.toolCallId };
  if (verdict.basis === 'error') {
    return PolicyEvaluationError.ofEdit(ids, verdict.policyIds, errorMessageOf(verdict.reason));
  }
  return PolicyForbidsError.ofEdit(ids, verdict.policyIds, verdict.reason ?? verdict.policyIds[0] ?? 'forbidden');
}
