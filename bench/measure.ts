import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/**
 * The timing harness: contestants run interleaved, round by round, in a rotating order, so machine drift (other
 * processes, thermal, GC of a neighbour) hits all of them alike; a ratio is taken within each round against the
 * floor of that round, and the median of those paired ratios is reported beside the medians of the times.
 */

/**
 * One thing to time: `run` does one operation (sync or async). A contestant whose operation consumes its state (a
 * resume answers its pause once) gives `prepare` instead: it is awaited untimed before every timed run and returns
 * that run; such a contestant runs one operation per batch.
 */
export interface Contestant {
  name: string;
  run?: () => unknown;
  prepare?: () => Promise<() => unknown>;
  /** The contestant its paired ratio is taken against; default: the comparison's floor. */
  floor?: string;
}

/** Summary statistics of per-operation times, in microseconds. */
export interface Stats {
  samples: number;
  medianUs: number;
  p99Us: number;
  minUs: number;
}

/** The result of one interleaved comparison. */
export interface Comparison {
  stats: Record<string, Stats>;
  /** Median over rounds of (contestant time / floor time in the same round). */
  ratios: Record<string, number>;
}

/** The q-quantile (0–1) of `values`, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Median, p99 and min of microsecond samples. */
export function stats(samplesUs: readonly number[]): Stats {
  return {
    samples: samplesUs.length,
    medianUs: quantile(samplesUs, 0.5),
    p99Us: quantile(samplesUs, 0.99),
    minUs: Math.min(...samplesUs),
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** Keeps results alive so V8 cannot drop the work that made them. */
let sink: unknown;

/**
 * What a run may return to report its own time: a peer whose harness adds a fixed wait after the work is done (the
 * durable SDK's local runner) times the work itself.
 */
export interface SelfTimed {
  measuredUs: number;
}

function isSelfTimed(value: unknown): value is SelfTimed {
  return typeof (value as SelfTimed | null)?.measuredUs === 'number';
}

/** Times `batch` runs of `run`; returns microseconds per run. */
async function timeBatch(run: () => unknown, batch: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) {
    const out = run();
    sink = isThenable(out) ? await out : out;
  }
  const elapsed = Number(process.hrtime.bigint() - start) / 1000 / batch;
  return batch === 1 && isSelfTimed(sink) ? sink.measuredUs : elapsed;
}

/**
 * Compares `contestants` against `floor` (one of them, by name): `warmup` rounds first, untimed, then `rounds`
 * rounds in which each contestant runs one batch, the order rotating every round. The batch size is chosen per
 * contestant so that a batch takes about `batchMs` (at least one run).
 */
export async function compare(
  contestants: readonly Contestant[],
  floor: string,
  options: { rounds: number; warmup?: number; batchMs?: number },
): Promise<Comparison> {
  const batchMs = options.batchMs ?? 2;
  const batches = new Map<string, number>();
  for (const c of contestants) {
    if (c.run === undefined) {
      batches.set(c.name, 1);
      continue;
    }
    const once = await timeBatch(c.run, 1);
    const again = await timeBatch(c.run, 1);
    const us = Math.max(1, Math.min(once, again));
    batches.set(c.name, Math.max(1, Math.round((batchMs * 1000) / us)));
  }
  const samples = new Map<string, number[]>(contestants.map((c) => [c.name, []]));
  const ratios = new Map<string, number[]>(contestants.map((c) => [c.name, []]));
  const warmup = options.warmup ?? 3;
  for (let round = 0; round < warmup + options.rounds; round++) {
    const thisRound = new Map<string, number>();
    for (let k = 0; k < contestants.length; k++) {
      const c = contestants[(round + k) % contestants.length] as Contestant;
      const run = c.prepare ? await c.prepare() : (c.run as () => unknown);
      thisRound.set(c.name, await timeBatch(run, batches.get(c.name) ?? 1));
    }
    if (round < warmup) continue;
    for (const c of contestants) {
      const us = thisRound.get(c.name) ?? Number.NaN;
      samples.get(c.name)?.push(us);
      ratios.get(c.name)?.push(us / (thisRound.get(c.floor ?? floor) ?? Number.NaN));
    }
  }
  return {
    stats: Object.fromEntries([...samples].map(([name, s]) => [name, stats(s)])),
    ratios: Object.fromEntries([...ratios].map(([name, r]) => [name, quantile(r, 0.5)])),
  };
}

/** What the report says about the machine. */
export interface Machine {
  node: string;
  nproc: number;
  cpu: string;
  loadavg: string;
  date: string;
}

/** `node -v`, `nproc`, the CPU model from /proc/cpuinfo, the load average, the date. */
export function machine(): Machine {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) cpu = line.split(':')[1]?.trim() ?? cpu;
  } catch {
    // not Linux: keep os.cpus()
  }
  let nproc = cpus().length;
  try {
    nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    // keep os.cpus()
  }
  return {
    node: process.version,
    nproc,
    cpu,
    loadavg: readLoad(),
    date: new Date().toISOString(),
  };
}

function readLoad(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}
