import { readdirSync, readFileSync } from 'node:fs';
import type { Context } from 'aws-lambda';
import type { ResumeResult } from '../functions/checkpoints/checkpoint-store.ts';
import { createDynamoDBCheckpointStore } from '../functions/checkpoints/dynamodb-store.ts';
import { eachAtMost } from '../functions/checkpoints/sweep-batch.ts';
import { EmfMetrics, JsonLogger } from '../functions/handlers/telemetry.ts';
import { createSweepHandler, SWEEP_RESERVE_MS } from '../functions/handlers/triggers.ts';
import type { Handoff } from '../functions/handoff/handoff.ts';
import { approvalTranscript } from '../functions/testing/service-spec.ts';
import { LIMITS } from '../functions/vocabulary.ts';
import type { GroupOptions } from './options.ts';
import { startStoreFixture, TABLE_NAME, TENANT } from './store-harness.ts';

/**
 * The sweep (§23): how many expired `onExpiry: "reject"` pauses the sweep function closes in one tick, on the embedded
 * store (dynalite, in a process of its own), run as the stack runs it — `createSweepHandler`, ticks every minute, each
 * with the function's timeout and its reserve — until every pause is closed and handed off. The hand-off is a stand-in
 * that takes `HANDOFF_MS` per pointer (an SQS `SendMessage` in the region) and records each one. Run twice: with the
 * sweep's bounded parallelism (`LIMITS.sweepParallel`), and one pause at a time (parallelism 1, as the sweep was
 * before §23) on fewer pauses, for the per-pause rate. Each pause must be closed and handed off exactly once.
 */

/** The sweep's schedule and its function's timeout (`SWEEP_EVERY`, infra/sweep-schedule.ts): a minute. */
const TICK_MS = 60_000;

/** Milliseconds the hand-off stand-in takes per pointer: an SQS `SendMessage` from a function in the same region. */
export const HANDOFF_MS = 10;

/** One tick as the bench ran it. */
export interface SweepTick {
  /** Seconds from the first tick's start to this one's. */
  startS: number;
  seconds: number;
  closed: number;
}

/** One run: the pauses, the parallelism, and what the ticks did. */
export interface SweepRun {
  pauses: number;
  parallel: number;
  /** Seconds spent making the pauses (`store.pause`, 16 at a time): not part of the sweep. */
  seedSeconds: number;
  ticks: SweepTick[];
  /** Seconds from the first tick's start until the last pause was closed and handed off. */
  seconds: number;
  /** Pauses closed per second of sweeping. */
  perSecond: number;
  /** Pauses one tick can close at that rate, in the time a tick works (the timeout less the reserve). */
  perTick: number;
  /** Whether every pause was closed once and handed off once. */
  exactlyOnce: boolean;
  /** Hand-offs delivered (one per pause when exactly once). */
  handoffs: number;
  /**
   * CPU seconds the sweeping took, in this process (the sweep function's code and its SDK) and in the store's: on a
   * shared machine the wall time is the load's, these are the sweep's own.
   */
  cpuSeconds: { sweep: number; store: number };
}

export interface SweepResult {
  handoffMs: number;
  batch: number;
  tickSeconds: number;
  reserveSeconds: number;
  /** Seconds after `expiresAt` within which the sweep must close a pause (§10). */
  boundSeconds: number;
  runs: SweepRun[];
  load: { before: number[]; after: number[] };
}

function loadAverage(): number[] {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  } catch {
    return [];
  }
}

/** CPU seconds (user + system) this process's embedded store has used, from /proc; 0 where there is none. */
function storeCpuSeconds(): number {
  let ticks = 0;
  try {
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // The fields after the command's closing parenthesis: state, ppid, …, utime (14th), stime (15th).
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(fields[1]) !== process.pid) continue;
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dynalite-server')) continue;
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // The process ended meanwhile.
      }
    }
  } catch {
    return 0;
  }
  return ticks / 100;
}

const silent = () => ({
  logger: new JsonLogger({ serviceName: 'handback-bench', logLevel: 'SILENT' }),
  metrics: new EmfMetrics({ namespace: 'HandbackBench', serviceName: 'handback-bench', disabled: true }),
});

/** Seeds `pauses` pauses expiring 60 s after `startMs`, then sweeps them at `startMs` + 61 s, tick by tick. */
async function sweepRun(pauses: number, parallel: number, log: (line: string) => void): Promise<SweepRun> {
  const fixture = await startStoreFixture();
  const startMs = Date.parse('2026-06-01T00:00:00.000Z');
  const limits = LIMITS as { sweepParallel: number };
  const configured = limits.sweepParallel;
  try {
    const seeder = createDynamoDBCheckpointStore({
      client: fixture.doc,
      tableName: TABLE_NAME,
      clock: () => new Date(startMs),
    });
    const seeding = Date.now();
    const runs = Array.from({ length: pauses }, (_, i) => `sweep-${i}`);
    const made = new Map<string, string>();
    await eachAtMost(runs, 16, async (runId) => {
      const { interruptId } = await seeder.pause({
        tenant: TENANT,
        runId,
        format: 'openai-chat',
        messages: approvalTranscript(),
        toolCallId: 'call_ask',
        expiresInSeconds: 60,
        onExpiry: 'reject',
      });
      made.set(runId, interruptId);
    });
    const seedSeconds = (Date.now() - seeding) / 1000;
    log(`sweep: ${pauses} pauses made in ${seedSeconds.toFixed(1)} s`);

    const delivered = new Map<string, number>();
    const handoff: Handoff = {
      async deliver(result: ResumeResult) {
        await new Promise((resolve) => setTimeout(resolve, HANDOFF_MS));
        const key = `${result.runId}/${result.interruptId}`;
        delivered.set(key, (delivered.get(key) ?? 0) + 1);
      },
    };
    const store = createDynamoDBCheckpointStore({
      client: fixture.doc,
      tableName: TABLE_NAME,
      clock: () => new Date(startMs + 61_000),
    });
    limits.sweepParallel = parallel;
    const handler = createSweepHandler({ store, handoff, ...silent() });
    const tickMs = TICK_MS;
    const ticks: SweepTick[] = [];
    const cpuBefore = process.cpuUsage();
    const storeBefore = storeCpuSeconds();
    const first = Date.now();
    let last = first;
    for (let tick = 0; delivered.size < pauses && tick < 20; tick++) {
      const at = first + tick * tickMs;
      if (Date.now() < at) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
      const started = Date.now();
      const deadline = started + tickMs;
      const context = { getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
      const before = delivered.size;
      await handler({}, context);
      last = Date.now();
      ticks.push({
        startS: (started - first) / 1000,
        seconds: (last - started) / 1000,
        closed: delivered.size - before,
      });
      log(`sweep: tick ${tick + 1} closed ${delivered.size - before} in ${((last - started) / 1000).toFixed(1)} s`);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const cpuSeconds = { sweep: (cpu.user + cpu.system) / 1e6, store: storeCpuSeconds() - storeBefore };
    const seconds = (last - first) / 1000;
    const working = ticks.reduce((sum, tick) => sum + tick.seconds, 0);
    const perSecond = delivered.size / working;
    // Every pause reads back expired, and was handed off once.
    let expired = 0;
    await eachAtMost(runs, 16, async (runId) => {
      const view = await store.getPause({ tenant: TENANT, runId, interruptId: made.get(runId) as string });
      if (view.outcome === 'expired' && delivered.get(`${runId}/${view.interruptId}`) === 1) expired++;
    });
    const exactlyOnce = delivered.size === pauses && expired === pauses;
    return {
      pauses,
      parallel,
      seedSeconds,
      ticks,
      seconds,
      perSecond,
      perTick: Math.floor((perSecond * (tickMs - SWEEP_RESERVE_MS)) / 1000),
      exactlyOnce,
      handoffs: [...delivered.values()].reduce((sum, count) => sum + count, 0),
      cpuSeconds,
    };
  } finally {
    limits.sweepParallel = configured;
    await fixture.close();
  }
}

export async function runSweep(options: GroupOptions): Promise<SweepResult> {
  const before = loadAverage();
  const parallelPauses = options.quick ? 1_000 : 10_000;
  const serialPauses = options.quick ? 200 : 1_000;
  const runs = [
    await sweepRun(parallelPauses, LIMITS.sweepParallel, options.log),
    await sweepRun(serialPauses, 1, options.log),
  ];
  for (const run of runs) {
    options.log(
      `sweep: ${run.pauses} pauses, ${run.parallel} at a time: ${run.seconds.toFixed(1)} s in ${run.ticks.length} tick(s), ${run.perSecond.toFixed(0)} a second (${run.perTick} a tick), exactly once: ${run.exactlyOnce}, CPU ${run.cpuSeconds.sweep.toFixed(1)} s + store ${run.cpuSeconds.store.toFixed(1)} s`,
    );
  }
  return {
    handoffMs: HANDOFF_MS,
    batch: LIMITS.sweepBatch,
    tickSeconds: TICK_MS / 1000,
    reserveSeconds: SWEEP_RESERVE_MS / 1000,
    boundSeconds: LIMITS.sweepBoundSeconds,
    runs,
    load: { before, after: loadAverage() },
  };
}
