import { durationSeconds } from '../policies/duration.ts';
import type { ExecutionView } from '../wire.ts';
import { effectiveDecisions, type PauseRecord } from './record.ts';

/**
 * How a closed pause's dispatched calls are shown and how long their approvals last (§19), pure: what a closing, a
 * view and a claim read. A module apart from the claims' steps (`executing.ts`), which only the claims load, with
 * their first call.
 */

/**
 * Until when the approval of ask `index` lets its call run (§19): the decision that settled it, plus the `@validFor`
 * its pause-time policies required; undefined when none did (or in shadow mode, which requires nothing).
 */
export function approvedUntilOf(record: PauseRecord, index: number): string | undefined {
  const policy = record.asks[index]?.policy;
  const validFor = policy?.shadow === true ? undefined : policy?.requires?.validFor;
  const decidedAt = record.decisions[index]?.decidedAt;
  const seconds = validFor === undefined ? undefined : durationSeconds(validFor);
  if (seconds === undefined || decidedAt === undefined) return undefined;
  return new Date(Date.parse(decidedAt) + seconds * 1000).toISOString();
}

/**
 * Which asks of a closed `record` are dispatched calls: approved or edited, as its continuation dispatches them (a
 * cancel dispatches nothing). Every other ask has no execution.
 */
export function dispatchedAsks(record: PauseRecord): boolean[] {
  const closing = record.closing;
  if (closing === undefined) return record.asks.map(() => false);
  return effectiveDecisions(record, closing.outcome, closing.reason).map(
    (decision) => 'decision' in decision && (decision.decision === 'approve' || decision.decision === 'edit'),
  );
}

/**
 * The execution of ask `index` as views show it (`dispatched`: `dispatchedAsks`' answer for it): waiting for the
 * agent since its pause closed, claimed, ended, or refused at run time; undefined for an ask that dispatched nothing.
 */
export function executionViewOf(record: PauseRecord, index: number, dispatched: boolean): ExecutionView | undefined {
  if (!dispatched || record.closing === undefined) return undefined;
  const execution = record.executions?.[index];
  if (execution === undefined) {
    const approvedUntil = approvedUntilOf(record, index);
    return {
      status: 'waiting',
      at: record.closing.closedAt,
      ...(approvedUntil === undefined ? {} : { approvedUntil }),
    };
  }
  const view: ExecutionView = { status: execution.status, at: execution.endedAt ?? execution.claimedAt };
  view.by = execution.by;
  if (execution.endedAt !== undefined) view.claimedAt = execution.claimedAt;
  if (execution.refusal !== undefined) {
    view.reason = execution.refusal.reason;
    view.code = execution.refusal.code;
  }
  if (execution.detail !== undefined) {
    if (execution.status === 'failed') view.reason = execution.detail;
    else view.detail = execution.detail;
  }
  if (execution.shadow !== undefined) view.policy = execution.shadow;
  return view;
}
