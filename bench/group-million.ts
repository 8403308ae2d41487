import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_CODEC, encodeTranscript } from '../functions/checkpoints/codec.ts';
import { archiveTranscript } from '../functions/checkpoints/dynamodb/archive.ts';
import { Keys } from '../functions/checkpoints/dynamodb/keys.ts';
import { ARCHIVE_TRANSCRIPT_BYTES, INLINE_TRANSCRIPT_BYTES } from '../functions/checkpoints/dynamodb/parts.ts';
import { parseId } from '../functions/checkpoints/ids.ts';
import { S3TranscriptObjects, s3ClientConfig } from '../functions/checkpoints/s3/s3-objects.ts';
import type { TranscriptObjects } from '../functions/checkpoints/transcript-objects.ts';
import { startEmbeddedS3 } from '../functions/local/embedded-s3.ts';
import { tableClass as TABLE_CLASS } from '../functions/settings.ts';
import type { FormatName } from '../functions/vocabulary.ts';
import { type KeysWriteUnits, writeUnitsOf } from './group-keys.ts';
import type { GroupOptions } from './options.ts';
import { PRICES, PRICES_READ } from './prices.ts';
import {
  computeCost,
  itemSize,
  type RecordedCall,
  type StoreFixture,
  sizesRead,
  startStoreFixture,
  TABLE_NAME,
  TENANT,
} from './store-harness.ts';
import { transcriptOfBytes } from './transcripts.ts';

/**
 * The cost of one million decided pauses (§23), part of group 3 (`npm run bench -- cost`): pause → approve →
 * resume (the continuation read back) for 10 KB, 100 KB and 1 MB transcripts, through the store on the embedded
 * DynamoDB-compatible server with large transcripts in the embedded S3 server (s3rver), as the Lambda functions run
 * it, and the lifecycle stream's move of the closed transcript to the bucket (`archiveTranscript`) where it
 * makes one. Counted from what the code sends: the capacity the server reports (`ReturnConsumedCapacity: TOTAL`) beside the
 * units computed from the items, index entries included; S3 requests and bytes; the store's time per step, taken as
 * each Lambda invocation's billed duration at the functions' 512 MB; the invocations, HTTP API requests, stream
 * records and lifecycle events, hand-off messages the flow makes on AWS. Priced from `PRICES` (bench/prices.ts),
 * with storage for 365 days of retention (the table, point-in-time recovery on the same bytes, the bucket).
 */

/** Days a decided pause's items and object are kept (the stack's default `handback:retentionDays`) and paid for. */
const RETENTION_DAYS = 365;
const MEMORY_GB = 512 / 1024;
/** Days a durable execution's history is kept after it closes: Lambda's default (it keeps at most 90, never 365). */
const DURABLE_RETENTION_DAYS = 14;
const MILLION = 1e6;

/** A table class of `handback:tableClass`. */
export type TableClass = (typeof TABLE_CLASS.values)[number];

/** The dollars of one million decided pauses, by part, and the total. */
export type MillionUsd = Record<
  'dynamodbRequests' | 'dynamodbStorage' | 's3' | 'lambda' | 'httpApi' | 'events' | 'sqs',
  number
> & { total: number };

/** One transcript size's counts per decided pause, and its cost per million. */
export interface MillionRow {
  label: string;
  jsonBytes: number;
  /** The transcript compressed as the store compresses it (`DEFAULT_CODEC`). */
  compressedBytes?: number;
  /**
   * Where the transcript went: `table` (parts, kept), `s3` (one object from the pause on), or `moved` (parts while
   * open, moved to one object when the pause closed).
   */
  placement: 'table' | 's3' | 'moved';
  dynamodb: {
    readUnitsReported: number | undefined;
    writeUnitsReported: number | undefined;
    readUnits: number;
    /** Table and index write units, computed from the items written. */
    writeUnits: number;
    storedBytes: number;
  };
  s3: { puts: number; gets: number; bytesPut: number; bytesGot: number };
  /**
   * The store's time per step (pause, approve and resume, continuation read, the stream's move), ms, median of the
   * samples.
   */
  durationsMs: { pause: number; resume: number; continuation: number; archive: number };
  lambdaInvocations: number;
  httpRequests: number;
  events: number;
  handoffMessages: number;
  /** Dollars per million decided pauses, by part, and the total, on the stack's default table class. */
  usd: MillionUsd;
  /** The same on each table class. */
  byClass?: Record<TableClass, MillionUsd>;
  /** The same million waits on Step Functions Standard and on Lambda durable functions (their list prices alone). */
  peersUsd: { stepFunctionsStandard: number; lambdaDurable: number };
}

/**
 * How far the inline threshold (`INLINE_TRANSCRIPT_BYTES`, §23's 64 KB) stands from a size's target, on one table
 * class: the most table bytes a pause of that size may keep within its target (every other part of its cost as
 * measured), and so the largest threshold under which no transcript kept inline costs more than the target; and what
 * the size costs with its transcript in S3 instead, from the S3 path the 1 MB row measured (its item, requests and
 * durations) with this size's compressed bytes and HTTP API requests.
 */
export interface InlineLimit {
  label: string;
  tableClass: TableClass;
  target: number;
  /** Table bytes of a pause at which the inline cost reaches the target. */
  budgetBytes: number;
  /** The table bytes of a pause besides its transcript (item attributes, parts' keys, index entries). */
  overheadBytes: number;
  /** The largest compressed transcript kept inline within the target: `budgetBytes - overheadBytes`. */
  thresholdBytes: number;
  /** This size with its transcript in S3 (modelled from the measured S3 path), dollars per million. */
  inS3Usd: number | undefined;
}

/** What the cost group's million measured. */
export interface MillionResult {
  pricesRead: string;
  retentionDays: number;
  samples: number;
  rows: MillionRow[];
  assumptions: string[];
  /** The stack's default table class (`handback:tableClass`), whose prices `usd` shows. */
  tableClass?: TableClass;
  /** The inline threshold (bytes, compressed) the store applies. */
  inlineThresholdBytes?: number;
  /** Per inline size and table class: the threshold its target would need. */
  inlineLimits?: InlineLimit[];
}

/** S3 transcript objects that count their requests and bytes. */
class CountingObjects implements TranscriptObjects {
  puts = 0;
  gets = 0;
  bytesPut = 0;
  bytesGot = 0;
  constructor(readonly inner: TranscriptObjects) {}
  async put(key: string, bytes: Uint8Array, sha256: string): Promise<void> {
    this.puts++;
    this.bytesPut += bytes.length;
    await this.inner.put(key, bytes, sha256);
  }
  async get(key: string): Promise<Uint8Array | undefined> {
    this.gets++;
    const got = await this.inner.get(key);
    this.bytesGot += got?.length ?? 0;
    return got;
  }
  async delete(key: string): Promise<void> {
    await this.inner.delete(key);
  }
  reset(): void {
    this.puts = this.gets = this.bytesPut = this.bytesGot = 0;
  }
}

const SIZES = [
  { label: '10 KB', bytes: 10 * 1024, target: 60 },
  { label: '100 KB', bytes: 100 * 1024, target: 90 },
  { label: '1 MB', bytes: 1024 * 1024, target: 250 },
] as const;

/** The targets of §23, dollars per million decided pauses by size. */
export const MILLION_TARGETS: Record<string, number> = Object.fromEntries(SIZES.map((s) => [s.label, s.target]));

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function runMillion(options: GroupOptions): Promise<MillionResult> {
  const samples = options.quick ? 3 : 15;
  const s3 = await startEmbeddedS3({ bucket: 'handback-bench-transcripts' });
  if (s3 === undefined) throw new Error('s3rver is not installed: npm ci');
  const objects = new CountingObjects(
    new S3TranscriptObjects({ bucket: s3.bucket, clientConfig: s3ClientConfig(s3.clientConfig) }),
  );
  const fx = await startStoreFixture(objects);
  const table = { client: fx.doc, tableName: TABLE_NAME, objects };
  const rows: MillionRow[] = [];
  try {
    for (const size of SIZES) {
      const t = transcriptOfBytes('openai-chat' as FormatName, size.bytes);
      const per: Array<{
        calls: RecordedCall[];
        units: KeysWriteUnits;
        durations: { pause: number; resume: number; continuation: number; archive: number };
        storedItemBytes: number;
        archived: boolean;
        s3: { puts: number; gets: number; bytesPut: number; bytesGot: number };
      }> = [];
      for (let i = 0; i < samples + 1; i++) {
        objects.reset();
        fx.recorder.askCapacity = true;
        fx.recorder.recording = true;
        fx.calls.length = 0;
        let started = performance.now();
        const p = await fx.pause(t, `million-${size.bytes}-${i}`);
        const pause = performance.now() - started;
        started = performance.now();
        const resumed = (await fx.resume(p)) as { continuationId?: string };
        const resume = performance.now() - started;
        // The lifecycle stream's move of the closed transcript (§23), before the agent's read: the read then pays it.
        started = performance.now();
        const moved = await archiveTranscript(table, {
          tenant: TENANT,
          runId: p.runId,
          seq: parseId(p.interruptId)?.seq ?? 0,
        });
        const archiving = performance.now() - started;
        started = performance.now();
        if (resumed.continuationId === undefined) throw new Error('the resume did not close the pause');
        await fx.store.getContinuation({ tenant: TENANT, runId: p.runId, continuationId: resumed.continuationId });
        const continuation = performance.now() - started;
        const calls = fx.calls.splice(0);
        fx.recorder.recording = false;
        fx.recorder.askCapacity = false;
        const units = await writeUnitsOf(fx, calls);
        const storedItemBytes = await runBytes(fx, p.runId);
        // The first round warms the server and the S3 client: not counted.
        if (i > 0) {
          per.push({
            calls,
            units,
            durations: { pause, resume, continuation, archive: archiving },
            storedItemBytes,
            archived: moved === 'archived',
            s3: { puts: objects.puts, gets: objects.gets, bytesPut: objects.bytesPut, bytesGot: objects.bytesGot },
          });
        }
      }
      const first = per[0] as (typeof per)[number];
      const cost = computeCost(first.calls, (key) => sizesRead(first.calls).get(key));
      // What the run's partition holds once the flow is done (the parts gone where the stream moved them), and each
      // keys-only index entry written: the table's and the index's keys and 100 bytes of overhead.
      const storedBytes = first.storedItemBytes + first.units.indexEntries * 200;
      const pauseItemWrites = first.calls.filter((c) => {
        const sk = JSON.stringify((c.input.Item ?? c.input.Key) as unknown);
        return (c.command === 'PutItemCommand' || c.command === 'UpdateItemCommand') && /P#\d+#P/.test(sk);
      }).length;
      const durationsMs = {
        pause: median(per.map((p) => p.durations.pause)),
        resume: median(per.map((p) => p.durations.resume)),
        continuation: median(per.map((p) => p.durations.continuation)),
        archive: median(per.map((p) => p.durations.archive)),
      };
      const compressedBytes = (await encodeTranscript(Buffer.from(t.text), { codec: DEFAULT_CODEC })).bytes.length;
      const row = priced({
        label: size.label,
        jsonBytes: Buffer.byteLength(t.text),
        compressedBytes,
        placement: first.archived ? 'moved' : first.s3.puts > 0 ? 's3' : 'table',
        dynamodb: {
          readUnitsReported: cost.reportedReadUnits,
          writeUnitsReported: cost.reportedWriteUnits,
          readUnits: cost.readUnits,
          writeUnits: first.units.total,
          storedBytes,
        },
        s3: first.s3,
        durationsMs,
        // The agent's pause, the person's decision, the agent's read of the continuation: three API invocations, and
        // at most one stream invocation per pause-item change (fewer when the stream batches them).
        lambdaInvocations: 3 + pauseItemWrites,
        httpRequests: 3,
        events: pauseItemWrites,
        handoffMessages: 1,
      });
      rows.push(row);
      options.log(
        `cost per million ${size.label}: $${row.usd.total.toFixed(2)} (target $${size.target}); ${row.placement}, ${row.dynamodb.readUnits} RCU / ${row.dynamodb.writeUnits} WCU (reported ${row.dynamodb.readUnitsReported ?? '–'} / ${row.dynamodb.writeUnitsReported ?? '–'}), ${row.dynamodb.storedBytes} B in the table, S3 ${row.s3.puts} PUT ${row.s3.bytesPut} B / ${row.s3.gets} GET; ${durationsMs.pause.toFixed(1)} / ${durationsMs.resume.toFixed(1)} / ${durationsMs.continuation.toFixed(1)} ms`,
      );
    }
  } finally {
    await fx.close();
    await s3.close();
  }
  return {
    pricesRead: PRICES_READ,
    retentionDays: RETENTION_DAYS,
    samples,
    rows,
    tableClass: TABLE_CLASS.default,
    inlineThresholdBytes: INLINE_TRANSCRIPT_BYTES,
    inlineLimits: inlineLimits(rows),
    assumptions: [
      `one decided pause = one pause, one decision that closes it, one read of its continuation: 3 HTTP API requests and 3 API invocations at ${MEMORY_GB * 1024} MB, billed the store's measured time (median of ${samples}) per step`,
      `a closed pause's transcript of ${ARCHIVE_TRANSCRIPT_BYTES / 1024} KB or more compressed kept in the table's parts is moved to the bucket by the lifecycle stream (§23): its reads, S3 PUT, update and deletes counted with the rest, its measured time billed to a stream invocation, and the agent's read after it`,
      'each pause-item change is one stream record, one stream-function invocation (an upper bound: the stream batches) and one lifecycle event; the hand-off is one SQS message',
      `storage: every item and keys-only index entry (200 B each), and the S3 object, kept ${RETENTION_DAYS} days (the stack's default retention), point-in-time recovery billed on the table's bytes; "total" on the stack's default table class (${TABLE_CLASS.default}), both classes shown beside`,
      'DynamoDB units: the larger of those reported (TOTAL) and those computed from the items with index entries (the embedded server reports the table alone)',
      `free tiers not counted; Step Functions Standard: 3 state transitions per wait (the task with a task token, its success, the end); Lambda durable functions: 3 durable operations per wait (the callback, its completion, the step after) and the transcript written once and retained ${DURABLE_RETENTION_DAYS} days after the execution closes (Lambda's default; it keeps at most 90, so no durable execution holds a year of audit trail)`,
    ],
  };
}

const months = RETENTION_DAYS / 30.4;
const gb = (bytes: number) => bytes / 1024 ** 3;

/** Each table class's DynamoDB prices: storage, and request units per million (point-in-time recovery is the same). */
function classPrices(tableClass: TableClass): { storage: number; read: number; write: number } {
  const p = PRICES;
  return tableClass === 'standard'
    ? {
        storage: p.dynamodbStoragePerGbMonth.usd,
        read: p.dynamodbReadPerMillion.usd,
        write: p.dynamodbWritePerMillion.usd,
      }
    : {
        storage: p.dynamodbIaStoragePerGbMonth.usd,
        read: p.dynamodbIaReadPerMillion.usd,
        write: p.dynamodbIaWritePerMillion.usd,
      };
}

/** Dollars per table byte kept for the retention, storage and point-in-time recovery, per million pauses. */
function storageUsdPerByte(tableClass: TableClass): number {
  return gb(1) * months * (classPrices(tableClass).storage + PRICES.dynamodbPitrPerGbMonth.usd) * MILLION;
}

/** A row with its dollars per million, on each table class. */
function priced(row: Omit<MillionRow, 'usd' | 'peersUsd' | 'byClass'>): MillionRow {
  const byClass = Object.fromEntries(TABLE_CLASS.values.map((c) => [c, pricedOn(row, c)])) as Record<
    TableClass,
    MillionUsd
  >;
  return { ...row, usd: byClass[TABLE_CLASS.default], byClass, peersUsd: peersOf(row) };
}

/** A row's dollars per million on `tableClass`. */
function pricedOn(row: Omit<MillionRow, 'usd' | 'peersUsd' | 'byClass'>, tableClass: TableClass): MillionUsd {
  const p = PRICES;
  const dynamodb = classPrices(tableClass);
  const reads = Math.max(row.dynamodb.readUnits, row.dynamodb.readUnitsReported ?? 0);
  const writes = Math.max(row.dynamodb.writeUnits, row.dynamodb.writeUnitsReported ?? 0);
  const ms = row.durationsMs.pause + row.durationsMs.resume + row.durationsMs.continuation + row.durationsMs.archive;
  const streamMs = 50;
  const per = {
    dynamodbRequests: (reads * dynamodb.read + writes * dynamodb.write) / MILLION,
    dynamodbStorage: (row.dynamodb.storedBytes * storageUsdPerByte(tableClass)) / MILLION,
    s3:
      (row.s3.puts * p.s3PutPerThousand.usd + row.s3.gets * p.s3GetPerThousand.usd) / 1000 +
      gb(row.s3.bytesPut) * months * p.s3StandardPerGbMonth.usd,
    lambda:
      (row.lambdaInvocations * p.lambdaRequestPerMillion.usd) / MILLION +
      MEMORY_GB * ((ms + (row.lambdaInvocations - 3) * streamMs) / 1000) * p.lambdaArmPerGbSecond.usd,
    httpApi: (row.httpRequests * Math.ceil(row.jsonBytes / (512 * 1024)) * p.httpApiPerMillion.usd) / MILLION,
    events: (row.events * p.eventBridgePerMillion.usd) / MILLION,
    sqs: (row.handoffMessages * p.sqsPerMillion.usd) / MILLION,
  };
  const usd = Object.fromEntries(Object.entries(per).map(([k, v]) => [k, v * MILLION])) as MillionUsd;
  usd.total = Object.values(per).reduce((s, v) => s + v, 0) * MILLION;
  return usd;
}

/** The same million waits on Step Functions Standard and on Lambda durable functions (their list prices alone). */
function peersOf(row: Omit<MillionRow, 'usd' | 'peersUsd' | 'byClass'>): MillionRow['peersUsd'] {
  const p = PRICES;
  const transcriptGb = gb(row.jsonBytes);
  return {
    stepFunctionsStandard: 3 * (p.stepFunctionsStandardPerThousandTransitions.usd / 1000) * MILLION,
    lambdaDurable:
      3 * p.durableOperationsPerMillion.usd +
      MILLION *
        transcriptGb *
        (p.durableDataWrittenPerGb.usd + (DURABLE_RETENTION_DAYS / 30.4) * p.durableDataRetainedPerGbMonth.usd),
  };
}

/**
 * For each size kept inline, on each table class: the table bytes its target allows, the threshold that would keep
 * every inline transcript within it, and the size's cost with its transcript in S3 (from the measured S3 row).
 */
export function inlineLimits(rows: MillionRow[]): InlineLimit[] {
  const s3Row = rows.find((r) => r.placement === 's3');
  const limits: InlineLimit[] = [];
  for (const row of rows.filter((r) => r.placement === 'table')) {
    const target = MILLION_TARGETS[row.label];
    if (target === undefined || row.compressedBytes === undefined) continue;
    for (const tableClass of TABLE_CLASS.values) {
      const usd = row.byClass?.[tableClass] ?? row.usd;
      const perByte = storageUsdPerByte(tableClass);
      const budgetBytes = Math.floor((target - (usd.total - usd.dynamodbStorage)) / perByte);
      const overheadBytes = row.dynamodb.storedBytes - row.compressedBytes;
      let inS3Usd: number | undefined;
      const s3Usd = s3Row?.byClass?.[tableClass] ?? s3Row?.usd;
      if (s3Row !== undefined && s3Usd !== undefined) {
        const p = PRICES;
        const s3 =
          (s3Row.s3.puts * p.s3PutPerThousand.usd + s3Row.s3.gets * p.s3GetPerThousand.usd) * 1000 +
          gb(row.compressedBytes) * months * p.s3StandardPerGbMonth.usd * MILLION;
        inS3Usd = s3Usd.total - s3Usd.s3 - s3Usd.httpApi + s3 + usd.httpApi;
      }
      limits.push({
        label: row.label,
        tableClass,
        target,
        budgetBytes,
        overheadBytes,
        thresholdBytes: budgetBytes - overheadBytes,
        inS3Usd,
      });
    }
  }
  return limits;
}

/** The bytes of every item in a run's partition as it is now (read with recording off: not part of the flow). */
async function runBytes(fx: StoreFixture, runId: string): Promise<number> {
  const output = await fx.doc.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': Keys.run(TENANT, runId) },
      ConsistentRead: true,
    }),
  );
  if (output.LastEvaluatedKey !== undefined) throw new Error(`run ${runId} holds more than one page of items`);
  return (output.Items ?? []).reduce((sum, item) => sum + itemSize(item), 0);
}
