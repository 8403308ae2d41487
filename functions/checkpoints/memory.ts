import { createHash } from 'node:crypto';
import { BadRequestError } from '../errors.ts';
import { Status } from '../vocabulary.ts';
import { maskOf, mergeShards, shardsOfMask } from './listing-merge.ts';
import type { CheckpointPersistence, ListPage, ListQuery, StoredPause, TranscriptRead } from './persistence.ts';
import type { PauseRecord, RecordKey } from './record.ts';
import { TABLE } from './table.ts';

/**
 * The in-memory persistence: the port's primitives over a `Map`, for the rules' fast tests and for trying the library
 * without a table. Records are copied in and out (structured clones), so no caller can change a stored record
 * by holding on to an object; each write is atomic because nothing awaits between its check and its change. A
 * transcript is kept whole beside its record (no item limit here), so the read hint is a constant. A tenant's listing
 * is spread over shards and merged on read as the DynamoDB adapter's is (`listing-merge.ts`), so the rules' fast tests
 * walk the same merge and cursors.
 */
export class MemoryPersistence implements CheckpointPersistence {
  readonly #shards: number;

  /** `listingShards`: how many shards a tenant's listing is spread over (1–30). @default TABLE.listingShards (16) */
  constructor(options: { listingShards?: number } = {}) {
    const shards = options.listingShards ?? TABLE.listingShards;
    if (!Number.isSafeInteger(shards) || shards < 1 || shards > 30) {
      throw new RangeError(`listingShards is ${shards}: a whole number from 1 to 30.`);
    }
    this.#shards = shards;
  }

  readonly #records = new Map<string, PauseRecord>();
  readonly #transcripts = new Map<string, Uint8Array>();
  /** Insertion order of records, per tenant: the listing's "newest first" is by `createdAt`, then this. */
  #order = 0;
  readonly #orderOf = new Map<string, number>();

  readHint(): string {
    return '1';
  }

  async latest(tenant: string, runId: string): Promise<PauseRecord | undefined> {
    let latest: PauseRecord | undefined;
    for (const record of this.#records.values()) {
      if (record.tenant === tenant && record.runId === runId && (latest === undefined || record.seq > latest.seq)) {
        latest = record;
      }
    }
    return latest === undefined ? undefined : structuredClone(latest);
  }

  async create(record: PauseRecord, transcript: Uint8Array): Promise<'created' | 'taken'> {
    const key = keyOf(record);
    if (this.#records.has(key)) return 'taken';
    this.#records.set(key, structuredClone(record));
    this.#transcripts.set(key, Uint8Array.from(transcript));
    this.#orderOf.set(key, this.#order++);
    return 'created';
  }

  async read(key: RecordKey, transcript?: TranscriptRead): Promise<StoredPause | undefined> {
    const record = this.#records.get(keyOf(key));
    if (record === undefined) return undefined;
    const bytes = this.#transcripts.get(keyOf(key));
    if (transcript === undefined || record.token !== transcript.token || bytes === undefined) {
      return { record: structuredClone(record) };
    }
    return { record: structuredClone(record), transcript: Uint8Array.from(bytes) };
  }

  async update(before: PauseRecord, after: PauseRecord): Promise<'updated' | 'conflict'> {
    const key = keyOf(before);
    const current = this.#records.get(key);
    if (current === undefined || current.rev !== before.rev || current.token !== before.token) return 'conflict';
    this.#records.set(key, structuredClone(after));
    return 'updated';
  }

  async list(query: ListQuery): Promise<ListPage> {
    const start = query.cursor === undefined ? undefined : readCursor(query.cursor, query.tenant, this.#shards);
    // Newest first: by createdAt, then by write order; a position is that pair.
    const isAfter = ([at, order]: Position, [cAt, cOrder]: Position) => at < cAt || (at === cAt && order < cOrder);
    const matching = [...this.#records.entries()]
      .filter(([, record]) => record.tenant === query.tenant && (!query.openOnly || record.status === Status.Paused))
      .filter(([, record]) => query.createdBefore === undefined || record.createdAt < query.createdBefore)
      .map(([key, record]) => ({
        record,
        shard: shardOf(key, this.#shards),
        at: [record.createdAt, this.#orderOf.get(key) ?? 0] as Position,
      }))
      .filter(({ at }) => start === undefined || isAfter(at, start.at))
      .sort((a, b) => (isAfter(a.at, b.at) ? 1 : -1));
    const merged = await mergeShards(
      this.#shards,
      start?.done ?? new Set(),
      query.limit,
      async (shard, limit) => {
        const inShard = matching.filter((entry) => entry.shard === shard);
        return { entries: inShard.slice(0, limit), more: inShard.length > limit };
      },
      (a, b) => (isAfter(a.at, b.at) ? 1 : -1),
    );
    const before = start?.done ?? new Set<number>();
    const entries = merged.taken.map(({ entry }) => ({
      record: structuredClone(entry.record),
      after: writeCursor(query.tenant, entry.at, before),
    }));
    const last = merged.taken.at(-1)?.entry;
    return merged.more && last !== undefined
      ? { entries, next: writeCursor(query.tenant, last.at, merged.done) }
      : { entries };
  }

  async due(nowMs: number, limit: number): Promise<RecordKey[]> {
    return [...this.#records.values()]
      .filter((record) => record.dueAtMs !== undefined && record.dueAtMs <= nowMs)
      .sort((a, b) => (a.dueAtMs ?? 0) - (b.dueAtMs ?? 0))
      .slice(0, limit)
      .map(({ tenant, runId, seq }) => ({ tenant, runId, seq }));
  }
}

function keyOf(key: RecordKey): string {
  return JSON.stringify([key.tenant, key.runId, key.seq]);
}

/** A position in a listing: a record's `createdAt` and its write order. */
type Position = [string, number];

/** The listing shard of a record's key. */
function shardOf(key: string, shards: number): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % shards;
}

function writeCursor(tenant: string, at: Position, done: ReadonlySet<number>): string {
  return Buffer.from(JSON.stringify([tenant, ...at, maskOf(done)])).toString('base64url');
}

function readCursor(cursor: string, tenant: string, shards: number): { at: Position; done: Set<number> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const done = Array.isArray(parsed) ? shardsOfMask(parsed[3], shards) : undefined;
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    parsed[0] !== tenant ||
    typeof parsed[1] !== 'string' ||
    typeof parsed[2] !== 'number' ||
    done === undefined
  ) {
    throw new BadRequestError(
      "The cursor is not a cursor of this listing: pass the previous page's cursor unchanged.",
      [{ path: '/cursor', message: 'is not a cursor of this listing' }],
    );
  }
  return { at: [parsed[1], parsed[2]], done };
}
