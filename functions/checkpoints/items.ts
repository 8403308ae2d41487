import { CorruptCheckpointError } from '../errors.ts';
import type { ToolCall } from '../rehydrate/formats/format.ts';
import { type FormatName, isFormatName } from '../rehydrate/formats/index.ts';
import type { JsonSchema, PauseStatus, PauseView } from './checkpoint-store.ts';
import { Codec, type TranscriptHeader } from './codec.ts';
import { formatId } from './keys.ts';
import { TABLE } from './table.ts';

/**
 * The stored items and what a read makes of them, pure. Every item carries `v`, the schema version; a reader that
 * meets a version it does not know reports the checkpoint corrupt rather than guess. JSON values the user gave
 * (the call's args, answer schema, metadata, answer) are stored as their JSON text: DynamoDB numbers cannot hold
 * every JavaScript number (1e300), and text keeps them exactly as given.
 */

/** The schema version of the items this code writes and reads. */
export const SCHEMA_VERSION = 1;

/** The item kinds of the table. */
export const ItemKind = { Pause: 'pause', Chunk: 'chunk' } as const;

/** A pause item, as written at pause time and extended by the resume that claims it. */
export interface PauseItem extends TranscriptHeader {
  pk: string;
  sk: string;
  v: typeof SCHEMA_VERSION;
  kind: typeof ItemKind.Pause;
  tenant: string;
  runId: string;
  seq: number;
  /** The random part of the interruptId. */
  token: string;
  /** The random part of this pause's chunk keys. */
  attempt: string;
  format: FormatName;
  toolCallId: string;
  /** JSON text of the answered call `{id, name, args}`. */
  toolCall: string;
  prompt?: string;
  /** JSON text. */
  answerSchema?: string;
  /** JSON text. */
  metadata?: string;
  taskToken?: string;
  createdAt: string;
  expiresAt: string;
  /** `expiresAt` in epoch milliseconds, for conditions and filters. */
  expiresAtMs: number;
  /** Epoch seconds after which DynamoDB may delete the item (the TTL attribute, `TABLE.timeToLiveAttribute`). */
  ttl: number;
  /** Stored status: `paused` until a resume claims it. `expired` is never stored; it is derived on read. */
  status: 'paused' | 'resumed';
  gsi1pk: string;
  gsi1sk: string;
  // Set by the claiming resume:
  continuationId?: string;
  /** sha256 (base64url) of the answer's canonical JSON. */
  answerHash?: string;
  /** JSON text of the answer, as given. */
  answer?: string;
  resumedAt?: string;
  /** sha256 (base64url) of the rebuilt messages' JSON text: a later rebuild must match it byte for byte. */
  continuationSha256?: string;
}

/** A chunk item: one slice of a pause's compressed transcript. */
export interface ChunkItem {
  pk: string;
  sk: string;
  v: typeof SCHEMA_VERSION;
  kind: typeof ItemKind.Chunk;
  data: Uint8Array;
  ttl: number;
}

/** What the resume's claim adds to a pause item. */
export type ClaimFields = Required<
  Pick<PauseItem, 'continuationId' | 'answerHash' | 'answer' | 'resumedAt' | 'continuationSha256'>
>;

/** The public id of a stored pause. */
export function interruptIdOf(item: Pick<PauseItem, 'seq' | 'token'>): string {
  return formatId({ seq: item.seq, token: item.token });
}

/** A pause's status at `now`: stored `resumed` stays resumed; an unanswered pause past `expiresAt` is `expired`. */
export function statusAt(item: Pick<PauseItem, 'status' | 'expiresAtMs'>, now: Date): PauseStatus {
  if (item.status === 'resumed') return 'resumed';
  return now.getTime() >= item.expiresAtMs ? 'expired' : 'paused';
}

/** Whether the pause still blocks a new pause of its run at `now`. */
export function isOpenAt(item: Pick<PauseItem, 'status' | 'expiresAtMs'>, now: Date): boolean {
  return statusAt(item, now) === 'paused';
}

/** The GET-pause body of a stored pause at `now`. */
export function toPauseView(item: PauseItem, now: Date): PauseView {
  const view: PauseView = {
    runId: item.runId,
    interruptId: interruptIdOf(item),
    status: statusAt(item, now),
    format: item.format,
    toolCall: JSON.parse(item.toolCall) as ToolCall,
    prompt: item.prompt ?? null,
    answerSchema: item.answerSchema === undefined ? null : (JSON.parse(item.answerSchema) as JsonSchema),
    metadata: item.metadata === undefined ? null : (JSON.parse(item.metadata) as Record<string, unknown>),
    createdAt: item.createdAt,
    expiresAt: item.expiresAt,
  };
  if (item.resumedAt !== undefined) view.resumedAt = item.resumedAt;
  if (item.continuationId !== undefined) view.continuationId = item.continuationId;
  return view;
}

/**
 * Reads a raw pause item, checking every field a reader relies on; anything else (an unknown schema version, a
 * missing or ill-typed field, an unknown codec) is a `CorruptCheckpointError` naming the pause.
 */
export function readPauseItem(raw: Record<string, unknown>, runId: string, interruptId: string): PauseItem {
  const corrupt = (reason: string) => new CorruptCheckpointError(runId, interruptId, reason);
  if (raw.v !== SCHEMA_VERSION) {
    throw corrupt(
      `its pause item has schema version ${JSON.stringify(raw.v)}, which this version of Handback does not read`,
    );
  }
  if (raw.kind !== ItemKind.Pause) throw corrupt(`its pause item has kind ${JSON.stringify(raw.kind)}`);
  const strings = [
    'pk',
    'sk',
    'tenant',
    'runId',
    'token',
    'attempt',
    'toolCallId',
    'toolCall',
    'createdAt',
    'expiresAt',
    'gsi1pk',
    'gsi1sk',
    'sha256',
  ] as const;
  for (const name of strings) {
    if (typeof raw[name] !== 'string') throw corrupt(`its pause item has no ${name}`);
  }
  const numbers = ['seq', 'expiresAtMs', 'ttl', 'chunkCount', 'byteLength', 'rawLength'] as const;
  for (const name of numbers) {
    if (typeof raw[name] !== 'number' || !Number.isSafeInteger(raw[name]))
      throw corrupt(`its pause item has no ${name}`);
  }
  if (!isFormatName(raw.format)) throw corrupt(`its pause item names the unknown format ${JSON.stringify(raw.format)}`);
  if (raw.codec !== Codec.Gzip && raw.codec !== Codec.Brotli) {
    throw corrupt(`its pause item names the unknown codec ${JSON.stringify(raw.codec)}`);
  }
  if (raw.status !== 'paused' && raw.status !== 'resumed') {
    throw corrupt(`its pause item has the unknown status ${JSON.stringify(raw.status)}`);
  }
  for (const name of ['prompt', 'answerSchema', 'metadata', 'taskToken'] as const) {
    if (raw[name] !== undefined && typeof raw[name] !== 'string')
      throw corrupt(`its pause item has an ill-typed ${name}`);
  }
  if (raw.status === 'resumed') {
    for (const name of ['continuationId', 'answerHash', 'answer', 'resumedAt', 'continuationSha256'] as const) {
      if (typeof raw[name] !== 'string') throw corrupt(`it is resumed but its pause item has no ${name}`);
    }
  }
  for (const name of ['toolCall', 'answerSchema', 'metadata', 'answer'] as const) {
    const text = raw[name];
    if (typeof text !== 'string') continue;
    try {
      JSON.parse(text);
    } catch (cause) {
      throw new CorruptCheckpointError(runId, interruptId, `its pause item's ${name} is not JSON`, { cause });
    }
  }
  return raw as unknown as PauseItem;
}

/** Reads a raw chunk item; an unknown schema version or a missing `data` is a `CorruptCheckpointError`. */
export function readChunkItem(raw: Record<string, unknown>, runId: string, interruptId: string): ChunkItem {
  if (raw.v !== SCHEMA_VERSION) {
    throw new CorruptCheckpointError(
      runId,
      interruptId,
      `a chunk item has schema version ${JSON.stringify(raw.v)}, which this version of Handback does not read`,
    );
  }
  if (raw.kind !== ItemKind.Chunk || !(raw.data instanceof Uint8Array)) {
    throw new CorruptCheckpointError(runId, interruptId, `the chunk item ${String(raw.sk)} holds no bytes`);
  }
  return raw as unknown as ChunkItem;
}

/** The TTL attribute's name, checked against the item shape: the store writes `ttl`. */
export const TTL_ATTRIBUTE: keyof PauseItem & keyof ChunkItem & typeof TABLE.timeToLiveAttribute =
  TABLE.timeToLiveAttribute;
