import type { BatchGetCommandInput, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CorruptCheckpointError, StorageUnavailableError } from '../../errors.ts';
import { sha256 } from '../codec.ts';
import { mergeShards } from '../listing-merge.ts';
import type { CheckpointPersistence, ListPage, ListQuery, StoredPause, TranscriptRead } from '../persistence.ts';
import { interruptIdOf, type PauseRecord, type RecordKey } from '../record.ts';
import { storageError } from '../sdk-errors.ts';
import { TABLE } from '../table.ts';
import type { TranscriptObjects } from '../transcript-objects.ts';
import { decodeCursor, encodeCursor, type Listing, type ListingKey } from './cursor.ts';
import {
  type Item,
  ItemKind,
  idOfItem,
  OBJECT_SCHEMA_VERSION,
  objectKeyOf,
  partData,
  partItem,
  pauseItem,
  recordOf,
  transcriptPlaceOf,
} from './items.ts';
import { Keys, parseRunKey, parseSortKey } from './keys.ts';
import * as params from './params.ts';
import {
  ARCHIVE_TRANSCRIPT_BYTES,
  hintOf,
  joinParts,
  layoutOf,
  MAX_PARTS,
  OBJECT_HINT,
  partsOfHint,
  splitParts,
} from './parts.ts';
import { documentCommands } from './sdk.ts';

export { storageError };

/** How a `DynamoDBPersistence` is built. */
export interface DynamoDBPersistenceOptions {
  /** The client to send with; the adapter adds nothing to its middleware. */
  client: DynamoDBDocumentClient;
  /** A table created from `createTableInput` (or the CDK table built from `TABLE`). */
  tableName: string;
  /**
   * Seconds a pause's items are kept after its `expiresAt` before DynamoDB's TTL may delete them: how long a closed
   * or expired pause still shows and a continuation stays readable. @default 2,592,000 (30 days)
   */
  retentionSeconds?: number;
  /**
   * Where transcripts over `INLINE_TRANSCRIPT_BYTES` compressed go (§23): one object each, written before the pause
   * item that names it, checked against the item on every read. Every reader of a table that has such pauses needs
   * it. @default none: every transcript is written in parts in the table
   */
  objects?: TranscriptObjects;
}

/**
 * What `archive` did: moved the transcript to the bucket (or found it moved), found it written there, left it (the
 * pause is open, or its transcript under `ARCHIVE_TRANSCRIPT_BYTES`), found no pause (TTL removed it, or another
 * attempt holds its number), or had no bucket to move it to.
 */
export type ArchiveOutcome = 'archived' | 'in-bucket' | 'open' | 'small' | 'gone' | 'no-bucket';

const DEFAULT_RETENTION_SECONDS = 30 * 24 * 60 * 60;
/** Part writes (and best-effort deletes) in flight at once for one pause. */
const PART_CONCURRENCY = 4;
/** Answers in a row without any item after which a BatchGetItem gives up on unprocessed keys (throttling). */
const UNPROCESSED_ROUNDS = 6;
/** The first backoff after an answer that brought no item; it doubles each time (full jitter). */
const BACKOFF_MS = 25;

/** The SDK's commands, loaded on first use (`sdk.ts`: the DynamoDB SDK is an optional peer of the package). */
const commands = () => documentCommands('The DynamoDB checkpoint store');

/**
 * The persistence port on one DynamoDB table (see `keys.ts` for the layout): keys, parts (`parts.ts`: a transcript
 * cut under the 400 KB item limit, its part count the read hint in ids), cursors and condition expressions live here, command inputs come from `params.ts`, and SDK errors never leak — a condition that failed is
 * an answer of the port (`taken`, `conflict`), a table that does not answer in time is a `StorageUnavailableError`.
 */
export class DynamoDBPersistence implements CheckpointPersistence {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #retentionSeconds: number;
  readonly #objects: TranscriptObjects | undefined;

  constructor(options: DynamoDBPersistenceOptions) {
    this.#client = options.client;
    this.#tableName = options.tableName;
    this.#retentionSeconds = options.retentionSeconds ?? DEFAULT_RETENTION_SECONDS;
    this.#objects = options.objects;
    // Loading starts with the store (a Lambda's init), so the first request does not wait for it; its error waits
    // for the first request.
    commands().catch(() => undefined);
  }

  readHint(byteLength: number): string {
    const layout = layoutOf(byteLength, this.#objects !== undefined);
    return layout === 'object' ? OBJECT_HINT : hintOf(layout.parts);
  }

  async latest(tenant: string, runId: string): Promise<PauseRecord | undefined> {
    const pk = Keys.run(tenant, runId);
    let below: string | undefined;
    const { QueryCommand } = await commands();
    for (;;) {
      const output = await this.#call(() =>
        this.#client.send(new QueryCommand(params.latestPause(this.#tableName, pk, below))),
      );
      const raw = output.Items?.[0];
      if (raw === undefined) return undefined;
      const sk = parseSortKey(raw.sk);
      if (sk.kind === 'pause') return recordOf(raw, { runId, interruptId: idOfItem(raw, sk.seq) });
      if (sk.kind !== 'part') return undefined;
      // `P#<seq>` sorts below every key of pause `seq` and above every key of the pauses before it.
      below = Keys.pause(sk.seq).slice(0, -2);
    }
  }

  async create(record: PauseRecord, transcript: Uint8Array): Promise<'created' | 'taken'> {
    if (record.readHint !== this.readHint(transcript.length)) {
      throw new RangeError(
        `A transcript of ${transcript.length} bytes has the read hint ${this.readHint(transcript.length)}; the record says ${record.readHint}.`,
      );
    }
    const ttl = this.#ttlOf(record);
    const { PutCommand } = await commands();
    const inObject = record.readHint === OBJECT_HINT;
    const parts = inObject ? [] : splitParts(transcript);
    if (parts.length > MAX_PARTS) {
      throw new RangeError(`A transcript of ${transcript.length} bytes is ${parts.length} parts, over ${MAX_PARTS}.`);
    }
    // The bytes first, invisible until the pause item that names them exists: its object, or its parts.
    if (inObject) await this.#bucket(record).put(objectKeyOf(record), transcript, record.transcript.sha256);
    await forEachLimited(parts, PART_CONCURRENCY, (data, index) =>
      this.#call(() =>
        this.#client.send(new PutCommand(params.putPart(this.#tableName, partItem(record, index, data, ttl)))),
      ),
    );
    try {
      await this.#client.send(new PutCommand(params.createPause(this.#tableName, pauseItem(record, ttl))));
      return 'created';
    } catch (error) {
      // Any other error may hide a write that succeeded: its bytes stay (their TTL, or the bucket's lifecycle, removes
      // them if it did not).
      if (!isConditionFailed(error)) throw storageError(error);
    }
    if (inObject)
      await this.#bucket(record)
        .delete(objectKeyOf(record))
        .catch(() => undefined);
    else await this.#deleteParts(record, parts.length);
    return 'taken';
  }

  async read(key: RecordKey, transcript?: TranscriptRead): Promise<StoredPause | undefined> {
    const hinted = partsOfHint(transcript?.hint);
    // With the id's hint, the pause item and every part in one request, or the pause item and its object side by
    // side; without, the pause item names where its transcript is.
    const object =
      transcript?.hint === OBJECT_HINT && this.#objects !== undefined
        ? this.#objects.get(objectKeyOf({ ...key, token: transcript.token })).catch((error: unknown) => error)
        : undefined;
    const items =
      transcript === undefined || hinted === undefined
        ? await this.#getPause(key)
        : await this.#batchGet(params.getPauseWithParts(this.#tableName, key, transcript.token, hinted));
    const pauseSk = Keys.pause(key.seq);
    const raw = items.find((item) => item.sk === pauseSk);
    if (raw === undefined) return undefined;
    const names = { runId: key.runId, interruptId: idOfItem(raw, key.seq) };
    const record = recordOf(raw, names);
    if (transcript === undefined || record.token !== transcript.token) return { record };
    const place = transcriptPlaceOf(raw);
    if ('objectKey' in place) return { record, transcript: await this.#readObject(record, object) };
    const count = place.parts;
    const parts: Array<Uint8Array | undefined> = [];
    const collect = (found: readonly Item[]) => {
      for (const item of found) {
        const sk = parseSortKey(item.sk);
        if (sk.kind === 'part' && sk.token === record.token && sk.index < count)
          parts[sk.index] = partData(item, names);
      }
    };
    collect(items);
    // Parts the hint did not name (no hint, or another's): a second request, by the count the pause item holds.
    const unasked = Array.from({ length: count }, (_, index) => index).filter((index) => index >= (hinted ?? 0));
    if (unasked.length > 0) {
      const keys = params.partKeys(key, record.token, unasked);
      for (const input of params.getKeys(this.#tableName, keys)) collect(await this.#batchGet(input));
    }
    const joined = joinParts(parts, count);
    if ('missing' in joined) {
      // Its parts moved to the bucket after the item was read (`archive`): the item, read again, names the object.
      const [now] = await this.#getPause(key);
      if (now !== undefined && now.token === record.token && 'objectKey' in transcriptPlaceOf(now)) {
        return { record, transcript: await this.#readObject(record, undefined) };
      }
      throw new CorruptCheckpointError(key.runId, names.interruptId, `part ${joined.missing} of ${count} is missing`);
    }
    return { record, transcript: joined.bytes };
  }

  /**
   * Moves a closed pause's transcript from its parts to the bucket (§23), when it is at least
   * `ARCHIVE_TRANSCRIPT_BYTES` compressed: a closed pause is read rarely but kept the whole retention, where a year of
   * the table's storage and point-in-time recovery costs more than the move and S3's storage (parts.ts). The lifecycle
   * stream calls it on each change that leaves a pause closed with its transcript in parts.
   *
   * The object is written first, with the parts' bytes checked against the item's length and SHA-256; the item then
   * names it (`params.archivePause`: only while it still names its parts, at whatever revision: the move changes where
   * the bytes are, not what the pause is), and last the parts are deleted. The pause's id does not change: the item
   * keeps its part count, the id's read hint, and every read follows the item to the object (a reader that read the
   * item before the move and finds its parts gone reads the item again). Safe to repeat, as a stream delivers at least
   * once: a move that finds the item naming its object deletes what parts are left and answers `archived`.
   */
  async archive(key: RecordKey): Promise<ArchiveOutcome> {
    if (this.#objects === undefined) return 'no-bucket';
    const [raw] = await this.#getPause(key);
    if (raw === undefined) return 'gone';
    const names = { runId: key.runId, interruptId: idOfItem(raw, key.seq) };
    const record = recordOf(raw, names);
    const place = transcriptPlaceOf(raw);
    if ('objectKey' in place) {
      if (place.parts !== undefined) await this.#deleteParts(record, place.parts);
      return place.parts === undefined ? 'in-bucket' : 'archived';
    }
    if (record.closing === undefined) return 'open';
    if (record.transcript.byteLength < ARCHIVE_TRANSCRIPT_BYTES) return 'small';
    const count = place.parts;
    const parts: Array<Uint8Array | undefined> = [];
    const indexes = Array.from({ length: count }, (_, index) => index);
    for (const input of params.getKeys(this.#tableName, params.partKeys(key, record.token, indexes))) {
      for (const item of await this.#batchGet(input)) {
        const sk = parseSortKey(item.sk);
        if (sk.kind === 'part' && sk.token === record.token && sk.index < count)
          parts[sk.index] = partData(item, names);
      }
    }
    const joined = joinParts(parts, count);
    if ('missing' in joined) {
      // Another move went first and deleted them; else the pause is broken, and its bytes are not moved anywhere.
      const [now] = await this.#getPause(key);
      if (now?.token === record.token && 'objectKey' in transcriptPlaceOf(now)) return 'archived';
      throw new CorruptCheckpointError(key.runId, names.interruptId, `part ${joined.missing} of ${count} is missing`);
    }
    const bytes = joined.bytes;
    if (bytes.length !== record.transcript.byteLength || sha256(bytes) !== record.transcript.sha256) {
      throw new CorruptCheckpointError(key.runId, names.interruptId, 'its parts are not the transcript its item names');
    }
    const objectKey = objectKeyOf(record);
    await this.#objects.put(objectKey, bytes, record.transcript.sha256);
    const { UpdateCommand } = await commands();
    const target = { ...key, token: record.token, chunkCount: count };
    try {
      await this.#client.send(
        new UpdateCommand(params.archivePause(this.#tableName, target, objectKey, OBJECT_SCHEMA_VERSION)),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw storageError(error);
      const [now] = await this.#getPause(key);
      // Another move named the object first; or the item is gone (TTL) or another attempt's, and the object with it.
      if (now?.token !== record.token || !('objectKey' in transcriptPlaceOf(now))) {
        await this.#objects.delete(objectKey).catch(() => undefined);
        return 'gone';
      }
    }
    await this.#deleteParts(record, count);
    return 'archived';
  }

  async update(before: PauseRecord, after: PauseRecord): Promise<'updated' | 'conflict'> {
    const { UpdateCommand } = await commands();
    try {
      await this.#client.send(new UpdateCommand(params.updatePause(this.#tableName, before, after)));
      return 'updated';
    } catch (error) {
      // The embedded store ignores ReturnValuesOnConditionCheckFailure: the caller reads again.
      if (isConditionFailed(error)) return 'conflict';
      throw storageError(error);
    }
  }

  async list(query: ListQuery): Promise<ListPage> {
    const listing: Listing = query.openOnly ? 'open' : 'all';
    const start = query.cursor === undefined ? undefined : decodeCursor(query.cursor, query.tenant, listing);
    const { QueryCommand } = await commands();
    const partitions = Keys.listingShards(query.tenant);
    // §21: from the pauses made before `createdBefore` (an index key begins with its createdAt), or the cursor's.
    const cursorKey = start?.key.gsi1sk;
    const bound =
      query.createdBefore === undefined || (cursorKey !== undefined && cursorKey < query.createdBefore)
        ? cursorKey
        : query.createdBefore;
    const index = listing === 'open' ? TABLE.openByTenant : TABLE.byTenant;
    // Each shard not exhausted, from the cursor's position on, merged newest first (`listing-merge.ts`).
    const merged = await mergeShards(
      partitions.length,
      start?.done ?? new Set(),
      query.limit,
      async (shard, limit) => {
        const partition = partitions[shard] as string;
        const output = await this.#call(() =>
          this.#client.send(new QueryCommand(params.listingPage(this.#tableName, partition, listing, limit, bound))),
        );
        const entries = (output.Items ?? []).map((item) => ({
          partition,
          gsi1sk: String(item[index.sortKey.name]),
          pk: String(item[TABLE.partitionKey.name]),
          sk: String(item[TABLE.sortKey.name]),
        }));
        return { entries, more: output.LastEvaluatedKey !== undefined };
      },
      (a, b) => (a.gsi1sk < b.gsi1sk ? 1 : a.gsi1sk > b.gsi1sk ? -1 : 0),
    );
    const positions = merged.taken.map(({ entry }) => entry);
    // The index is eventually consistent (and the embedded store writes an index entry before its item, so a crash can
    // leave one behind): every pause is read again from the table by key, each key once — two entries may name one
    // pause, and DynamoDB refuses a BatchGetItem with a key twice — and an entry is shown only when the pause it names
    // is still there, this tenant's, at that place in this index: a stale entry (a pause gone, written again under
    // another listing key, or closed since) is stepped over, so each pause appears once, where it now sorts.
    const keys = new Map(
      positions.map((position) => [
        `${position.pk}\n${position.sk}`,
        { [TABLE.partitionKey.name]: position.pk, [TABLE.sortKey.name]: position.sk },
      ]),
    );
    const batches = await Promise.all(
      params.getKeys(this.#tableName, [...keys.values()]).map((input) => this.#batchGet(input)),
    );
    const byKey = new Map(batches.flat().map((item) => [`${String(item.pk)}\n${String(item.sk)}`, item]));
    const entries: ListPage['entries'] = [];
    // An entry's cursor: its position, and the shards done before this page (a later one may still have entries
    // before the page's end).
    const before = start?.done ?? new Set<number>();
    for (const position of positions) {
      const raw = byKey.get(`${position.pk}\n${position.sk}`);
      if (raw === undefined || !isListedAt(raw, position, query.tenant, listing)) continue;
      const sk = parseSortKey(position.sk);
      const seq = sk.kind === 'pause' ? sk.seq : 0;
      entries.push({
        record: recordOf(raw, { runId: String(raw.runId), interruptId: idOfItem(raw, seq) }),
        after: encodeCursor(position, listing, before),
      });
    }
    const last = positions.at(-1);
    return merged.more && last !== undefined
      ? { entries, next: encodeCursor(last, listing, merged.done) }
      : { entries };
  }

  async due(nowMs: number, limit: number): Promise<RecordKey[]> {
    const { QueryCommand } = await commands();
    const pages = await Promise.all(
      Keys.dueShards().map((shard) =>
        this.#call(() => this.#client.send(new QueryCommand(params.duePage(this.#tableName, shard, nowMs, limit)))),
      ),
    );
    const due: Array<RecordKey & { at: number }> = [];
    for (const page of pages) {
      for (const item of page.Items ?? []) {
        const run = parseRunKey(item[TABLE.partitionKey.name]);
        const sk = parseSortKey(item[TABLE.sortKey.name]);
        if (run === undefined || sk.kind !== 'pause') continue;
        due.push({ ...run, seq: sk.seq, at: Number(item[TABLE.byDue.sortKey.name]) });
      }
    }
    return due
      .sort((a, b) => a.at - b.at)
      .slice(0, limit)
      .map(({ tenant, runId, seq }) => ({ tenant, runId, seq }));
  }

  /**
   * A record's transcript from the bucket (`fetching`: the get started beside the item's read, when the id's hint
   * named the object), checked against the pause item: its length and SHA-256 must be the ones the item holds. An
   * object that is missing or not those bytes is a `StorageUnavailableError` (503), never a transcript: the item, which
   * decides, was written after its object, so its object's bytes are the item's or the bucket is not answering right.
   */
  async #readObject(record: PauseRecord, fetching: Promise<unknown> | undefined): Promise<Uint8Array> {
    const got = await (fetching ??
      this.#bucket(record)
        .get(objectKeyOf(record))
        .catch((error: unknown) => error));
    if (got !== undefined && !(got instanceof Uint8Array)) throw got;
    const id = interruptIdOf(record);
    const refuse = (why: string) =>
      new StorageUnavailableError(
        `The transcript of pause ${id} of run ${record.runId} ${why}: it is not served. Retry later; if it persists, the bucket's object was changed or removed.`,
      );
    if (got === undefined) throw refuse('is missing from the bucket');
    if (got.length !== record.transcript.byteLength) {
      throw refuse(`is ${got.length} bytes in the bucket where its pause item says ${record.transcript.byteLength}`);
    }
    if (sha256(got) !== record.transcript.sha256)
      throw refuse('in the bucket does not have the SHA-256 its pause item holds');
    return got;
  }

  /** The transcript objects, which a record kept in the bucket needs; without them it cannot be served. */
  #bucket(record: PauseRecord): TranscriptObjects {
    if (this.#objects !== undefined) return this.#objects;
    throw new StorageUnavailableError(
      `The transcript of pause ${interruptIdOf(record)} of run ${record.runId} is in the transcript bucket, which this store was not given (objects): configure the bucket (TRANSCRIPT_BUCKET).`,
    );
  }

  #ttlOf(record: PauseRecord): number {
    return Math.ceil(record.expiresAtMs / 1000) + this.#retentionSeconds;
  }

  /** The pause item alone, strongly consistent (as a list, as `#batchGet` answers). */
  async #getPause(key: RecordKey): Promise<Item[]> {
    const { GetCommand } = await commands();
    const output = await this.#call(() => this.#client.send(new GetCommand(params.getPause(this.#tableName, key))));
    return output.Item === undefined ? [] : [output.Item];
  }

  /**
   * A BatchGetItem of one table (at most 100 keys: `params.getKeys`), asking again for the keys DynamoDB left
   * unprocessed: at once while each answer brings items (a response holds at most 16 MB on AWS, about 1 MB on the
   * embedded store), after an exponential backoff with full jitter when one brings none (throttling), giving up as
   * `StorageUnavailableError` after a few such answers in a row. The items found, in no order.
   */
  async #batchGet(input: BatchGetCommandInput): Promise<Item[]> {
    const { BatchGetCommand } = await commands();
    const items: Item[] = [];
    let request: BatchGetCommandInput['RequestItems'] | undefined = input.RequestItems;
    let idle = 0;
    while (request !== undefined && Object.keys(request).length > 0) {
      if (idle > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * BACKOFF_MS * 2 ** idle));
      const pending: NonNullable<BatchGetCommandInput['RequestItems']> = request;
      const output = await this.#call(() => this.#client.send(new BatchGetCommand({ RequestItems: pending })));
      const found = output.Responses?.[this.#tableName] ?? [];
      items.push(...found);
      idle = found.length > 0 ? 0 : idle + 1;
      if (idle >= UNPROCESSED_ROUNDS) throw new StorageUnavailableError();
      request = output.UnprocessedKeys;
    }
    return items;
  }

  /**
   * Deletes the parts of an attempt that lost its sequence number, or whose bytes moved to the bucket; best effort,
   * their TTL removes what is left.
   */
  async #deleteParts(record: PauseRecord, count: number): Promise<void> {
    const indexes = Array.from({ length: count }, (_, index) => index);
    const { DeleteCommand } = await commands();
    await forEachLimited(indexes, PART_CONCURRENCY, (index) =>
      this.#client
        .send(new DeleteCommand(params.deletePart(this.#tableName, record, record.token, index)))
        .catch(() => undefined),
    );
  }

  /** Runs one request; an SDK error becomes `StorageUnavailableError` when the table did not answer (in time). */
  async #call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw storageError(error);
    }
  }
}

/**
 * Whether `item`, read by the key of an index entry at `position`, is a pause of `tenant` that `listing`'s index holds at
 * that position now: the entry is not a stale one.
 */
function isListedAt(
  item: Item,
  position: ListingKey & { partition: string },
  tenant: string,
  listing: Listing,
): boolean {
  if (item.kind !== ItemKind.Pause || item.tenant !== tenant) return false;
  if (item[TABLE.byTenant.sortKey.name] !== position.gsi1sk) return false;
  const index = listing === 'open' ? TABLE.openByTenant : TABLE.byTenant;
  return item[index.partitionKey.name] === position.partition;
}

function isConditionFailed(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException';
}

/** Runs `task` over `items`, at most `limit` at once; rejects with the first failure. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
