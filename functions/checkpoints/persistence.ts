import type { PauseRecord, RecordKey } from './record.ts';

/**
 * The persistence port (STYLE 3b): the handful of primitives a backend implements. The rules — what may be paused,
 * decided, replayed, closed, expired — live above it in `checkpoint-service.ts`; a backend only reads and writes
 * records, and makes each write conditional as its method says. Every read is strongly consistent: a record is read
 * from the store on the call that needs it, never from a cache.
 *
 * Adapters: `dynamodb/dynamodb-persistence.ts` (the table) and `memory.ts` (for the rules' fast tests). One spec
 * suite (`test/checkpoints/spec/`) runs against both.
 */
export interface CheckpointPersistence {
  /** The run's latest pause record, or undefined for a run that never paused. */
  latest(tenant: string, runId: string): Promise<PauseRecord | undefined>;

  /**
   * Writes a new pause: its transcript `parts` first, then the record, which makes them visible — only if no record
   * holds `record.seq` in its run yet. `taken` when one does (a concurrent pause won the number); the parts written
   * are then removed on a best-effort basis.
   */
  create(record: PauseRecord, parts: readonly Uint8Array[]): Promise<'created' | 'taken'>;

  /**
   * Reads one record, and its transcript's parts when `transcript` names them (the record's token and part count,
   * from the id the caller holds): one request where the backend can. Undefined when there is no record.
   */
  read(key: RecordKey, transcript?: TranscriptRef): Promise<StoredPause | undefined>;

  /**
   * Replaces `before` by `after` only if the stored record still has `before.rev`; `after.rev` is `before.rev + 1`.
   * Writes only what changed. `conflict` when another write came first: read again and decide again.
   */
  update(before: PauseRecord, after: PauseRecord): Promise<'updated' | 'conflict'>;

  /**
   * A page of the tenant's pauses, newest first: all of them, or only those whose stored status is `paused`. Every
   * record returned was read strongly consistent after the listing, so none is one a `read` would not find.
   */
  list(query: ListQuery): Promise<ListPage>;

  /** Keys of records whose `dueAtMs` is at most `nowMs`, at most `limit` of them, earliest first where possible. */
  due(nowMs: number, limit: number): Promise<RecordKey[]>;
}

/** Which transcript parts to read with a record: those its write attempt (`token`) stored, `parts` of them. */
export interface TranscriptRef {
  token: string;
  parts: number;
}

/** A record and, when they were asked for, its transcript's parts (an index with no part read stays undefined). */
export interface StoredPause {
  record: PauseRecord;
  parts?: Array<Uint8Array | undefined>;
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
  /** Records to return at most. */
  limit: number;
  /** The backend's cursor from the previous page; opaque to the rules, checked by the backend. */
  cursor?: string;
}
