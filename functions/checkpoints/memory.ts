import { BadRequestError } from '../errors.ts';
import { Status } from '../vocabulary.ts';
import type { CheckpointPersistence, ListPage, ListQuery, StoredPause, TranscriptRead } from './persistence.ts';
import type { PauseRecord, RecordKey } from './record.ts';

/**
 * The in-memory persistence: the port's primitives over a `Map`, for the rules' fast tests and for trying the library
 * without a table. Records are copied in and out (structured clones), so no caller can change a stored record
 * by holding on to an object; each write is atomic because nothing awaits between its check and its change. A
 * transcript is kept whole beside its record (no item limit here), so the read hint is a constant.
 */
export class MemoryPersistence implements CheckpointPersistence {
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
    const after = query.cursor === undefined ? undefined : readCursor(query.cursor, query.tenant);
    // Newest first: by createdAt, then by write order; the cursor is the position of the last record returned.
    const position = (key: string, record: PauseRecord): [string, number] => [
      record.createdAt,
      this.#orderOf.get(key) ?? 0,
    ];
    const isAfter = ([at, order]: [string, number], [cAt, cOrder]: [string, number]) =>
      at < cAt || (at === cAt && order < cOrder);
    const matching = [...this.#records.entries()]
      .filter(([, record]) => record.tenant === query.tenant && (!query.openOnly || record.status === Status.Paused))
      .filter(([, record]) => query.createdBefore === undefined || record.createdAt < query.createdBefore)
      .map(([key, record]) => ({ record, at: position(key, record) }))
      .filter(({ at }) => after === undefined || isAfter(at, after))
      .sort((a, b) => (isAfter(a.at, b.at) ? 1 : -1));
    const page = matching.slice(0, query.limit);
    const entries = page.map(({ record, at }) => ({
      record: structuredClone(record),
      after: writeCursor(query.tenant, at),
    }));
    const last = entries.at(-1);
    return matching.length > page.length && last !== undefined ? { entries, next: last.after } : { entries };
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

function writeCursor(tenant: string, at: [string, number]): string {
  return Buffer.from(JSON.stringify([tenant, ...at])).toString('base64url');
}

function readCursor(cursor: string, tenant: string): [string, number] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    parsed[0] !== tenant ||
    typeof parsed[1] !== 'string' ||
    typeof parsed[2] !== 'number'
  ) {
    throw new BadRequestError(
      "The cursor is not a cursor of this listing: pass the previous page's cursor unchanged.",
      [{ path: '/cursor', message: 'is not a cursor of this listing' }],
    );
  }
  return [parsed[1], parsed[2]];
}
