import { LIMITS } from '../vocabulary.ts';
import type { PendingCensus, PendingCount } from './checkpoint-store.ts';
import type { CheckpointPersistence } from './persistence.ts';
import type { RecordKey } from './record.ts';
import { askStates } from './settled-asks.ts';

/**
 * The deployment's waiting asks, counted (§21: the sweep's `PendingAsks` and `OldestPendingSeconds`): every open
 * pause, of every tenant, is in the sweep's due index until it closes, so the census reads that index whole (keys
 * only) and each pause it names, and counts the asks still waiting per tool.
 */

/** Reads at once while counting. */
const CONCURRENCY = 16;

/** Counts the asks waiting at `nowMs` in the pauses of the due index, reading at most `limit` pauses. */
export async function pendingCensus(
  persistence: CheckpointPersistence,
  nowMs: number,
  limit: number = LIMITS.pendingCensusPauses,
): Promise<PendingCensus> {
  // Every open pause is due at its expiry at the latest: all of them are due before the end of time.
  const keys = await persistence.due(Number.MAX_SAFE_INTEGER, limit + 1);
  const census: PendingCensus = { asks: 0, tools: new Map(), pauses: 0, complete: keys.length <= limit };
  const count = (into: PendingCount, sinceMs: number) => {
    into.asks++;
    into.oldestSinceMs = Math.min(into.oldestSinceMs ?? sinceMs, sinceMs);
  };
  const read = async (key: RecordKey) => {
    const stored = await persistence.read(key);
    if (stored === undefined) return;
    const waiting = askStates(stored.record, nowMs).filter((ask) => ask.state === 'waiting');
    if (waiting.length > 0) census.pauses++;
    for (const ask of waiting) {
      count(census, ask.sinceMs);
      let tool = census.tools.get(ask.tool);
      if (tool === undefined) {
        tool = { asks: 0 };
        census.tools.set(ask.tool, tool);
      }
      count(tool, ask.sinceMs);
    }
  };
  const queue = keys.slice(0, limit);
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
      for (let key = queue.pop(); key !== undefined; key = queue.pop()) await read(key);
    }),
  );
  return census;
}
