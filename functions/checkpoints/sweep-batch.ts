import { LIMITS } from '../vocabulary.ts';
import type { SweepResult } from './checkpoint-store.ts';
import type { PauseRecord, RecordKey } from './record.ts';

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
  return {
    reminded: each.flatMap((result) => result.reminded),
    expired: each.flatMap((result) => result.expired),
    closed: each.flatMap((result) => result.closed),
  };
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
