import {
  AlreadyClaimedError,
  AlreadyFinishedError,
  ApprovalExpiredError,
  ForbiddenError,
  type HandbackError,
  NotClaimedError,
  PolicyEvaluationError,
  PolicyForbidsError,
} from '../errors.ts';
import { utf8Bytes } from '../json.ts';
import { type ExecutionEnd, LIMITS, type PolicyOutcome } from '../vocabulary.ts';
import type { AskPolicy, Principal } from '../wire.ts';
import { sameDoor, samePerson } from './identity.ts';
import type { PauseRecord, RecordedExecution } from './record.ts';

/**
 * What an execution claim does to a closed pause (§19), pure: whether a dispatched call may be claimed now, by whom,
 * and the record the one conditional write of the claim (or of its refusal, or of its end) makes — and how each
 * dispatched call's execution is shown. No I/O, no clock: the caller reads, judges with the policies in force, and
 * writes through the commit loop.
 */

/** The call an execution is of. */
export interface ExecutionIds {
  runId: string;
  continuationId: string;
  toolCallId: string;
}

/** What the policies in force make of a claim: nothing to refuse, a refusal, or (shadow mode) what they would do. */
export type ClaimJudgement =
  | { allow: true; shadow?: { outcome: PolicyOutcome; policyIds: string[] } }
  | { refuse: 'policy_forbids'; policyIds: string[]; reason: string }
  | { refuse: 'policy_error'; reason: string };

/**
 * The judgement of a claim from the policies' verdict on the dispatched call now: a rejection refuses (a forbid, the
 * default that rejects what no policy allows, or an evaluation that failed: fail closed); in shadow mode nothing is
 * refused and a rejection is only recorded.
 */
export function judgementOf(verdict: AskPolicy | undefined, shadow: boolean): ClaimJudgement {
  if (verdict === undefined || verdict.outcome !== 'reject') return { allow: true };
  if (shadow) return { allow: true, shadow: { outcome: verdict.outcome, policyIds: verdict.policyIds } };
  const reason = verdict.reason ?? verdict.policyIds.join(', ');
  return verdict.basis === 'error'
    ? { refuse: 'policy_error', reason }
    : { refuse: 'policy_forbids', policyIds: verdict.policyIds, reason };
}

/** What a claim round decides: the claim (new or replayed), or a refusal to write and then throw. */
export type ClaimStep =
  | { claimed: RecordedExecution; after?: PauseRecord }
  | { refused: HandbackError; after: PauseRecord };

/**
 * A claim of ask `index`'s dispatched call on `record` at `nowMs` by `by`. The first claim is recorded (or, refused by
 * `judgement` or past `approvedUntil`, its refusal is); the same principal retrying under the same `key` gets its
 * claim again; every other claim is `AlreadyClaimedError`, and a refused one its refusal again.
 */
export function claimStep(
  record: PauseRecord,
  index: number,
  ids: ExecutionIds,
  claim: { nowMs: number; by: Principal; key?: string; judgement: ClaimJudgement; approvedUntil?: string },
): ClaimStep {
  const existing = record.executions?.[index];
  if (existing !== undefined) {
    if (existing.status === 'refused') throw refusalError(ids, existing);
    if (claim.key !== undefined && existing.key === claim.key && sameDoor(existing.by, claim.by)) {
      return { claimed: existing };
    }
    throw new AlreadyClaimedError(ids, existing.claimedAt, existing.by);
  }
  const at = new Date(claim.nowMs).toISOString();
  const base = { claimedAt: at, by: claim.by, ...(claim.key === undefined ? {} : { key: claim.key }) };
  const { judgement } = claim;
  let refusal: RecordedExecution['refusal'];
  if ('refuse' in judgement) {
    refusal =
      judgement.refuse === 'policy_forbids'
        ? { code: 'policy_forbids', reason: clip(judgement.reason), policyIds: judgement.policyIds }
        : { code: 'policy_error', reason: clip(judgement.reason) };
  } else if (claim.approvedUntil !== undefined && claim.nowMs > Date.parse(claim.approvedUntil)) {
    const reason = `the approval was valid until ${claim.approvedUntil}`;
    refusal = { code: 'approval_expired', reason, approvedUntil: claim.approvedUntil };
  }
  if (refusal !== undefined) {
    const refused: RecordedExecution = { status: 'refused', ...base, refusal };
    return { refused: refusalError(ids, refused), after: withExecution(record, index, refused) };
  }
  const shadow = 'allow' in judgement && judgement.shadow !== undefined ? { shadow: judgement.shadow } : {};
  const claimed: RecordedExecution = { status: 'claimed', ...base, ...shadow };
  return { claimed, after: withExecution(record, index, claimed) };
}

/**
 * The end of ask `index`'s claimed execution, told by `by` at `nowMs`: recorded once, by the claimant only (the same
 * person, §16); the same end again is answered as recorded (`after` undefined); another end is refused.
 */
export function finishStep(
  record: PauseRecord,
  index: number,
  ids: ExecutionIds,
  end: { nowMs: number; by: Principal; status: ExecutionEnd; detail?: string },
): { ended: RecordedExecution; after?: PauseRecord } {
  const existing = record.executions?.[index];
  if (existing === undefined) throw new NotClaimedError(ids, 'was not claimed');
  if (existing.status === 'refused') throw new NotClaimedError(ids, 'was refused at run time, so it never ran');
  if (!samePerson(existing.by, end.by)) {
    throw new ForbiddenError(
      `Only the claimant of call ${ids.toolCallId} (${existing.by.kind} ${existing.by.subject}) tells how it ended; nothing was recorded.`,
    );
  }
  if (existing.status !== 'claimed') {
    if (existing.status === end.status && existing.detail === end.detail) return { ended: existing };
    throw new AlreadyFinishedError(ids, existing.status, existing.endedAt ?? existing.claimedAt);
  }
  const ended: RecordedExecution = {
    ...existing,
    status: end.status,
    endedAt: new Date(end.nowMs).toISOString(),
    ...(end.detail === undefined ? {} : { detail: end.detail }),
  };
  return { ended, after: withExecution(record, index, ended) };
}

/** The error a refused claim is answered with, the first time and every time after. */
export function refusalError(ids: ExecutionIds, execution: RecordedExecution): HandbackError {
  const refusal = execution.refusal ?? { code: 'policy_error' as const, reason: 'refused' };
  const at = `refused at run time (${execution.claimedAt})`;
  switch (refusal.code) {
    case 'approval_expired':
      return new ApprovalExpiredError(ids, refusal.approvedUntil ?? execution.claimedAt);
    case 'policy_forbids': {
      const policyIds = refusal.policyIds ?? [];
      const which = policyIds.length === 0 ? "the deployment's policies" : `the deployment's policy ${policyIds[0]}`;
      return new PolicyForbidsError(
        `Not run: ${which} does not allow call ${ids.toolCallId} now (${refusal.reason}); ${at}, nothing ran.`,
        { policyIds, reason: refusal.reason, toolCallId: ids.toolCallId },
      );
    }
    case 'policy_error':
      return new PolicyEvaluationError(
        `Not run: the deployment's policies could not judge call ${ids.toolCallId} now (${refusal.reason}); ${at}, nothing ran.`,
        { reason: refusal.reason, toolCallId: ids.toolCallId },
      );
  }
}

/** `record` with ask `index`'s execution set, at the next revision. */
function withExecution(record: PauseRecord, index: number, execution: RecordedExecution): PauseRecord {
  const executions = record.asks.map((_, at) => (at === index ? execution : record.executions?.[at]));
  return { ...record, executions, rev: record.rev + 1 };
}

/** A reason as an execution records it: at most `LIMITS.executionDetailBytes`, cut with "…". */
function clip(reason: string): string {
  if (utf8Bytes(reason) <= LIMITS.executionDetailBytes) return reason;
  let text = reason;
  while (utf8Bytes(`${text}…`) > LIMITS.executionDetailBytes) text = text.slice(0, Math.floor(text.length * 0.9));
  return `${text}…`;
}
