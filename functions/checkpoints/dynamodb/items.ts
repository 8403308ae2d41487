import { CorruptCheckpointError, UnsupportedRecordError } from '../../errors.ts';
import { FORMAT_NAMES, isOneOf, ON_EXPIRY, OUTCOMES, Status } from '../../vocabulary.ts';
import type { NotifyEntry, Principal } from '../../wire.ts';
import { Codec } from '../codec.ts';
import { isLibrary, LIBRARY_PRINCIPAL } from '../identity.ts';
import { formatId } from '../ids.ts';
import type { Ask, Closing, PauseRecord, RecordedDecision, RecordedExecution, RecordedVote } from '../record.ts';
import { TABLE } from '../table.ts';
import { Keys, parseSortKey } from './keys.ts';
import { hintOf, MAX_PARTS, OBJECT_HINT, partsOfHint } from './parts.ts';

/**
 * Records as DynamoDB items and back, pure. Every item carries `v`, the schema version: a reader that meets a newer
 * version (or a status, format or codec it does not know) says so with `UnsupportedRecordError` — retryable, as during
 * a rolling deploy — and one that is missing what it relies on is a `CorruptCheckpointError`, never guessed at. JSON
 * values the user gave (asks with their args and schemas, metadata, decisions) are stored as their JSON text:
 * DynamoDB numbers cannot hold every JavaScript number (1e300), and text keeps them exactly as given.
 */

/**
 * The schema version of the items this code writes with the transcript in parts, and of every part item. A pause item
 * whose transcript is in the bucket is `OBJECT_SCHEMA_VERSION`, so a reader that predates the bucket says it cannot
 * read it (retryable, as in a rolling deploy) rather than finding no parts.
 */
export const SCHEMA_VERSION = 2;

/** The schema version of a pause item whose transcript is an object in the bucket (`objectKey`); the newest read. */
export const OBJECT_SCHEMA_VERSION = 3;

/** The item kinds of the table. */
export const ItemKind = { Pause: 'pause', Part: 'part' } as const;

/** A stored item: attribute name → value, as the document client reads and writes it. */
export type Item = Record<string, unknown>;

/** The attribute of decision `index` (0–15): each is written once, by the request that records it. */
export function decisionAttribute(index: number): string {
  return `d${index}`;
}

/** The attribute of the votes on ask `index` (0–15), for asks with a quorum (§13). */
export function votesAttribute(index: number): string {
  return `w${index}`;
}

/** The attribute of the execution of ask `index` (0–15), once its dispatched call is claimed (§19). */
export function executionAttribute(index: number): string {
  return `x${index}`;
}

/**
 * The pause item of `record`; `ttl` is epoch seconds after which DynamoDB may delete it. Where its transcript is is
 * the adapter's own attribute, the record carries it only as its read hint: `chunkCount`, the number of parts it is
 * written in, or `objectKey`, the object in the bucket (whose length and SHA-256 are the transcript header's).
 */
export function pauseItem(record: PauseRecord, ttl: number): Item {
  const pk = Keys.run(record.tenant, record.runId);
  const base = { pk, sk: Keys.pause(record.seq), kind: ItemKind.Pause, ttl };
  if (record.readHint === OBJECT_HINT) {
    const objectKey = objectKeyOf(record);
    return { ...base, v: OBJECT_SCHEMA_VERSION, objectKey, ...attributesOf(record, pk) };
  }
  const chunkCount = partsOfHint(record.readHint);
  if (chunkCount === undefined) throw new RangeError(`The read hint ${record.readHint} is not a part count.`);
  return { ...base, v: SCHEMA_VERSION, chunkCount, ...attributesOf(record, pk) };
}

/** The service that removes items whose TTL passed, as the table's stream records name it (`userIdentity`). */
export const TTL_REMOVER = { type: 'Service', principalId: 'dynamodb.amazonaws.com' } as const;

/** The object key of a record's transcript in the bucket. */
export function objectKeyOf(record: Pick<PauseRecord, 'tenant' | 'runId' | 'seq' | 'token'>): string {
  return Keys.object(record.tenant, record.runId, record.seq, record.token);
}

/** The item of part `index` of a pause's transcript. */
export function partItem(record: PauseRecord, index: number, data: Uint8Array, ttl: number): Item {
  return {
    pk: Keys.run(record.tenant, record.runId),
    sk: Keys.part(record.seq, record.token, index),
    v: SCHEMA_VERSION,
    kind: ItemKind.Part,
    data,
    ttl,
  };
}

/**
 * Every attribute a record sets, derived ones included (the indexes' keys): a write of `after` over `before` sets the
 * attributes whose value changed and removes those that are gone. The layout's own (`chunkCount`, `ttl`) are written
 * once, with the item, and never change.
 */
export function attributesOf(record: PauseRecord, pk = Keys.run(record.tenant, record.runId)): Item {
  // One shard for both listings: a pause is in the same partition of each while it is in both.
  const listingPk = Keys.listingShard(record.tenant, Keys.listingShardOf(pk, record.seq));
  const item: Item = {
    tenant: record.tenant,
    runId: record.runId,
    seq: record.seq,
    token: record.token,
    format: record.format,
    asks: JSON.stringify(record.asks),
    createdAt: record.createdAt,
    expiresAt: new Date(record.expiresAtMs).toISOString(),
    expiresAtMs: record.expiresAtMs,
    onExpiry: record.onExpiry,
    status: record.status,
    rev: record.rev,
    codec: record.transcript.codec,
    byteLength: record.transcript.byteLength,
    rawLength: record.transcript.rawLength,
    sha256: record.transcript.sha256,
    ...(record.transcript.round === undefined
      ? {}
      : { roundIndex: record.transcript.round.index, roundOffset: record.transcript.round.offset }),
    [TABLE.byTenant.partitionKey.name]: listingPk,
    [TABLE.byTenant.sortKey.name]: Keys.listing(record.createdAt, record.runId, record.seq),
  };
  // Sparse indexes: a pause is listed as open, and swept, only while it is.
  if (record.status === Status.Paused) item[TABLE.openByTenant.partitionKey.name] = listingPk;
  if (record.dueAtMs !== undefined) {
    item[TABLE.byDue.partitionKey.name] = Keys.due(pk);
    item[TABLE.byDue.sortKey.name] = record.dueAtMs;
  }
  record.decisions.forEach((decision, index) => {
    if (decision !== undefined) item[decisionAttribute(index)] = JSON.stringify(decision);
  });
  record.votes?.forEach((votes, index) => {
    if (votes !== undefined && votes.length > 0) item[votesAttribute(index)] = JSON.stringify(votes);
  });
  record.executions?.forEach((execution, index) => {
    if (execution !== undefined) item[executionAttribute(index)] = JSON.stringify(execution);
  });
  // The library's principal is what a pause item without one reads as: not stored, so a library pause costs no bytes.
  if (!isLibrary(record.pausedBy)) item.pausedBy = JSON.stringify(record.pausedBy);
  if (record.fourEyes === true) item.fourEyes = true;
  if (record.handoffDue === true) item.handoffDue = true;
  if (record.metadata !== undefined) item.metadata = JSON.stringify(record.metadata);
  if (record.taskToken !== undefined) item.taskToken = record.taskToken;
  if (record.callbackId !== undefined) item.callbackId = record.callbackId;
  if (record.traceparent !== undefined) item.traceparent = record.traceparent;
  if (record.context !== undefined) item.context = JSON.stringify(record.context);
  if (record.notify !== undefined) item.notify = JSON.stringify(record.notify);
  if (record.remindAtMs !== undefined) item.remindAtMs = record.remindAtMs;
  if (record.remindedAt !== undefined) item.remindedAt = record.remindedAt;
  if (record.idempotency !== undefined) {
    item.idemKey = record.idempotency.key;
    item.idemHash = record.idempotency.hash;
  }
  if (record.closing !== undefined) {
    item.continuationId = record.closing.continuationId;
    item.closedAt = record.closing.closedAt;
    item.outcome = record.closing.outcome;
    item.continuationSha256 = record.closing.continuationSha256;
    if (record.closing.reason !== undefined) item.closeReason = record.closing.reason;
    if (record.closing.by !== undefined) item.closedBy = JSON.stringify(record.closing.by);
  }
  return item;
}

/** The changed attributes of `after` over `before`: what to SET (name → value) and what to REMOVE. */
export function changedAttributes(before: PauseRecord, after: PauseRecord): { set: Item; remove: string[] } {
  const old = attributesOf(before);
  const next = attributesOf(after);
  const set: Item = {};
  for (const [name, value] of Object.entries(next)) {
    if (old[name] !== value) set[name] = value;
  }
  const remove = Object.keys(old).filter((name) => !(name in next));
  return { set, remove };
}

/**
 * Reads a raw pause item into a record, checking every field a reader relies on. `runId` and `interruptId` name the
 * pause in errors (the caller's, since a broken item may not say).
 */
export function recordOf(raw: Item, names: { runId: string; interruptId: string }): PauseRecord {
  const corrupt = (reason: string) => new CorruptCheckpointError(names.runId, names.interruptId, reason);
  const newer = (what: string) => new UnsupportedRecordError(names.runId, names.interruptId, what);
  if (typeof raw.v === 'number' && raw.v > OBJECT_SCHEMA_VERSION) throw newer(`schema version ${raw.v}`);
  const inObject = raw.v === OBJECT_SCHEMA_VERSION;
  if (raw.v !== SCHEMA_VERSION && !inObject) {
    throw corrupt(
      `its pause item has schema version ${JSON.stringify(raw.v)}, which this version of Handback does not read`,
    );
  }
  if (raw.kind !== ItemKind.Pause) throw corrupt(`its pause item has kind ${JSON.stringify(raw.kind)}`);
  for (const name of [
    'tenant',
    'runId',
    'token',
    'format',
    'asks',
    'createdAt',
    'onExpiry',
    'status',
    'codec',
    'sha256',
  ]) {
    if (typeof raw[name] !== 'string') throw corrupt(`its pause item has no ${name}`);
  }
  for (const name of ['seq', 'rev', 'expiresAtMs', 'byteLength', 'rawLength']) {
    if (!Number.isSafeInteger(raw[name])) throw corrupt(`its pause item has no ${name}`);
  }
  if (inObject) {
    // The object is named by the pause's own keys: an item naming another is not this pause's transcript.
    if (typeof raw.objectKey !== 'string' || raw.objectKey !== objectKeyOf(raw as never)) {
      throw corrupt('its pause item does not name its transcript object');
    }
  }
  // An item written with its object has no part count; one whose parts moved to the bucket keeps it (its read hint).
  if (
    (!inObject || raw.chunkCount !== undefined) &&
    (!Number.isSafeInteger(raw.chunkCount) || (raw.chunkCount as number) < 1 || (raw.chunkCount as number) > MAX_PARTS)
  ) {
    throw corrupt(`its pause item names ${raw.chunkCount ?? 'no'} parts`);
  }
  if (!isOneOf(FORMAT_NAMES, raw.format)) throw newer(`format ${JSON.stringify(raw.format)}`);
  if (raw.codec !== Codec.Gzip && raw.codec !== Codec.Brotli) throw newer(`codec ${JSON.stringify(raw.codec)}`);
  if (!isOneOf(ON_EXPIRY, raw.onExpiry)) throw newer(`onExpiry ${JSON.stringify(raw.onExpiry)}`);
  const json = <T>(name: string): T | undefined => {
    const text = raw[name];
    if (text === undefined) return undefined;
    if (typeof text !== 'string') throw corrupt(`its pause item's ${name} is not text`);
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new CorruptCheckpointError(names.runId, names.interruptId, `its pause item's ${name} is not JSON`, {
        cause,
      });
    }
  };
  const asks = json<Ask[]>('asks');
  if (!Array.isArray(asks) || asks.length === 0 || asks.length > 16) throw corrupt('its pause item has no asks');
  const record: PauseRecord = {
    tenant: raw.tenant as string,
    runId: raw.runId as string,
    seq: raw.seq as number,
    token: raw.token as string,
    readHint: raw.chunkCount === undefined ? OBJECT_HINT : hintOf(raw.chunkCount as number),
    format: raw.format,
    asks,
    decisions: asks.map((_, index) => json<RecordedDecision>(decisionAttribute(index))),
    // Pauses recorded before principals were are the library's.
    pausedBy: json<Principal>('pausedBy') ?? LIBRARY_PRINCIPAL,
    createdAt: raw.createdAt as string,
    expiresAtMs: raw.expiresAtMs as number,
    onExpiry: raw.onExpiry,
    status: raw.status as string,
    rev: raw.rev as number,
    transcript: {
      codec: raw.codec,
      byteLength: raw.byteLength as number,
      rawLength: raw.rawLength as number,
      sha256: raw.sha256 as string,
    },
  };
  // Written since the resume parses the paused round alone; a pause item without them is read whole.
  if (Number.isSafeInteger(raw.roundIndex) && Number.isSafeInteger(raw.roundOffset)) {
    record.transcript.round = { index: raw.roundIndex as number, offset: raw.roundOffset as number };
  }
  const votes = asks.map((_, index) => json<RecordedVote[]>(votesAttribute(index)));
  if (votes.some((list) => list !== undefined)) record.votes = votes;
  const executions = asks.map((_, index) => json<RecordedExecution>(executionAttribute(index)));
  if (executions.some((execution) => execution !== undefined)) record.executions = executions;
  if (raw.fourEyes === true) record.fourEyes = true;
  if (raw.handoffDue === true) record.handoffDue = true;
  const metadata = json<Record<string, unknown>>('metadata');
  if (metadata !== undefined) record.metadata = metadata;
  const context = json<{ user?: string; assistant?: string }>('context');
  if (context !== undefined) record.context = context;
  const notify = json<NotifyEntry[]>('notify');
  if (notify !== undefined) record.notify = notify;
  if (typeof raw.taskToken === 'string') record.taskToken = raw.taskToken;
  if (typeof raw.callbackId === 'string') record.callbackId = raw.callbackId;
  if (typeof raw.traceparent === 'string') record.traceparent = raw.traceparent;
  if (typeof raw.remindAtMs === 'number') record.remindAtMs = raw.remindAtMs;
  if (typeof raw.remindedAt === 'string') record.remindedAt = raw.remindedAt;
  if (typeof raw.idemKey === 'string' && typeof raw.idemHash === 'string') {
    record.idempotency = { key: raw.idemKey, hash: raw.idemHash };
  }
  if (typeof raw.dueAtMs === 'number') record.dueAtMs = raw.dueAtMs;
  if (raw.continuationId !== undefined) {
    for (const name of ['continuationId', 'closedAt', 'outcome', 'continuationSha256']) {
      if (typeof raw[name] !== 'string') throw corrupt(`it is closed but its pause item has no ${name}`);
    }
    if (!isOneOf(OUTCOMES, raw.outcome)) {
      throw newer(`outcome ${JSON.stringify(raw.outcome)}`);
    }
    const closing: Closing = {
      continuationId: raw.continuationId as string,
      closedAt: raw.closedAt as string,
      outcome: raw.outcome as Closing['outcome'],
      continuationSha256: raw.continuationSha256 as string,
    };
    if (typeof raw.closeReason === 'string') closing.reason = raw.closeReason;
    const closedBy = json<Principal>('closedBy');
    if (closedBy !== undefined) closing.by = closedBy;
    record.closing = closing;
  } else if (raw.status === Status.Resumed || raw.status === Status.Cancelled) {
    throw corrupt(`it is ${raw.status} but its pause item has no continuation`);
  }
  return record;
}

/**
 * Where a pause item's transcript is (checked by `recordOf`): the number of parts it was written in, or the key of
 * its object in the bucket — with `parts`, the parts it was written in before they moved there (`archive`), which
 * may still be in the table.
 */
export function transcriptPlaceOf(raw: Item): { parts: number } | { objectKey: string; parts?: number } {
  if (typeof raw.objectKey !== 'string') return { parts: raw.chunkCount as number };
  return Number.isSafeInteger(raw.chunkCount)
    ? { objectKey: raw.objectKey, parts: raw.chunkCount as number }
    : { objectKey: raw.objectKey };
}

/** The id a raw pause item would have, for error messages about it (best effort: the item may be broken). */
export function idOfItem(raw: Item, seq: number): string {
  const parts = Number.isSafeInteger(raw.chunkCount) ? (raw.chunkCount as number) : undefined;
  const hint = parts === undefined && typeof raw.objectKey === 'string' ? OBJECT_HINT : hintOf(parts ?? 0);
  return formatId({ seq, hint, token: String(raw.token) });
}

/** Reads a raw part item; an unknown schema version or a missing `data` is a `CorruptCheckpointError`. */
export function partData(raw: Item, names: { runId: string; interruptId: string }): Uint8Array {
  if (raw.v !== SCHEMA_VERSION) {
    throw new CorruptCheckpointError(
      names.runId,
      names.interruptId,
      `a part item has schema version ${JSON.stringify(raw.v)}, which this version of Handback does not read`,
    );
  }
  if (raw.kind !== ItemKind.Part || !(raw.data instanceof Uint8Array)) {
    throw new CorruptCheckpointError(names.runId, names.interruptId, `the part item ${String(raw.sk)} holds no bytes`);
  }
  return raw.data;
}

/**
 * Puts into `parts[i]` the bytes of each part item in `found` that is part `i` (below `count`) of the attempt `token`;
 * other items (the pause item, another attempt's parts) are passed over.
 */
export function collectParts(
  found: readonly Item[],
  token: string,
  count: number,
  names: { runId: string; interruptId: string },
  parts: Array<Uint8Array | undefined>,
): void {
  for (const item of found) {
    const sk = parseSortKey(item.sk);
    if (sk.kind === 'part' && sk.token === token && sk.index < count) parts[sk.index] = partData(item, names);
  }
}
