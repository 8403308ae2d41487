import type { PauseRecord, RecordKey } from './record.ts';

export type { TranscriptHeader } from './codec.ts';
export type { PauseRecord, RecordKey } from './record.ts';

/**
 * The persistence port: the handful of primitives a backend implements. The rules — what may be paused,
 * decided, replayed, closed, expired — live above it in `checkpoint-service.ts`; a backend only reads and writes
 * records and their transcripts, and makes each write conditional as its method says. Every read is strongly
 * consistent: a record is read from the store on the call that needs it, never from a cache.
 *
 * A transcript reaches the port as one `Uint8Array`, compressed and hashed by the service's codec (its header, with
 * the length and sha256 the service checks on every read, is `record.transcript`). How a backend lays the bytes out —
 * one row, or parts under an item size limit — is its own; so is the read hint it asks the ids to carry.
 *
 * Adapters: `dynamodb/dynamodb-persistence.ts` (the table) and `memory.ts` (for the rules' fast tests). One spec
 * suite (`handback/testing`, `functions/testing/`) runs against both, and against a user's own.
 */
export interface CheckpointPersistence {
  /**
   * The read hint of a transcript of `byteLength` compressed bytes, pure: 1–16 ASCII letters and digits, carried as
   * the middle of every public id of its pause (`<seq>.<hint>.<token>`) and handed back to `read` by a caller that
   * holds the id, so that the backend can read the record and its transcript in one request (the DynamoDB adapter:
   * the number of parts it writes, the keys of one BatchGetItem). Opaque to the rules: they store it on the record
   * (`record.readHint`) and compare an id's with it, nothing else. A backend that needs none returns a constant.
   */
  readHint(byteLength: number): string;

  /** The run's latest pause record, or undefined for a run that never paused. */
  latest(tenant: string, runId: string): Promise<PauseRecord | undefined>;

  /**
   * Writes a new pause: its transcript's bytes and the record, made visible together (a reader never sees one without
   * the other) — only if no record holds `record.seq` in its run yet. `taken` when one does (a concurrent pause won
   * the number); whatever of the transcript was written is then removed on a best-effort basis.
   * `record.readHint` is `readHint(transcript.length)`.
   */
  create(record: PauseRecord, transcript: Uint8Array): Promise<'created' | 'taken'>;

  /**
   * Reads one record; undefined when there is none. With `transcript`, also the record's transcript bytes, as
   * written — only when the stored record's `token` is `transcript.token` (a transcript of another write attempt is
   * never returned). `transcript.hint`, the read hint from the id the caller holds, lets the backend do both in one
   * request; a hint that is not the record's costs it more requests, never a wrong answer.
   */
  read(key: RecordKey, transcript?: TranscriptRead): Promise<StoredPause | undefined>;

  /**
   * Replaces `before` by `after` only if the stored record still has `before.rev` (and `before.token`); `after.rev` is
   * `before.rev + 1`. Writes only what changed; the transcript never changes. `conflict` when another write came
   * first: read again and decide again.
   */
  update(before: PauseRecord, after: PauseRecord): Promise<'updated' | 'conflict'>;

  /**
   * A page of the tenant's pauses, newest first (by `createdAt`, then the order they were created in): all of them,
   * or only those whose stored status is `paused`; made before `createdBefore`, when given. Every record returned was read strongly consistent after the
   * listing, so none is one a `read` would not find.
   */
  list(query: ListQuery): Promise<ListPage>;

  /** Keys of records whose `dueAtMs` is at most `nowMs`, at most `limit` of them, earliest first where possible. */
  due(nowMs: number, limit: number): Promise<RecordKey[]>;
}

/** What a read that wants the transcript knows from the id the caller holds. */
export interface TranscriptRead {
  /** The record's `token`, as the id names it. */
  token: string;
  /** The id's read hint, when the caller holds one (`CheckpointPersistence.readHint`). */
  hint?: string;
}

/**
 * A record and, when it was asked for and the record is the write attempt asked for, its transcript's bytes as
 * `create` was given them. A backend that finds them broken (a part missing) throws `CorruptCheckpointError`.
 */
export interface StoredPause {
  record: PauseRecord;
  transcript?: Uint8Array;
}

/** A page of a listing: each record with the cursor that continues right after it, and the page's own cursor. */
export interface ListPage {
  entries: Array<{ record: PauseRecord; after: string }>;
  /** The cursor after the whole page (it may have stepped over entries that vanished), when more may follow. */
  next?: string;
}

/** What `list` pages through. */
export interface ListQuery {
  tenant: string;
  /** Only records whose stored status is `paused` (from a sparse index, where the backend has one). */
  openOnly: boolean;
  /** Records to return at most, 1–101 (the service asks one more than a page of 100, to know whether more follow). */
  limit: number;
  /** The backend's cursor from the previous page; opaque to the rules, checked by the backend. */
  cursor?: string;
  /**
   * Start with the pauses made before this instant (an ISO instant, as `createdAt` is written), §21's window: a
   * backend whose listing cannot start there may list newer ones too (the rules step over them), at a cost in reads.
   */
  createdBefore?: string;
}
