import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  decodeRound,
  decodeTranscript,
  encodeTranscript,
  roundPosition,
  serializeTranscript,
  sha256,
} from '../functions/checkpoints/codec.ts';
import { PART_BYTES } from '../functions/checkpoints/dynamodb/parts.ts';
import { formatOf } from '../functions/rehydrate/formats/index.ts';
import { rebuildTranscript } from '../functions/rehydrate/rehydrate.ts';
import type { FormatName } from '../functions/vocabulary.ts';
import { type MillionResult, runMillion } from './group-million.ts';
import { importPeer } from './group-peers.ts';
import { quantile, type Stats, stats } from './measure.ts';
import type { GroupOptions } from './options.ts';
import {
  type ComputedCost,
  computeCost,
  itemSize,
  type RecordedCall,
  type StoreFixture,
  sizesRead,
  startStoreFixture,
  TABLE_NAME,
} from './store-harness.ts';
import { ANSWER, type BenchTranscript, transcriptOfBytes } from './transcripts.ts';

/**
 * Groups 2, 3 and 6 — everything that goes through the store on the embedded DynamoDB-compatible server:
 * - store: resume latency (p50, p99) for 1 KB – 10 MB transcripts against the floor of the raw calls that carry
 *   the same bytes (the Query for the pause's items, one conditional UpdateItem);
 * - cost: read and write units and requests per resume, bytes stored per pause, and the peers' stored bytes;
 * - scale: resume latency against the number of pauses in the table and of earlier pauses in the same run.
 */

export const STORE_SIZES = [
  { label: '1 KB', bytes: 1024 },
  { label: '100 KB', bytes: 100 * 1024 },
  { label: '1 MB', bytes: 1024 * 1024 },
  { label: '10 MB', bytes: 10 * 1024 * 1024 },
] as const;

const FORMAT: FormatName = 'openai-chat';

/** One transcript size: Handback's resume and the floor, timed in alternating order on twin pauses. */
export interface StoreRow {
  label: string;
  jsonBytes: number;
  messages: number;
  handback: Stats;
  floor: Stats;
  /** p50 and p99 ratios (Handback / floor), and the median of the paired per-sample ratios. */
  ratioP50: number;
  ratioP99: number;
  pairedRatio: number;
  /** Requests the floor made (Query pages + the write). */
  floorRequests: number;
  /** Where Handback's extra time goes: the CPU steps of a resume timed alone (medians, µs). */
  breakdown: Breakdown;
}

/** The CPU a resume does that the floor does not, step by step. */
export interface Breakdown {
  /**
   * What a resume decodes: sha256 of the compressed chunks, brotli decompression, and JSON.parse of the paused round
   * alone (`decodeRound`).
   */
  decodeUs: number;
  /** The same checks with JSON.parse of the whole transcript (`decodeTranscript`), as resumes did before. */
  decodeWholeUs: number;
  /** `rebuildTranscript` on the parsed round. */
  rebuildUs: number;
  /** The continuation's hash: sha256 of the rebuilt messages from the paused round on, as JSON. */
  continuationHashUs: number;
}

/** Times the CPU steps of a resume on `t` alone, outside the store. */
async function breakdown(t: BenchTranscript, runs: number): Promise<Breakdown> {
  const json = serializeTranscript(t.messages);
  const round = roundPosition(json, t.messages, formatOf(t.format).findRound(t.messages).start);
  const encoded = await encodeTranscript(json, round === undefined ? {} : { round });
  const time = async (fn: () => unknown) => {
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = process.hrtime.bigint();
      await fn();
      samples.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    return quantile(samples, 0.5);
  };
  const { round: parsed } = await decodeRound(encoded.header, encoded.bytes);
  const rebuilt = rebuildTranscript(formatOf(t.format), parsed, t.toolCallId, ANSWER);
  return {
    decodeUs: await time(() => decodeRound(encoded.header, encoded.bytes)),
    decodeWholeUs: await time(() => decodeTranscript(encoded.header, encoded.bytes)),
    rebuildUs: await time(() => rebuildTranscript(formatOf(t.format), parsed, t.toolCallId, ANSWER)),
    // As the service hashes a continuation: the rebuilt messages from the paused round on (here all of `parsed`).
    continuationHashUs: await time(() => sha256(JSON.stringify(rebuilt))),
  };
}

/** Times Handback's resume and the floor over `samples` twin pauses, alternating which goes first. */
async function timeResumes(
  fx: StoreFixture,
  t: BenchTranscript,
  samples: number,
): Promise<{ handback: number[]; floor: number[]; paired: number[]; floorRequests: number }> {
  const handback: number[] = [];
  const floor: number[] = [];
  const paired: number[] = [];
  let floorRequests = 0;
  for (let i = 0; i < samples; i++) {
    const a = await fx.pause(t);
    const b = await fx.pause(t);
    globalThis.gc?.();
    const timeHandback = async () => {
      const start = process.hrtime.bigint();
      await fx.resume(a);
      return Number(process.hrtime.bigint() - start) / 1000;
    };
    const timeFloor = async () => {
      const start = process.hrtime.bigint();
      floorRequests = await fx.floor(b);
      return Number(process.hrtime.bigint() - start) / 1000;
    };
    let h: number;
    let f: number;
    if (i % 2 === 0) {
      h = await timeHandback();
      f = await timeFloor();
    } else {
      f = await timeFloor();
      h = await timeHandback();
    }
    handback.push(h);
    floor.push(f);
    paired.push(h / f);
  }
  return { handback, floor, paired, floorRequests };
}

export async function runStore(options: GroupOptions): Promise<StoreRow[]> {
  const fx = await startStoreFixture();
  const rows: StoreRow[] = [];
  try {
    // Warm both paths (JIT, connections) before any size is timed.
    await timeResumes(fx, transcriptOfBytes(FORMAT, 1024), options.quick ? 5 : 20);
    for (const size of STORE_SIZES) {
      const samples = options.quick
        ? { '1 KB': 30, '100 KB': 15, '1 MB': 6, '10 MB': 2 }[size.label]
        : { '1 KB': 300, '100 KB': 150, '1 MB': 50, '10 MB': 12 }[size.label];
      const t = transcriptOfBytes(FORMAT, size.bytes);
      const timed = await timeResumes(fx, t, samples);
      const handback = stats(timed.handback);
      const floor = stats(timed.floor);
      rows.push({
        breakdown: await breakdown(t, Math.min(samples, 10)),
        label: size.label,
        jsonBytes: Buffer.byteLength(t.text),
        messages: t.messages.length,
        handback,
        floor,
        ratioP50: handback.medianUs / floor.medianUs,
        ratioP99: handback.p99Us / floor.p99Us,
        pairedRatio: quantile(timed.paired, 0.5),
        floorRequests: timed.floorRequests,
      });
      options.log(
        `store ${size.label.padEnd(6)} n=${samples}: handback p50 ${(handback.medianUs / 1000).toFixed(2)} ms p99 ${(handback.p99Us / 1000).toFixed(2)} ms; floor p50 ${(floor.medianUs / 1000).toFixed(2)} ms p99 ${(floor.p99Us / 1000).toFixed(2)} ms; ×${rows.at(-1)?.ratioP50.toFixed(2)} p50, ×${rows.at(-1)?.ratioP99.toFixed(2)} p99`,
      );
    }
  } finally {
    await fx.close();
  }
  return rows;
}

/** One transcript size: what a pause stores and what a resume costs. */
export interface CostRow {
  label: string;
  format: FormatName;
  jsonBytes: number;
  /** Items one pause writes and their total size by DynamoDB's rules (keys and attribute names included). */
  pauseItems: number;
  storedBytes: number;
  storedRatio: number;
  /** Write units the pause itself consumed (reported by the server). */
  pauseWriteUnits: number;
  resume: ComputedCost;
  /** The floor's requests for the same bytes. */
  floorRequests: number;
  /** Transactional calls the resume made (`TransactWriteItems`, `TransactGetItems`): none is the promise. */
  transactions: number;
}

export interface CostResult {
  /** Whether the embedded server reported consumed capacity (else the units are computed from item sizes). */
  capacityReported: boolean;
  rows: CostRow[];
  /** §23: one million decided pauses in dollars (absent from results measured before it). */
  million?: MillionResult;
  /** Each peer's stored bytes per pause for the same transcript sizes (langchain / openai-responses JSON). */
  peers: Array<{
    label: string;
    peer: string;
    format: FormatName;
    jsonBytes: number;
    storedBytes: number;
    handbackStoredBytes: number;
  }>;
  errors: string[];
}

async function measureCost(fx: StoreFixture, t: BenchTranscript, label: string): Promise<CostRow> {
  fx.recorder.askCapacity = true;
  fx.recorder.recording = true;
  fx.calls.length = 0;
  const p = await fx.pause(t);
  const pauseCalls: RecordedCall[] = fx.calls.splice(0);
  await fx.resume(p);
  const resumeCalls: RecordedCall[] = fx.calls.splice(0);
  const sizes = sizesRead(resumeCalls);
  const resume = computeCost(resumeCalls, (key) => sizes.get(key));
  const floorRequests = await fx.floor(p);
  fx.calls.length = 0;
  fx.recorder.recording = false;
  fx.recorder.askCapacity = false;
  const transactions = resumeCalls.filter((c) => c.command.startsWith('Transact')).length;
  const written = pauseCalls.filter((c) => c.command === 'PutItemCommand' || c.command === 'UpdateItemCommand');
  const storedBytes = written.reduce((s, c) => s + itemSize((c.input.Item ?? {}) as Record<string, unknown>), 0);
  const jsonBytes = Buffer.byteLength(t.text);
  return {
    label,
    format: t.format,
    jsonBytes,
    pauseItems: written.length,
    storedBytes,
    storedRatio: storedBytes / jsonBytes,
    pauseWriteUnits: computeCost(written, () => 0).writeUnits,
    resume,
    floorRequests,
    transactions,
  };
}

/**
 * The worst case of the one-read promise: a transcript near the 16 MB limit whose text does not compress (random
 * base64, 0.75× after brotli), so its parts hold about 12 MB. openai-chat, paused on the same round as the others.
 */
function incompressibleTranscript(bytes: number): BenchTranscript {
  const base = transcriptOfBytes(FORMAT, 1024);
  const filler: unknown[] = [];
  let seed = 1;
  const random = () => {
    // A small xorshift: the same bytes on every run, without pulling in a library.
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  for (let left = bytes - Buffer.byteLength(base.text); left > 1024; left -= 1_000_100) {
    const size = Math.min(left - 1024, 1_000_000);
    const raw = Buffer.alloc(Math.ceil((size * 3) / 4));
    for (let i = 0; i < raw.length; i += 4) raw.writeUInt32LE(random(), Math.min(i, raw.length - 4));
    filler.push(
      { role: 'user', content: raw.toString('base64').slice(0, size) },
      { role: 'assistant', content: 'Noted.' },
    );
  }
  const messages = [...filler, ...base.messages];
  return { ...base, messages, text: JSON.stringify(messages) };
}

interface TranscriptPeer {
  prepare(input: {
    messages: unknown[];
    callIds: [string, string, string];
    toolCallId: string;
    answer: unknown;
  }): Promise<{
    storedBytes: number;
  }>;
}

export async function runCost(options: GroupOptions): Promise<CostResult> {
  // §23: the dollars of one million decided pauses, with large transcripts in S3.
  const million = await runMillion(options);
  const fx = await startStoreFixture();
  const rows: CostRow[] = [];
  const peers: CostResult['peers'] = [];
  const errors: string[] = [];
  let capacityReported = false;
  try {
    const cases = [
      ...STORE_SIZES.map((size) => ({ label: size.label, make: () => transcriptOfBytes(FORMAT, size.bytes) })),
      { label: '16 MB, random', make: () => incompressibleTranscript(16 * 1024 * 1024 - 64 * 1024) },
    ];
    for (const size of cases) {
      const row = await measureCost(fx, size.make(), size.label);
      capacityReported ||= row.resume.reportedReadUnits !== undefined;
      rows.push(row);
      options.log(
        `cost ${size.label.padEnd(6)}: stored ${row.storedBytes} B in ${row.pauseItems} items (${row.storedRatio.toFixed(3)}× JSON); resume ${row.resume.readRequests} read (${row.resume.awsReadRequests} on AWS) / ${row.resume.writeRequests} write requests, ${row.resume.readUnits} RCU / ${row.resume.writeUnits} WCU computed, ${row.resume.reportedReadUnits ?? '–'} / ${row.resume.reportedWriteUnits ?? '–'} reported`,
      );
    }
    const lg = await importPeer<TranscriptPeer>('langgraph');
    const oa = await importPeer<TranscriptPeer>('openai-agents');
    const sizes = options.quick ? STORE_SIZES.slice(0, 3) : STORE_SIZES;
    for (const size of sizes) {
      for (const [peer, format, module] of [
        ['langgraph MemorySaver', 'langchain', lg],
        ['openai-agents RunState', 'openai-responses', oa],
      ] as const) {
        const t = transcriptOfBytes(format, size.bytes);
        try {
          const handback = await measureCost(fx, t, size.label);
          const prepared = await module.prepare({
            messages: t.messages,
            callIds: t.callIds,
            toolCallId: t.toolCallId,
            answer: ANSWER,
          });
          peers.push({
            label: size.label,
            peer,
            format,
            jsonBytes: Buffer.byteLength(t.text),
            storedBytes: prepared.storedBytes,
            handbackStoredBytes: handback.storedBytes,
          });
          options.log(
            `cost ${size.label} ${peer}: ${prepared.storedBytes} B stored (Handback ${handback.storedBytes} B)`,
          );
        } catch (error) {
          errors.push(`${peer} ${size.label}: ${(error as Error).message}`);
        }
      }
    }
  } finally {
    await fx.close();
  }
  return { capacityReported, rows, peers, errors, million };
}

/** Resume latency with `pausesInTable` pauses already stored. */
export interface ScaleRow {
  pausesInTable: number;
  handback: Stats;
  floor: Stats;
  ratioP50: number;
  /** Median of the per-sample Handback / floor ratios. */
  pairedRatio: number;
}

export interface ScaleResult {
  table: ScaleRow[];
  /** Resume latency after k earlier pauses of the same run, by bucket of k. */
  sameRun: Array<{ earlierPauses: string; handback: Stats; floor: Stats; pairedRatio: number }>;
  seedSeconds: number;
  /** The largest table reached, when the time budget stopped the seeding short of 100,000. */
  stoppedAt?: number;
}

/** `value` with every string's `from` replaced by `to`; bytes and other leaves kept as they are. */
function renamed(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.replaceAll(from, to);
  if (value instanceof Uint8Array || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => renamed(v, from, to));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renamed(v, from, to)]));
}

/** Copies a real pause's items (captured from one `pause`) under new run ids, 25 per BatchWriteItem, 4 in flight. */
async function seed(
  fx: StoreFixture,
  template: Array<Record<string, unknown>>,
  from: number,
  to: number,
): Promise<void> {
  const requests: Array<Array<{ PutRequest: { Item: Record<string, unknown> } }>> = [];
  let batch: Array<{ PutRequest: { Item: Record<string, unknown> } }> = [];
  for (let i = from; i < to; i++) {
    for (const item of template) {
      const copy = renamed(item, 'seed-template', `seed-${String(i).padStart(6, '0')}`) as Record<string, unknown>;
      batch.push({ PutRequest: { Item: copy } });
      if (batch.length === 25) {
        requests.push(batch);
        batch = [];
      }
    }
  }
  if (batch.length > 0) requests.push(batch);
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      let items: unknown[] | undefined = requests[next++];
      for (let attempt = 0; items !== undefined && items.length > 0 && attempt < 10; attempt++) {
        const out = await fx.doc.send(new BatchWriteCommand({ RequestItems: { [TABLE_NAME]: items as never } }));
        items = out.UnprocessedItems?.[TABLE_NAME];
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

export async function runScale(options: GroupOptions): Promise<ScaleResult> {
  const fx = await startStoreFixture();
  const t = transcriptOfBytes(FORMAT, 1024);
  const table: ScaleRow[] = [];
  const budgetMs = options.quick ? 15_000 : 120_000;
  const levels = [10, 100, 1_000, 10_000, 100_000];
  const samples = options.quick ? 15 : 60;
  let seeded = 0;
  let seedMs = 0;
  let stoppedAt: number | undefined;
  try {
    fx.recorder.recording = true;
    fx.calls.length = 0;
    await fx.pause(t, 'seed-template');
    const template = fx.calls
      .filter((c) => c.command === 'PutItemCommand')
      .map((c) => c.input.Item as Record<string, unknown>);
    fx.recorder.recording = false;
    fx.calls.length = 0;
    await timeResumes(fx, t, 10);
    for (const [i, level] of levels.entries()) {
      const started = Date.now();
      await seed(fx, template, seeded, level);
      seedMs += Date.now() - started;
      seeded = level;
      const timed = await timeResumes(fx, t, samples);
      const handback = stats(timed.handback);
      const floor = stats(timed.floor);
      table.push({
        pausesInTable: level,
        handback,
        floor,
        ratioP50: handback.medianUs / floor.medianUs,
        pairedRatio: quantile(timed.paired, 0.5),
      });
      options.log(
        `scale ${level} pauses in table (seeded in ${(seedMs / 1000).toFixed(1)} s): handback p50 ${(handback.medianUs / 1000).toFixed(2)} ms, floor ${(floor.medianUs / 1000).toFixed(2)} ms`,
      );
      // Stop before the next level's seeding, at the rate seen so far, would pass the budget.
      const next = levels[i + 1];
      if (next !== undefined && seedMs + ((next - level) * seedMs) / level > budgetMs) {
        stoppedAt = level;
        break;
      }
    }

    const sameRun: ScaleResult['sameRun'] = [];
    const buckets = options.quick ? [10, 50] : [10, 100, 500];
    const times = new Map<number, { handback: number[]; floor: number[]; paired: number[] }>();
    const runId = 'same-run';
    for (let k = 0; k < (buckets.at(-1) ?? 0); k++) {
      // The k-th pause of one run, and a twin in a fresh run for the floor, timed in alternating order.
      const a = await fx.pause(t, runId);
      const b = await fx.pause(t);
      const time = async (fn: () => Promise<unknown>) => {
        const start = process.hrtime.bigint();
        await fn();
        return Number(process.hrtime.bigint() - start) / 1000;
      };
      let h: number;
      let f: number;
      if (k % 2 === 0) {
        h = await time(() => fx.resume(a));
        f = await time(() => fx.floor(b));
      } else {
        f = await time(() => fx.floor(b));
        h = await time(() => fx.resume(a));
      }
      const bucket = buckets.find((n) => k < n) ?? 0;
      const entry = times.get(bucket) ?? { handback: [], floor: [], paired: [] };
      entry.handback.push(h);
      entry.floor.push(f);
      entry.paired.push(h / f);
      times.set(bucket, entry);
    }
    let previous = 0;
    for (const b of buckets) {
      const s = times.get(b);
      if (s) {
        sameRun.push({
          earlierPauses: previous === b - 1 ? String(previous) : `${previous}–${b - 1}`,
          handback: stats(s.handback),
          floor: stats(s.floor),
          pairedRatio: quantile(s.paired, 0.5),
        });
      }
      previous = b;
    }
    for (const row of sameRun) {
      options.log(
        `scale same run, ${row.earlierPauses} earlier pauses: p50 ${(row.handback.medianUs / 1000).toFixed(2)} ms, floor ${(row.floor.medianUs / 1000).toFixed(2)} ms, paired ×${row.pairedRatio.toFixed(2)}`,
      );
    }
    return { table, sameRun, seedSeconds: seedMs / 1000, ...(stoppedAt === undefined ? {} : { stoppedAt }) };
  } finally {
    await fx.close();
  }
}

/** The chunk size the store writes (for the report's explanation of item counts). */
export const STORE_CHUNK_BYTES = PART_BYTES;
