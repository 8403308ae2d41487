import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { type AttributeValue, BatchGetItemCommand, DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CheckpointStore } from '../functions/checkpoints/checkpoint-store.ts';
import { Keys } from '../functions/checkpoints/dynamodb/keys.ts';
import { partsOfHint } from '../functions/checkpoints/dynamodb/parts.ts';
import { createDynamoDBCheckpointStore } from '../functions/checkpoints/dynamodb-store.ts';
import { parseId } from '../functions/checkpoints/ids.ts';
import type { TranscriptObjects } from '../functions/checkpoints/transcript-objects.ts';
import { EMBEDDED_CLIENT_CONFIG } from '../functions/local/embedded-dynamodb.ts';
import type { FormatName } from '../functions/vocabulary.ts';
import { ANSWER, type BenchTranscript } from './transcripts.ts';

/**
 * The store benchmarks' fixture: the embedded DynamoDB-compatible server (dynalite) in a child process, a table,
 * Handback's store on a document client, a raw client for the floor, and a recorder on the clients' middleware
 * that asks every call for `ReturnConsumedCapacity: TOTAL` (when on) and keeps each call's command, marshalled
 * input, returned items and consumed capacity.
 */

export const TABLE_NAME = 'handback-bench';
export const TENANT = 'bench';

/** One DynamoDB call as the recorder saw it. */
export interface RecordedCall {
  command: string;
  input: Record<string, unknown>;
  /** Items a read returned (marshalled). */
  items?: Array<Record<string, AttributeValue | unknown>>;
  consumed?: { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };
}

export interface StoreFixture {
  store: CheckpointStore;
  /** The raw client the floor uses (recorded too). */
  raw: DynamoDBClient;
  /** The document client the store sends with (for seeding). */
  doc: DynamoDBDocumentClient;
  /** Calls recorded while `recording` is on. */
  calls: RecordedCall[];
  recorder: { recording: boolean; askCapacity: boolean };
  /** A fresh pause of `t` on its own run; returns its run and interrupt ids. */
  pause(t: BenchTranscript, runId?: string): Promise<{ runId: string; interruptId: string }>;
  /** Handback's resume, as the handlers call it. */
  resume(p: { runId: string; interruptId: string }): Promise<unknown>;
  /** The floor: the same Query for the pause's items and one conditional UpdateItem, raw. Returns requests made. */
  floor(p: { runId: string; interruptId: string }): Promise<number>;
  close(): Promise<void>;
}

function record(client: DynamoDBClient, calls: RecordedCall[], recorder: StoreFixture['recorder']): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      if (recorder.askCapacity) input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      if (recorder.recording) {
        const output = result.output as unknown as Record<string, unknown>;
        calls.push({
          command: String(context.commandName ?? 'unknown'),
          input: structuredClone(input),
          ...(Array.isArray(output.Items) ? { items: output.Items as Array<Record<string, unknown>> } : {}),
          // BatchGetItem answers by table.
          ...(output.Responses !== undefined && output.Responses !== null
            ? { items: Object.values(output.Responses as Record<string, Array<Record<string, unknown>>>).flat() }
            : {}),
          ...(output.ConsumedCapacity === undefined ? {} : { consumed: consumedOf(output.ConsumedCapacity) }),
        });
      }
      return result;
    },
    // After lib-dynamodb's marshalling (initialize, normal priority): the recorder sees AttributeValues.
    { step: 'initialize', priority: 'low', name: 'handbackBenchRecorder' },
  );
}

/** A call's consumed capacity: BatchGetItem reports a list, one entry per table; the rest one object. */
function consumedOf(reported: unknown): RecordedCall['consumed'] {
  if (!Array.isArray(reported)) return reported as RecordedCall['consumed'];
  const units = (reported as Array<{ CapacityUnits?: number }>).reduce((s, c) => s + (c.CapacityUnits ?? 0), 0);
  return { CapacityUnits: units };
}

async function startServer(): Promise<{ child: ChildProcess; endpoint: string }> {
  const child = spawn(
    process.execPath,
    ['--no-warnings', '--import', 'tsx', `${import.meta.dirname}/dynalite-server.ts`, TABLE_NAME],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`dynalite exited with ${code}`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { endpoint: string }).endpoint));
  });
  return { child, endpoint };
}

let runs = 0;

/** Starts the server and builds the fixture, the store keeping large transcripts in `objects` when given. */
export async function startStoreFixture(objects?: TranscriptObjects): Promise<StoreFixture> {
  const { child, endpoint } = await startServer();
  const calls: RecordedCall[] = [];
  const recorder = { recording: false, askCapacity: false };
  const base = new DynamoDBClient({ endpoint, ...EMBEDDED_CLIENT_CONFIG });
  record(base, calls, recorder);
  const client = DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
  const raw = new DynamoDBClient({ endpoint, ...EMBEDDED_CLIENT_CONFIG });
  record(raw, calls, recorder);
  const store = createDynamoDBCheckpointStore({ client, tableName: TABLE_NAME, ...(objects ? { objects } : {}) });
  return {
    store,
    raw,
    doc: client,
    calls,
    recorder,
    async pause(t, runId = `run-${process.pid}-${++runs}`) {
      const created = await store.pause({
        tenant: TENANT,
        runId,
        format: t.format as FormatName,
        messages: t.messages,
        toolCallId: t.toolCallId,
        prompt: 'Approve the refund?',
      });
      return { runId, interruptId: created.interruptId };
    },
    resume(p) {
      return store.resume({ tenant: TENANT, runId: p.runId, interruptId: p.interruptId, answer: ANSWER });
    },
    async floor(p) {
      // The raw floor reads what a resume reads, by key: the pause item and its transcript's parts.
      const id = parseId(p.interruptId) ?? { seq: 0, hint: '0', token: '' };
      // The DynamoDB adapter's read hint is the transcript's part count.
      const parts = partsOfHint(id.hint) ?? 0;
      const seq = id.seq;
      const pk = Keys.run(TENANT, p.runId);
      const keys = [Keys.pause(seq), ...Array.from({ length: parts }, (_, i) => Keys.part(seq, id.token, i))].map(
        (sk) => ({ pk: { S: pk }, sk: { S: sk } }),
      );
      let requests = 0;
      let pending:
        | Record<string, { Keys: Array<Record<string, AttributeValue>>; ConsistentRead: boolean }>
        | undefined = {
        [TABLE_NAME]: { Keys: keys, ConsistentRead: true },
      };
      while (pending !== undefined && Object.keys(pending).length > 0) {
        const page = await raw.send(new BatchGetItemCommand({ RequestItems: pending }));
        requests++;
        pending = page.UnprocessedKeys as typeof pending;
      }
      await raw.send(
        new UpdateItemCommand({
          TableName: TABLE_NAME,
          Key: { pk: { S: pk }, sk: { S: Keys.pause(seq) } },
          UpdateExpression: 'SET #floor = :answer',
          ConditionExpression: 'attribute_not_exists(#floor)',
          ExpressionAttributeNames: { '#floor': 'benchFloorAnswer' },
          ExpressionAttributeValues: { ':answer': { S: JSON.stringify(ANSWER) } },
        }),
      );
      return requests + 1;
    },
    async close() {
      base.destroy();
      raw.destroy();
      child.stdin?.end();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGTERM');
          resolve();
        }, 5000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/**
 * An item's size as DynamoDB counts it (developer guide, "Item sizes and formats"): each attribute's name in UTF-8
 * bytes plus its value — strings in UTF-8 bytes, binaries in bytes, numbers about one byte per two significant
 * digits plus one, booleans and nulls one byte, lists and maps 3 bytes plus one byte and the size of each element.
 */
export function itemSize(item: Record<string, AttributeValue | unknown>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) total += Buffer.byteLength(name) + valueSize(value);
  return total;
}

const TAGS = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'SS', 'NS', 'BS', 'L', 'M']);

/** Whether `value` is a marshalled AttributeValue (one type tag) rather than a plain value the document client made. */
function isAttributeValue(value: unknown): value is AttributeValue {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && TAGS.has(keys[0] as string);
}

/** The size of a plain (unmarshalled) value by the same rules. */
function plainSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    return Math.ceil(String(value).replace(/^-|\.|^0+|e.*$/gi, '').length / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.length;
  if (typeof value === 'boolean' || value === null) return 1;
  if (Array.isArray(value)) return 3 + value.reduce((s: number, v) => s + 1 + plainSize(v), 0);
  if (value instanceof Set) return [...value].reduce((s: number, v) => s + plainSize(v), 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value).reduce((s, [k, v]) => s + 1 + Buffer.byteLength(k) + plainSize(v), 0);
  }
  return 0;
}

function valueSize(value: AttributeValue | unknown): number {
  if (!isAttributeValue(value)) return plainSize(value);
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/^-|\.|^0+|e.*$/gi, '').length / 2) + 1;
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((s, v) => s + Buffer.byteLength(v), 0);
  if (value.NS !== undefined) return value.NS.reduce((s, v) => s + Math.ceil(v.length / 2) + 1, 0);
  if (value.BS !== undefined) return value.BS.reduce((s, v) => s + v.length, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((s, v) => s + 1 + valueSize(v), 0);
  if (value.M !== undefined) {
    return 3 + Object.entries(value.M).reduce((s, [k, v]) => s + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  }
  return 0;
}

/** Capacity as DynamoDB's documented rules compute it from the recorded calls' item sizes. */
export interface ComputedCost {
  /** Read requests made (on the embedded server, which caps a BatchGetItem answer at about 1.4 MB). */
  readRequests: number;
  /**
   * Read requests DynamoDB itself would need for the same reads: a BatchGetItem answers up to 16 MB and 100 keys at
   * once (a Query page, 1 MB).
   */
  awsReadRequests: number;
  writeRequests: number;
  /** Strongly consistent reads: one unit per 4 KB of all the items a Query returns, summed, rounded up. */
  readUnits: number;
  /** One unit per 1 KB of the larger of the item before and after, rounded up, per write. */
  writeUnits: number;
  /** What the server reported (`ReturnConsumedCapacity: TOTAL`), when it did. */
  reportedReadUnits?: number;
  reportedWriteUnits?: number;
}

const READS = new Set(['QueryCommand', 'GetItemCommand', 'GetCommand', 'BatchGetItemCommand', 'ScanCommand']);

/** Computes a recorded resume's (or pause's) cost; `before` gives an updated item's size before the write. */
export function computeCost(calls: readonly RecordedCall[], before: (key: string) => number | undefined): ComputedCost {
  const cost: ComputedCost = { readRequests: 0, awsReadRequests: 0, writeRequests: 0, readUnits: 0, writeUnits: 0 };
  let batchBytes = 0;
  let batchKeys = 0;
  let queryBytes = 0;
  let reportedRead = 0;
  let reportedWrite = 0;
  let reported = false;
  for (const call of calls) {
    if (call.consumed !== undefined) {
      reported = true;
      const units = call.consumed.CapacityUnits ?? 0;
      if (READS.has(call.command)) reportedRead += call.consumed.ReadCapacityUnits ?? units;
      else reportedWrite += call.consumed.WriteCapacityUnits ?? units;
    }
    if (READS.has(call.command)) {
      cost.readRequests++;
      const sizes = (call.items ?? []).map((item) => itemSize(item));
      const bytes = sizes.reduce((s, size) => s + size, 0);
      if (call.command === 'BatchGetItemCommand') {
        // Strongly consistent BatchGetItem and GetItem: each item is rounded up to 4 KB on its own.
        cost.readUnits += sizes.reduce((s, size) => s + Math.max(1, Math.ceil(size / 4096)), 0);
        batchBytes += bytes;
        batchKeys += sizes.length;
      } else {
        // A Query: the items it returns, summed, rounded up to 4 KB.
        cost.readUnits += Math.max(1, Math.ceil(bytes / 4096));
        queryBytes += bytes;
        if (call.command === 'QueryCommand') continue;
        cost.awsReadRequests++;
      }
      continue;
    }
    cost.writeRequests++;
    const input = call.input as {
      Item?: Record<string, unknown>;
      Key?: Record<string, unknown>;
      ExpressionAttributeValues?: Record<string, unknown>;
      ExpressionAttributeNames?: Record<string, string>;
    };
    if (input.Item !== undefined) {
      cost.writeUnits += Math.max(1, Math.ceil(itemSize(input.Item) / 1024));
    } else {
      const plain = (v: unknown) => (isAttributeValue(v) ? v.S : v);
      const old = before(`${plain(input.Key?.pk)}|${plain(input.Key?.sk)}`) ?? 0;
      // An update adds at most its values and their names to the item.
      const added =
        Object.values(input.ExpressionAttributeValues ?? {}).reduce((s: number, v) => s + valueSize(v), 0) +
        Object.values(input.ExpressionAttributeNames ?? {}).reduce((s, n) => s + Buffer.byteLength(n), 0);
      cost.writeUnits += Math.max(1, Math.ceil(Math.max(old, old + added) / 1024));
    }
  }
  if (batchKeys > 0) {
    cost.awsReadRequests += Math.max(1, Math.ceil(batchBytes / (16 * 1024 * 1024)), Math.ceil(batchKeys / 100));
  }
  if (queryBytes > 0) cost.awsReadRequests += Math.max(1, Math.ceil(queryBytes / (1024 * 1024)));
  if (reported) {
    cost.reportedReadUnits = reportedRead;
    cost.reportedWriteUnits = reportedWrite;
  }
  return cost;
}

/** The key (`pk|sk`) → size of every item the recorded reads returned. */
export function sizesRead(calls: readonly RecordedCall[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const call of calls) {
    for (const item of call.items ?? []) {
      const plain = (v: unknown) => (isAttributeValue(v) ? v.S : v);
      sizes.set(`${plain(item.pk)}|${plain(item.sk)}`, itemSize(item));
    }
  }
  return sizes;
}
