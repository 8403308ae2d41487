import type { Directory } from '../directory/port.ts';
import { LIMITS, type Outcome } from '../vocabulary.ts';
import type { Principal } from '../wire.ts';
import type { ResumeResult, SweepOptions, SweepResult } from './checkpoint-store.ts';
import type { Step } from './commit.ts';
import { copyInto } from './continuation-json.ts';
import { managersDue } from './escalation-people.ts';
import { SWEEP_PRINCIPAL } from './identity.ts';
import type { FormatRound } from './pause-reader.ts';
import type { CheckpointPersistence, StoredPause } from './persistence.ts';
import type { PauseRecord, RecordKey } from './record.ts';
import { awaitingHandoff, sweepStep } from './sweep-step.ts';
import { toPauseView } from './views.ts';

/**
 * The sweep's batch (§23): every due pause acted on by the service, a bounded number at once — each is one
 * conditional write of its own pause, so they need no order among them — and the batch's result in due order. Nothing
 * here decides or retries: each pause's own step (`sweep-step.ts`) and the commit loop do.
 */

/** A closing the sweep committed (or found undelivered): its continuation, and the record as written. */
export interface ClosedBySweep {
  closed: SweepResult['closed'][number];
  record: PauseRecord;
}

/** Runs `one` on every due key, `LIMITS.sweepParallel` at once; the result lists them in due order. */
export async function sweepEach(
  keys: readonly RecordKey[],
  one: (key: RecordKey, result: SweepResult) => Promise<void>,
): Promise<SweepResult> {
  const each = keys.map((): SweepResult => ({ reminded: [], expired: [], closed: [] }));
  await eachAtMost(keys, LIMITS.sweepParallel, (key, index) => one(key, each[index] as SweepResult));
  const escalated = each.flatMap((result) => result.escalated ?? []);
  return {
    reminded: each.flatMap((result) => result.reminded),
    expired: each.flatMap((result) => result.expired),
    closed: each.flatMap((result) => result.closed),
    ...(escalated.length === 0 ? {} : { escalated }),
  };
}

/** What the sweep of one pause runs on: the service's persistence, commit loop and closing rules. */
export interface SweepDeps {
  persistence: CheckpointPersistence;
  /** The service's one commit loop. */
  commit<S, T>(
    read: () => Promise<S>,
    change: (stored: S, nowMs: number, round: number) => Promise<Step<T>>,
    options?: { rounds?: number; onOverload?: 'throw' | 'give-up' },
  ): Promise<T>;
  /** The paused round of a stored pause, decoded. */
  round(stored: StoredPause): Promise<FormatRound>;
  /** `record` closed, its continuation named. */
  close(
    record: PauseRecord,
    round: FormatRound,
    outcome: Outcome,
    nowMs: number,
    by: Principal,
  ): { record: PauseRecord; result: ResumeResult };
  /** The continuation of a closed pause, rebuilt from its transcript. */
  closedResult(stored: StoredPause, replayed: boolean): Promise<ResumeResult>;
  /** Takes a delivered closing off the sweep's list. */
  acknowledge(read: () => Promise<{ record?: PauseRecord | undefined }>): Promise<void>;
  /** The directory of persons (§20), for `manager` levels (§21). */
  directory?: Directory | undefined;
}

/**
 * Acts on one due pause: its escalation levels, its reminder, its expiry, or the hand-off of a closing the sweep made
 * that was not yet delivered. Another sweeper or a person may act first; then nothing. A closing is delivered and
 * acknowledged from the record this sweep wrote: its write is conditional on that record, so a change since is read
 * again.
 */
export async function sweepOne(
  deps: SweepDeps,
  key: RecordKey,
  result: SweepResult,
  deliver: SweepOptions['deliver'],
): Promise<void> {
  const closing = await deps.commit(
    () => deps.persistence.read(key),
    async (read, nowMs): Promise<Step<ClosedBySweep | undefined>> => {
      const record = read?.record;
      // §21: a `manager` level's managers are read from the directory when it falls due (and only then).
      const step = sweepStep(record, nowMs, await managersDue(deps.directory, record, nowMs));
      if (step.do === 'nothing' || record === undefined) return { result: undefined };
      const write = (after: PauseRecord) => ({ before: record, after });
      switch (step.do) {
        case 'redeliver': {
          const stored = await deps.persistence.read(key, { token: record.token, hint: record.readHint });
          if (stored?.record.rev !== record.rev) return { write: write(step.after), result: undefined, quiet: true };
          const closed = copyInto({ tenant: record.tenant }, await deps.closedResult(stored, true));
          result.closed.push(closed);
          return { write: write(step.after), result: { closed, record: step.after }, quiet: true };
        }
        case 'reschedule':
          return { write: write(step.after), result: undefined, quiet: true };
        case 'escalate': {
          // One conditional write per level: a racer reads the level reached, so each is counted once.
          const tools = new Map(record.asks.map((ask) => [ask.toolCallId, ask.name]));
          const reached = step.escalated.map(({ toolCallId, level }) => ({
            tenant: record.tenant,
            toolCallId,
            tool: tools.get(toolCallId) ?? '',
            level,
          }));
          return {
            write: write(step.after),
            result: undefined,
            onWritten: () => {
              result.escalated = [...(result.escalated ?? []), ...reached];
            },
          };
        }
        case 'remind-level': // one write marks each level reminded: its `Pause Reminder`s, once
          return { write: write(step.after), result: undefined };
        case 'expire':
        case 'remind': {
          const list = step.do === 'expire' ? result.expired : result.reminded;
          return {
            write: write(step.after),
            result: undefined,
            onWritten: () => list.push(toPauseView(step.after, nowMs)),
          };
        }
        case 'close': {
          const stored = await deps.persistence.read(key, { token: record.token, hint: record.readHint });
          if (stored === undefined || stored.record.rev !== record.rev) return { retry: true };
          const next: PauseRecord = { ...record, rev: record.rev + 1 };
          const closed = deps.close(next, await deps.round(stored), 'expired', nowMs, SWEEP_PRINCIPAL);
          const written = awaitingHandoff(closed.record, nowMs);
          const shown = copyInto({ tenant: record.tenant }, closed.result);
          return {
            write: write(written),
            result: { closed: shown, record: written },
            onWritten: () => result.closed.push(shown),
          };
        }
      }
    },
    { onOverload: 'give-up' },
  );
  if (closing === undefined || deliver === undefined) return;
  try {
    await deliver(closing.closed);
  } catch {
    return; // Still due: a later sweep delivers it again.
  }
  let written: PauseRecord | undefined = closing.record;
  await deps.acknowledge(async () => {
    const record = written ?? (await deps.persistence.read(key))?.record;
    written = undefined;
    return { record };
  });
}

/**
 * Runs `work` on every item, at most `limit` at once, each item started as an earlier one ends. Resolves when every
 * item has settled; when any failed, it then rejects with the first failure (by item order), so no work is left
 * running unobserved behind a rejection.
 */
export async function eachAtMost<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  const failures: Array<{ index: number; error: unknown }> = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        await work(items[index] as T, index);
      } catch (error) {
        failures.push({ index, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failures.length > 0)
    throw failures.reduce((first, failure) => (failure.index < first.index ? failure : first)).error;
}
