import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
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
  collectParts,
  type Item,
  ItemKind,
  idOfItem,
  objectKeyOf,
  partItem,
  pauseItem,
  recordOf,
  transcriptPlaceOf,
} from './items.ts';
import { Keys, parseRunKey, parseSortKey } from './keys.ts';
import * as params from './params.ts';
import { hintOf, joinParts, layoutOf, MAX_PARTS, OBJECT_HINT, partsOfHint, splitParts } from './parts.ts';
import {
  batchGetItems,
  call,
  commands,
  deleteParts,
  forEachLimited,
  getPauseItem,
  isConditionFailed,
  PART_CONCURRENCY,
  type TableClient,
} from './requests.ts';

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

const DEFAULT_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/**
 * The persistence port on one DynamoDB table (see `keys.ts` for the layout): keys, parts (`parts.ts`: a transcript
 * cut under the 400 KB item limit, its part count the read hint in ids), cursors and condition expressions live here,
 * command inputs come from `params.ts`, the requests of many items from `requests.ts` (shared with `archive.ts`, which moves
 * closed transcripts to the bucket), and SDK errors never leak — a condition that failed is an answer of the port
 * (`taken`, `conflict`), a table that does not answer in time is a `StorageUnavailableError`.
 */
export class DynamoDBPersistence implements CheckpointPersistence {
  readonly #table: TableClient;
  readonly #retentionSeconds: number;
  readonly #objects: TranscriptObjects | undefined;

  constructor(options: DynamoDBPersistenceOptions) {
    this.#table = { client: options.client, tableName: options.tableName };
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
      const output = await call(() =>
        this.#table.client.send(new QueryCommand(params.latestPause(this.#table.tableName, pk, below))),
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
      call(() =>
        this.#table.client.send(
          new PutCommand(params.putPart(this.#table.tableName, partItem(record, index, data, ttl))),
        ),
      ),
    );
    try {
      await this.#table.client.send(new PutCommand(params.createPause(this.#table.tableName, pauseItem(record, ttl))));
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
    else await deleteParts(this.#table, record, parts.length);
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
        ? await getPauseItem(this.#table, key)
        : await batchGetItems(
            this.#table,
            params.getPauseWithParts(this.#table.tableName, key, transcript.token, hinted),
          );
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
    collectParts(items, record.token, count, names, parts);
    // Parts the hint did not name (no hint, or another's): a second request, by the count the pause item holds.
    const unasked = Array.from({ length: count }, (_, index) => index).filter((index) => index >= (hinted ?? 0));
    if (unasked.length > 0) {
      const keys = params.partKeys(key, record.token, unasked);
      for (const input of params.getKeys(this.#table.tableName, keys)) {
        collectParts(await batchGetItems(this.#table, input), record.token, count, names, parts);
      }
    }
    const joined = joinParts(parts, count);
    if ('missing' in joined) {
      // Its parts moved to the bucket after the item was read (`archiveTranscript`): the item, read again, names the object.
      const [now] = await getPauseItem(this.#table, key);
      if (now !== undefined && now.token === record.token && 'objectKey' in transcriptPlaceOf(now)) {
        return { record, transcript: await this.#readObject(record, undefined) };
      }
      throw new CorruptCheckpointError(key.runId, names.interruptId, `part ${joined.missing} of ${count} is missing`);
    }
    return { record, transcript: joined.bytes };
  }

  async update(before: PauseRecord, after: PauseRecord): Promise<'updated' | 'conflict'> {
    const { UpdateCommand } = await commands();
    try {
      await this.#table.client.send(new UpdateCommand(params.updatePause(this.#table.tableName, before, after)));
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
        const output = await call(() =>
          this.#table.client.send(
            new QueryCommand(params.listingPage(this.#table.tableName, partition, listing, limit, bound)),
          ),
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
      params.getKeys(this.#table.tableName, [...keys.values()]).map((input) => batchGetItems(this.#table, input)),
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
        call(() =>
          this.#table.client.send(new QueryCommand(params.duePage(this.#table.tableName, shard, nowMs, limit))),
        ),
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
