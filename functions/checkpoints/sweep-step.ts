import { Status } from '../vocabulary.ts';
import type { Approvers } from '../wire.ts';
import { type Escalated, escalate, remindLevels } from './escalation.ts';
import { type Ask, nextDueAt, type PauseRecord } from './record.ts';

/**
 * What the sweep does with one due record at `nowMs`, pure: the service reads the record, asks this, and writes the
 * answer through its commit loop (a lost race reads again and asks again). Closing an expired pause needs its
 * transcript and the rules that fold decisions in, so that step is named here and done by the service.
 */
export type SweepStep =
  /** Unknown, not due any more (the index lags the table), or closed: nothing to do. */
  | { do: 'nothing' }
  /** A closing the sweep made whose hand-off was not acknowledged: deliver it again, look again at `after.dueAtMs`. */
  | { do: 'redeliver'; after: PauseRecord }
  /** Expired with `onExpiry: "fail"`: the status is written, no continuation. */
  | { do: 'expire'; after: PauseRecord }
  /** Expired with `onExpiry: "reject"`: the service closes it (every undecided ask rejected), `awaitingHandoff`. */
  | { do: 'close' }
  /** Its reminder is due: written as sent, due next at its expiry. */
  | { do: 'remind'; after: PauseRecord }
  /** §21: the next level of each waiting ask whose level is due, reached (its approvers added); due next again. */
  | { do: 'escalate'; after: PauseRecord; escalated: Escalated[] }
  /** §21: the approvers a level added reminded, halfway to the next level (or to `expiresAt`); due next again. */
  | { do: 'remind-level'; after: PauseRecord; reminded: Escalated[] }
  /** Due for a level of an ask decided since: due next at what is still to come (bookkeeping, no event). */
  | { do: 'reschedule'; after: PauseRecord };

/** Milliseconds after which the sweep delivers again a closing of its own whose hand-off was not acknowledged. */
export const HANDOFF_RETRY_MS = 60_000;

/**
 * The sweep's step for `record` (undefined: none was found) at `nowMs`. `managers` are the approvers a `manager` level
 * adds to an ask (§21), resolved by the caller from the directory of persons; without it such a level adds no one.
 */
export function sweepStep(
  record: PauseRecord | undefined,
  nowMs: number,
  managers?: (ask: Ask) => Approvers | undefined,
): SweepStep {
  if (record === undefined || record.dueAtMs === undefined || record.dueAtMs > nowMs) return { do: 'nothing' };
  // A closing whose hand-off was not acknowledged yet: deliver it again (§6, at least once); not acknowledged by the
  // next tick, it is looked at again then.
  if (record.handoffDue === true && record.closing !== undefined) {
    return { do: 'redeliver', after: { ...record, dueAtMs: nowMs + HANDOFF_RETRY_MS, rev: record.rev + 1 } };
  }
  if (record.status !== Status.Paused) return { do: 'nothing' };
  if (nowMs >= record.expiresAtMs) {
    if (record.onExpiry !== 'fail') return { do: 'close' };
    const after: PauseRecord = { ...record, status: Status.Expired, rev: record.rev + 1 };
    delete after.dueAtMs;
    return { do: 'expire', after };
  }
  const escalated = escalate(record, nowMs, managers);
  if (escalated !== undefined) {
    const after = escalated.after;
    after.dueAtMs = nextDueAt(after);
    return { do: 'escalate', after, escalated: escalated.escalated };
  }
  const levels = remindLevels(record, nowMs);
  if (levels !== undefined) {
    const after = levels.after;
    after.dueAtMs = nextDueAt(after);
    return { do: 'remind-level', after, reminded: levels.reminded };
  }
  if (record.remindAtMs !== undefined && record.remindedAt === undefined && record.remindAtMs <= nowMs) {
    const after: PauseRecord = { ...record, remindedAt: new Date(nowMs).toISOString(), rev: record.rev + 1 };
    after.dueAtMs = nextDueAt(after);
    return { do: 'remind', after };
  }
  const dueAtMs = nextDueAt(record);
  if (dueAtMs === record.dueAtMs) return { do: 'nothing' };
  return { do: 'reschedule', after: { ...record, dueAtMs, rev: record.rev + 1 } };
}

/**
 * A closing the sweep made, waiting for its hand-off: delivered by the caller, then acknowledged; until then the sweep
 * comes back to it (§6: at least once).
 */
export function awaitingHandoff(closed: PauseRecord, nowMs: number): PauseRecord {
  return { ...closed, handoffDue: true, dueAtMs: nowMs + HANDOFF_RETRY_MS };
}
