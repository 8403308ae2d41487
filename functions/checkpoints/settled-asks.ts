import { type AskOutcome, type DecisionKind, isOneOf, Status, VIAS, type Via } from '../vocabulary.ts';
import type { PauseChange } from './checkpoint-service.ts';
import type { PauseRecord } from './record.ts';

/**
 * What became of each ask of a pause (§21), pure: settled — by a person's decision, by the deployment's policies, by
 * the pause's expiry or cancel while it waited — with when, by which door and how long after the pause; or still
 * waiting. `GET /stats` counts these, and the `TimeToDecision` and `Decisions` metrics emit each settling once, from
 * the change that made it.
 */

/** What a person's decision of each kind counts as (§21): its own word, as `ASK_OUTCOMES` names them. */
export const OUTCOME_OF: Record<DecisionKind, AskOutcome> = { approve: 'approve', edit: 'edit', reject: 'reject' };

/** An ask that no longer waits: how, through which door, and the milliseconds from its pause to that moment. */
export interface Settled {
  state: 'settled';
  outcome: AskOutcome;
  via: Via;
  /** When it settled: the decision's time, the cancel's, or the pause's `expiresAt` (silence is never a decision). */
  atMs: number;
  timeToDecisionMs: number;
}

/** An ask still waiting for people, since its pause was made. */
export interface Waiting {
  state: 'waiting';
  sinceMs: number;
}

/** An ask of `tool` and what became of it. */
export type AskState = { toolCallId: string; tool: string } & (Settled | Waiting);

/**
 * Each ask of `record` as it stands: with `nowMs`, an open pause past its `expiresAt` counts as expired (as every read
 * shows it); without, only what is stored counts (a change's before and after). A pause in a status this version does
 * not know gives nothing.
 */
export function askStates(record: PauseRecord, nowMs?: number): AskState[] {
  const createdMs = Date.parse(record.createdAt);
  const expired =
    record.status === Status.Expired ||
    (record.status === Status.Paused && nowMs !== undefined && nowMs >= record.expiresAtMs);
  const known = expired || ([Status.Paused, Status.Resumed, Status.Cancelled] as string[]).includes(record.status);
  if (!known) return [];
  return record.asks.map((ask, index) => {
    const of = { toolCallId: ask.toolCallId, tool: ask.name };
    const settled = (outcome: AskOutcome, via: Via, atMs: number): AskState => ({
      ...of,
      state: 'settled',
      outcome,
      via,
      atMs,
      timeToDecisionMs: Math.max(0, atMs - createdMs),
    });
    const decision = record.decisions[index];
    if (decision !== undefined) {
      const via = viaOf(decision.by?.via);
      // An expiry's closing records its rejection as the sweep's (§10): the ask expired, at `expiresAt`.
      if (via === 'sweep') return settled('expired', via, record.expiresAtMs);
      const { body } = decision;
      // A policy's decision is recorded as the policy's principal (§17), through the `policy` door.
      const outcome = via === 'policy' ? 'policy' : 'answer' in body ? 'approve' : OUTCOME_OF[body.decision];
      return settled(outcome, via, Date.parse(decision.decidedAt));
    }
    if (record.status === Status.Cancelled && record.closing !== undefined) {
      return settled('cancelled', viaOf(record.closing.by?.via), Date.parse(record.closing.closedAt));
    }
    if (expired) return settled('expired', 'sweep', record.expiresAtMs);
    return { ...of, state: 'waiting', sinceMs: createdMs };
  });
}

/** The asks a committed change settled, each once: those settled after it that were not before it. */
export function settledBy(change: PauseChange): Array<AskState & Settled> {
  const before = change.before === undefined ? [] : askStates(change.before);
  const was = new Set(before.filter((ask) => ask.state === 'settled').map((ask) => ask.toolCallId));
  return askStates(change.after).filter(
    (ask): ask is AskState & Settled => ask.state === 'settled' && !was.has(ask.toolCallId),
  );
}

/** A recorded door, or `library` for a decision recorded before principals were (which has none). */
function viaOf(via: unknown): Via {
  return isOneOf(VIAS, via) ? via : 'library';
}
