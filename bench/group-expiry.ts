import type { ResumeResult } from '../functions/checkpoints/checkpoint-store.ts';
import { startLocalService } from '../functions/local/service.ts';
import { quantile } from './measure.ts';
import type { GroupOptions } from './options.ts';
import { PRICES } from './prices.ts';
import { transcriptOfBytes } from './transcripts.ts';

/**
 * Group 7, expiry that acts (§10): how long after `expiresAt` a pause with `onExpiry: "reject"` is closed,
 * through the local service (`startLocalService`, as `npm start` runs it: its sweep every second), and what the AWS
 * mechanism costs per million pauses beside EventBridge Scheduler one-time schedules, from the public prices cited
 * in `PRICES` (the report prints them with their sources).
 *
 * Lag = the continuation's `resumedAt` (the closing's commit time) − the pause's `expiresAt`; the hand-off's
 * delivery time is recorded beside it. Pauses are made one after another, so their expiries fall all over the sweep's
 * second, as real expiries fall over the sweep's minute on AWS.
 */

/** What one run measured. */
export interface ExpiryResult {
  pauses: number;
  sweepEveryMs: number;
  /** Lag from `expiresAt` to the closing's commit (`resumedAt`), ms. */
  lag: { p50: number; p95: number; max: number; min: number };
  /** Lag from `expiresAt` to the hand-off's delivery, ms. */
  handoffLag: { p50: number; p95: number; max: number };
  /** Pauses not closed within the wait (should be none). */
  unclosed: number;
  /** A sweep with nothing due (16 index queries), and a sweep's work per pause it closes, ms, on the embedded store. */
  idleSweepMs: number;
  closeMsPerPause: number;
  cost: CostModel;
}

/** The prices, from the bench's one dated table (bench/prices.ts). */
export { PRICES };

/** The sweep's fixed work per tick and per-pause work, and what it costs against Scheduler one-time schedules. */
export interface CostModel {
  assumptions: string[];
  /** Per month, whatever the number of pauses. */
  sweepFixedPerMonth: Array<{ memoryMb: number; usd: number }>;
  /** Per million pauses: none expiring (all decided in time), and all expiring. */
  perMillion: Array<{ mechanism: string; memoryMb: number; noneExpire: number; allExpire: number }>;
}

const TICKS_PER_MONTH = 30 * 24 * 60;
const DUE_SHARDS = 16;

/** The cost model from the measured durations (ms) of an idle tick and of closing one pause. */
export function costModel(idleSweepMs: number, closeMsPerPause: number): CostModel {
  const p = PRICES;
  const gbs = (memoryMb: number, ms: number) => (memoryMb / 1024) * (ms / 1000);
  const lambda = (memoryMb: number, invocations: number, ms: number) =>
    (invocations * p.lambdaRequestPerMillion.usd) / 1e6 + invocations * gbs(memoryMb, ms) * p.lambdaArmPerGbSecond.usd;
  // An eventually consistent Query of the KEYS_ONLY index that finds nothing still reads 0.5 RRU; 16 shards a tick.
  const idleReadUnits = TICKS_PER_MONTH * DUE_SHARDS * 0.5;
  // Closing one due pause: its index entry (0.5), a GetItem of the pause (1), the read with its parts (1 + a part per
  // 256 KB of compressed transcript, ~1 for small ones), and one UpdateItem (2 WRU: the closed pause item passes 1 KB).
  const closeReads = 0.5 + 1 + 2;
  const closeWrites = 2;
  // Every pause writes its byDue index entry when made and removes it when closed: 1 WRU each (KEYS_ONLY, < 1 KB).
  const indexWrites = 2;
  const rows: CostModel['perMillion'] = [];
  const fixed: CostModel['sweepFixedPerMonth'] = [];
  for (const memoryMb of [128, 512, 1024]) {
    const fixedUsd =
      lambda(memoryMb, TICKS_PER_MONTH, idleSweepMs) + (idleReadUnits * p.dynamodbReadPerMillion.usd) / 1e6;
    fixed.push({ memoryMb, usd: fixedUsd });
    const perPauseIndex = (indexWrites * p.dynamodbWritePerMillion.usd) / 1e6;
    const perExpiry =
      gbs(memoryMb, closeMsPerPause) * p.lambdaArmPerGbSecond.usd +
      (closeReads * p.dynamodbReadPerMillion.usd) / 1e6 +
      (closeWrites * p.dynamodbWritePerMillion.usd) / 1e6;
    rows.push({
      mechanism: 'sweep (scheduled rule every minute)',
      memoryMb,
      noneExpire: 1e6 * perPauseIndex,
      allExpire: 1e6 * (perPauseIndex + perExpiry),
    });
    // Scheduler: a one-time schedule per pause (CreateSchedule at pause, DeleteSchedule when decided: API calls, not
    // charged), one invocation of the closing function per expiring pause ($1/M past the free tier; the free tier
    // taken as used by other schedules, the worst case), its Lambda request and duration, and the same reads and write.
    const schedulerPerExpiry =
      p.schedulerInvocationPerMillion.usd / 1e6 +
      lambda(memoryMb, 1, closeMsPerPause) +
      ((1 + 2) * p.dynamodbReadPerMillion.usd) / 1e6 +
      (closeWrites * p.dynamodbWritePerMillion.usd) / 1e6;
    rows.push({
      mechanism: 'EventBridge Scheduler one-time schedules',
      memoryMb,
      noneExpire: 0,
      allExpire: 1e6 * schedulerPerExpiry,
    });
  }
  return {
    assumptions: [
      `a month of ${TICKS_PER_MONTH} one-minute ticks; a tick with nothing due takes ${idleSweepMs.toFixed(0)} ms (measured here on the embedded store: ${DUE_SHARDS} index queries in parallel) and closing one pause ${closeMsPerPause.toFixed(0)} ms (measured here, hand-off included)`,
      `an empty index query reads 0.5 RRU (eventually consistent), ${DUE_SHARDS} a tick`,
      'every pause writes and later removes its byDue index entry (1 WRU each); closing one reads about 3.5 RRU and writes 2 WRU (the closed pause item passes 1 KB)',
      "Scheduler: CreateSchedule and DeleteSchedule per pause are not charged; its invocations are charged in full (its 14 M monthly free invocations are left out, as another workload's)",
    ],
    sweepFixedPerMonth: fixed,
    perMillion: rows,
  };
}

/** A pause body that expires in one second and closes itself with rejections. */
function pauseBody() {
  const t = transcriptOfBytes('openai-chat', 1024);
  return { format: t.format, messages: t.messages, toolCallId: t.toolCallId, expiresInSeconds: 1, onExpiry: 'reject' };
}

export async function runExpiry(options: GroupOptions): Promise<ExpiryResult> {
  const pauses = options.quick ? 10 : 50;
  const closed = new Map<string, { resumedAt: string; deliveredAt: number }>();
  const sweepEveryMs = 1000;
  const service = await startLocalService(
    {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'ERROR',
      HANDOFF_TARGET: 'none',
      HANDBACK_SWEEP_INTERVAL_MS: String(sweepEveryMs),
    },
    {
      handoff: {
        async deliver(result: ResumeResult) {
          closed.set(result.interruptId, { resumedAt: result.resumedAt, deliveredAt: Date.now() });
        },
      },
    },
  );
  const expiresAt = new Map<string, number>();
  try {
    const body = JSON.stringify(pauseBody());
    for (let i = 0; i < pauses; i++) {
      const response = await fetch(`${service.url}/runs/expiry-${process.pid}-${i}/pauses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const created = (await response.json()) as { interruptId: string; expiresAt: string };
      if (response.status !== 201) throw new Error(`pause ${i}: ${response.status} ${JSON.stringify(created)}`);
      expiresAt.set(created.interruptId, Date.parse(created.expiresAt));
      // Spread the expiries over the sweep's period, as independent agents' pauses would be.
      await new Promise((resolve) => setTimeout(resolve, sweepEveryMs / pauses));
    }
    const deadline = Date.now() + 30_000;
    while (closed.size < pauses && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await service.close();
  }
  const lags: number[] = [];
  const handoffLags: number[] = [];
  for (const [id, at] of expiresAt) {
    const done = closed.get(id);
    if (done === undefined) continue;
    lags.push(Date.parse(done.resumedAt) - at);
    handoffLags.push(done.deliveredAt - at);
  }
  const { idleSweepMs, closeMsPerPause } = await sweepDurations(options);
  const result: ExpiryResult = {
    pauses,
    sweepEveryMs,
    lag: {
      p50: quantile(lags, 0.5),
      p95: quantile(lags, 0.95),
      max: Math.max(...lags),
      min: Math.min(...lags),
    },
    handoffLag: { p50: quantile(handoffLags, 0.5), p95: quantile(handoffLags, 0.95), max: Math.max(...handoffLags) },
    unclosed: pauses - lags.length,
    idleSweepMs,
    closeMsPerPause,
    cost: costModel(idleSweepMs, closeMsPerPause),
  };
  options.log(
    `expiry: ${lags.length}/${pauses} closed; lag p50 ${result.lag.p50.toFixed(0)} ms, p95 ${result.lag.p95.toFixed(0)} ms, max ${result.lag.max.toFixed(0)} ms; idle sweep ${idleSweepMs.toFixed(1)} ms, ${closeMsPerPause.toFixed(1)} ms a closing`,
  );
  return result;
}

/** The sweep timed on its own, on the embedded store: with nothing due, and closing a batch of due pauses. */
async function sweepDurations(options: GroupOptions): Promise<{ idleSweepMs: number; closeMsPerPause: number }> {
  const { startLocalStore } = await import('../functions/local/public.ts');
  const { createDynamoDBCheckpointStore } = await import('../functions/checkpoints/dynamodb-store.ts');
  const { sweepDue } = await import('../functions/resume/resume.ts');
  const local = await startLocalStore();
  try {
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    const store = createDynamoDBCheckpointStore({
      client: local.client,
      tableName: local.tableName,
      clock: () => new Date(now),
    });
    const silent = { info() {}, warn() {}, error() {} };
    const deps = {
      store,
      handoff: { async deliver() {} },
      logger: silent as never,
      metrics: { addMetric() {} } as never,
    };
    const idle: number[] = [];
    for (let i = 0; i < (options.quick ? 5 : 21); i++) {
      const started = performance.now();
      await sweepDue(deps);
      idle.push(performance.now() - started);
    }
    const batch = options.quick ? 10 : 50;
    const t = transcriptOfBytes('openai-chat', 1024);
    for (let i = 0; i < batch; i++) {
      await store.pause({
        tenant: 'bench',
        runId: `sweep-${i}`,
        format: t.format,
        messages: t.messages,
        toolCallId: t.toolCallId,
        expiresInSeconds: 1,
        onExpiry: 'reject',
      });
    }
    now += 2000;
    const started = performance.now();
    const swept = await sweepDue(deps, { limit: batch });
    const elapsed = performance.now() - started;
    const idleMs = quantile(idle, 0.5);
    return { idleSweepMs: idleMs, closeMsPerPause: (elapsed - idleMs) / Math.max(1, swept.closed.length) };
  } finally {
    await local.close();
  }
}
