import { CheckpointService } from '../functions/checkpoints/checkpoint-service.ts';
import { ALL_CHECKS } from '../functions/checkpoints/checks.ts';
import { escalatedBetween, levelRemindersBetween } from '../functions/checkpoints/escalation.ts';
import { MemoryPersistence } from '../functions/checkpoints/memory.ts';
import type { CheckpointPersistence } from '../functions/checkpoints/persistence.ts';
import { eachAtMost } from '../functions/checkpoints/sweep-batch.ts';
import { parseLadder } from '../functions/policies/ladder.ts';
import { approvalTranscript } from '../functions/testing/service-spec.ts';
import { LIMITS } from '../functions/vocabulary.ts';
import type { GroupOptions } from './options.ts';

/**
 * The sweep's cost with open asks on escalation ladders (§21): `asks` pauses of one approval ask each, on the ladder
 * `LADDER` and expiring after 10 minutes, swept once a minute (the stack's schedule) from their creation to their
 * expiry. What a tick costs is counted at the persistence port, which every backend implements: due-index reads,
 * record reads and conditional writes. Deterministic (no wall time): the same on dynalite and DynamoDB, where each is
 * one request (a record read is a `GetItem`, a write an `UpdateItem`/`PutItem`, the due read a `Query` page).
 */

/** Two levels and the expiry: each ask escalates twice, is reminded twice (halfway), then expires. */
export const LADDER = 'PT2M group:leads; PT6M email:cfo@example.com';

/** One tick: minutes from the pauses' creation, and what it cost. */
export interface LadderTick {
  minute: number;
  /** Due-index pages read (`due`). */
  dueReads: number;
  recordReads: number;
  writes: number;
  /** Levels reached (one `Escalations` each), level reminders sent, pauses closed at expiry. */
  escalated: number;
  reminded: number;
  closed: number;
}

/** The run. */
export interface LadderRun {
  asks: number;
  ladder: string;
  ticks: LadderTick[];
  /** `GET /stats` over the window of these pauses once they have expired: listing pages read, and milliseconds. */
  stats?: { pauses: number; listPages: number; ms: number; expired: number };
}

/** Counts the port's calls that are requests to the store. */
function counting(inner: CheckpointPersistence) {
  const counts = { due: 0, read: 0, write: 0, list: 0 };
  const persistence: CheckpointPersistence = {
    readHint: (bytes) => inner.readHint(bytes),
    latest: (tenant, runId) => inner.latest(tenant, runId),
    create: (record, transcript) => inner.create(record, transcript),
    read: (key, transcript) => {
      counts.read++;
      return inner.read(key, transcript);
    },
    update: (before, after) => {
      counts.write++;
      return inner.update(before, after);
    },
    list: (query) => {
      counts.list++;
      return inner.list(query);
    },
    due: (nowMs, limit) => {
      counts.due++;
      return inner.due(nowMs, limit);
    },
  } as CheckpointPersistence;
  return { persistence: Object.setPrototypeOf(persistence, inner) as CheckpointPersistence, counts };
}

/** Seeds `asks` laddered pauses at `T0`, then sweeps at each minute to the expiry, counting each tick. */
export async function ladderRun(asks: number, log: (line: string) => void): Promise<LadderRun> {
  const T0 = Date.parse('2026-06-01T00:00:00.000Z');
  const now = { ms: T0 };
  const { persistence, counts } = counting(new MemoryPersistence());
  const events = { escalated: 0, reminded: 0 };
  const store = new CheckpointService({
    persistence,
    checks: ALL_CHECKS,
    clock: () => new Date(now.ms),
    escalation: parseLadder(LADDER),
    onChange: ({ before, after }) => {
      events.escalated += escalatedBetween(before, after).length;
      events.reminded += levelRemindersBetween(before, after).length;
    },
  });
  await eachAtMost(
    Array.from({ length: asks }, (_, i) => i),
    16,
    async (i) => {
      await store.pause({
        tenant: 'bench',
        runId: `ladder-${i}`,
        format: 'openai-chat',
        messages: approvalTranscript(),
        asks: [{ toolCallId: 'call_ask', kind: 'approval', approvers: { subjects: ['ann'] } }],
        expiresInSeconds: 600,
        onExpiry: 'reject',
      });
    },
  );
  const ticks: LadderTick[] = [];
  for (let minute = 1; minute <= 11; minute++) {
    now.ms = T0 + minute * 60_000;
    const before = { ...counts, ...events };
    let closed = 0;
    // A tick runs batches until a batch writes nothing, as the sweep function does within its minute.
    for (;;) {
      const writes = counts.write;
      const result = await store.closeDue({ limit: LIMITS.sweepBatch, deliver: async () => {} });
      closed += result.closed.length;
      if (counts.write === writes) break;
    }
    const tick: LadderTick = {
      minute,
      dueReads: counts.due - before.due,
      recordReads: counts.read - before.read,
      writes: counts.write - before.write,
      escalated: events.escalated - before.escalated,
      reminded: events.reminded - before.reminded,
      closed,
    };
    ticks.push(tick);
    log(`sweep ladders: minute ${minute}: ${JSON.stringify(tick)}`);
  }
  // §21's `GET /stats` over the window that holds every one of them: exact, read whole.
  const lists = counts.list;
  const started = performance.now();
  const read = await store.stats({
    tenant: 'bench',
    since: new Date(T0 - 60_000).toISOString(),
    until: new Date(T0 + 60_000).toISOString(),
  });
  const ms = performance.now() - started;
  const expired = read.tools.reduce((sum, tool) => sum + tool.outcomes.expired, 0);
  const stats = { pauses: asks, listPages: counts.list - lists, ms, expired };
  log(`stats: ${JSON.stringify(stats)}`);
  return { asks, ladder: LADDER, ticks, stats };
}

/** The group (`npm run bench -- ladders`): 10,000 open asks on ladders (1,000 with `--quick`). */
export function runLadders(options: GroupOptions): Promise<LadderRun> {
  return ladderRun(options.quick ? 1_000 : 10_000, options.log);
}
