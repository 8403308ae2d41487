import { type AttributeValue, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { INDEXES, TABLE } from '../functions/checkpoints/table.ts';
import type { FormatName } from '../functions/vocabulary.ts';
import type { GroupOptions } from './options.ts';
import { itemSize, type RecordedCall, type StoreFixture, startStoreFixture, TABLE_NAME } from './store-harness.ts';
import { transcriptOfBytes } from './transcripts.ts';

/**
 * Group 10, no hot keys (§23): one tenant at `RATE` pauses/s and `RATE` decisions/s through the store's write plan.
 * The store pauses and decides for real on the embedded server (every pause its own run, each decision the one that
 * closes it); the recorder keeps every write the store sends, and the write units each key takes are counted from
 * those items by DynamoDB's rules: a table write is one unit per KB of the larger of the item before and after, on
 * the item's partition key; a keys-only index takes one unit per entry written or removed, on the index's partition
 * key (an update that leaves an index's keys as they are writes nothing there). Units per key per second are the
 * counts scaled to `RATE` of each kind. No AWS: what DynamoDB would meter, from what the code writes.
 */

/** Pauses per second and decisions per second of the one tenant. */
export const RATE = 5_000;
/** The ceiling a partition key takes before DynamoDB throttles it (write units per second). */
export const PARTITION_WCU = 1_000;

/** One key's load. */
export interface KeyLoad {
  /** `table` or an index name. */
  where: string;
  key: string;
  wcuPerSecond: number;
}

/** What one run measured. */
export interface KeysResult {
  rate: number;
  /** Pauses and decisions driven, each on a run of its own (the shared keys' units scaled to `rate` when fewer). */
  pauses: number;
  decisions: number;
  transcriptBytes: number;
  /** The hottest keys, hottest first. */
  hottest: KeyLoad[];
  /** The hottest key of each place (table, each index). */
  hottestBy: KeyLoad[];
  /** The hottest listing key the same writes would give with one unsharded listing key per tenant. */
  unshardedListing: KeyLoad;
  /** Write units per pause and per decision, all keys together. */
  wcuPerPause: number;
  wcuPerDecision: number;
}

/** An item as recorded: marshalled, or as the document client was given it (plain values). */
type Item = Record<string, AttributeValue | unknown>;
const INDEX_KEYS = INDEXES.map((index) => ({
  name: index.indexName,
  key: index.partitionKey.name,
  sort: index.sortKey.name,
}));
const units = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
/** A key attribute's text, marshalled or plain. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  const av = value as { S?: string; N?: string } | undefined;
  return av?.S ?? av?.N;
}

/** Write units by place and key, for one phase's writes, from the recorded calls and the items after them. */
async function unitsOf(
  fx: StoreFixture,
  calls: readonly RecordedCall[],
  before: Map<string, Item>,
): Promise<Map<string, number>> {
  const load = new Map<string, number>();
  const add = (where: string, key: string | undefined, count: number) => {
    if (key === undefined) return;
    const id = `${where}\u0000${key}`;
    load.set(id, (load.get(id) ?? 0) + count);
  };
  for (const call of calls) {
    if (call.command === 'PutItemCommand') {
      const item = call.input.Item as Item;
      add('table', text(item[TABLE.partitionKey.name]), units(itemSize(item)));
      for (const index of INDEX_KEYS) add(index.name, text(item[index.key]), 1);
      before.set(`${text(item.pk)}\u0000${text(item.sk)}`, item);
    } else if (call.command === 'UpdateItemCommand') {
      const key = call.input.Key as Item;
      const id = `${text(key.pk)}\u0000${text(key.sk)}`;
      const old = before.get(id) ?? {};
      const got = await fx.raw.send(
        new GetItemCommand({
          TableName: TABLE_NAME,
          Key: { pk: { S: text(key.pk) as string }, sk: { S: text(key.sk) as string } },
          ConsistentRead: true,
        }),
      );
      const after: Item = got.Item ?? {};
      add('table', text(key.pk), units(Math.max(itemSize(old), itemSize(after))));
      for (const index of INDEX_KEYS) {
        const was = text(old[index.key]);
        const is = text(after[index.key]);
        // A keys-only entry is rewritten only when its keys change: removed, added, or moved (a delete and a put).
        const moved = was !== is || text(old[index.sort]) !== text(after[index.sort]);
        if (was !== undefined && moved) add(index.name, was, 1);
        if (is !== undefined && moved) add(index.name, is, 1);
      }
      before.set(id, after);
    } else if (call.command === 'DeleteItemCommand') {
      const key = call.input.Key as Item;
      const old = before.get(`${text(key.pk)}\u0000${text(key.sk)}`) ?? {};
      add('table', text(key.pk), units(itemSize(old)));
      for (const index of INDEX_KEYS) add(index.name, text(old[index.key]), 1);
    }
  }
  return load;
}

/** The write units of some recorded writes, all keys together, and the index entries they wrote or removed. */
export interface KeysWriteUnits {
  total: number;
  indexEntries: number;
}

/** `calls`' write units by DynamoDB's rules (table and keys-only indexes), as this group counts them per key. */
export async function writeUnitsOf(fx: StoreFixture, calls: readonly RecordedCall[]): Promise<KeysWriteUnits> {
  const load = await unitsOf(fx, calls, new Map());
  let total = 0;
  let indexEntries = 0;
  for (const [id, n] of load) {
    total += n;
    if (!id.startsWith('table\u0000')) indexEntries += n;
  }
  return { total, indexEntries };
}

/** Runs `count` tasks, `width` at a time. */
async function inBatches(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  for (let start = 0; start < count; start += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, j) => task(start + j)));
  }
}

export async function runKeys(options: GroupOptions): Promise<KeysResult> {
  const count = options.quick ? 500 : RATE;
  const transcriptBytes = 10 * 1024;
  const t = transcriptOfBytes('openai-chat' as FormatName, transcriptBytes);
  const fx = await startStoreFixture();
  try {
    const paused: Array<{ runId: string; interruptId: string }> = [];
    fx.recorder.recording = true;
    await inBatches(count, 16, async (i) => {
      paused[i] = await fx.pause(t, `keys-run-${i}`);
    });
    const pauseCalls = fx.calls.splice(0);
    options.log(`keys: ${count} pauses of one tenant written`);
    await inBatches(count, 16, async (i) => {
      await fx.resume(paused[i] as { runId: string; interruptId: string });
    });
    const decisionCalls = fx.calls.splice(0);
    fx.recorder.recording = false;
    options.log(`keys: ${count} decisions written`);

    const before = new Map<string, Item>();
    const pauseLoad = await unitsOf(fx, pauseCalls, before);
    const decisionLoad = await unitsOf(fx, decisionCalls, before);
    // Each run is paused and decided once a second whatever the rate; the shared keys take their share of `RATE`.
    const scale = (id: string) => (id.startsWith('table\u0000') ? 1 : RATE / count);
    const perSecond = new Map<string, number>();
    for (const load of [pauseLoad, decisionLoad]) {
      for (const [id, n] of load) perSecond.set(id, (perSecond.get(id) ?? 0) + n * scale(id));
    }
    const loads: KeyLoad[] = [...perSecond].map(([id, wcu]) => {
      const [where, key] = id.split('\u0000') as [string, string];
      return { where, key, wcuPerSecond: Math.round(wcu) };
    });
    loads.sort((a, b) => b.wcuPerSecond - a.wcuPerSecond);
    const hottestBy = ['table', ...INDEX_KEYS.map((index) => index.name)].flatMap((where) => {
      const top = loads.find((load) => load.where === where);
      return top === undefined ? [] : [top];
    });
    // The same writes with every listing shard's entries on the tenant's one key (before §23).
    const unsharded = new Map<string, number>();
    for (const load of loads) {
      if (load.where !== 'byTenant' && load.where !== 'openByTenant') continue;
      const key = `${load.where}\u0000${load.key.replace(/#\d+$/, '')}`;
      unsharded.set(key, (unsharded.get(key) ?? 0) + load.wcuPerSecond);
    }
    const [unshardedId, unshardedWcu] = [...unsharded].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    const [where, key] = unshardedId.split('\u0000') as [string, string];
    const sum = (load: Map<string, number>) => [...load.values()].reduce((s, n) => s + n, 0) / count;
    const result: KeysResult = {
      rate: RATE,
      pauses: count,
      decisions: count,
      transcriptBytes,
      hottest: loads.slice(0, 10),
      hottestBy,
      unshardedListing: { where, key, wcuPerSecond: unshardedWcu },
      wcuPerPause: sum(pauseLoad),
      wcuPerDecision: sum(decisionLoad),
    };
    for (const load of hottestBy)
      options.log(`keys: hottest ${load.where} key ${load.key}: ${load.wcuPerSecond} WCU/s`);
    options.log(
      `keys: hottest key ${loads[0]?.where} ${loads[0]?.key} at ${loads[0]?.wcuPerSecond} WCU/s (limit ${PARTITION_WCU}); unsharded listing would be ${unshardedWcu} WCU/s`,
    );
    return result;
  } finally {
    await fx.close();
  }
}
