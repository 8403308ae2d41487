/**
 * The single-table keys and the public ids, pure. Layout (attribute names from `table.ts`):
 *
 * | item    | pk                          | sk                                   | gsi1pk (byTenant) | gsi1sk                          |
 * | ------- | --------------------------- | ------------------------------------ | ----------------- | ------------------------------- |
 * | pause   | `T#<tenant>#R#<runId>`      | `P#<seq, 10 digits>#P`               | `T#<tenant>`      | `<createdAt>#<runId>#<seq>`     |
 * | chunk   | `T#<tenant>#R#<runId>`      | `P#<seq>#C#<attempt>#<index, 4 d.>`  | —                 | —                               |
 *
 * `<tenant>` is `encodeURIComponent(tenant)`, so no tenant can write a `#` that would make its keys another
 * tenant's; a runId holds no `#` by its own rule. In one run, a pause's chunks sort right before it: the one
 * Query `sk BETWEEN P#<seq># AND P#<seq>#P` returns the pause item and all its chunks, and a reverse Query on
 * `P#` returns the run's latest pause item first. `attempt` is random per write, so chunks of a pause that lost a
 * race (or whose writer crashed) are never read as this pause's.
 *
 * Public ids carry the sequence number, so a GET finds the item by key: `interruptId` = `<seq>.<128 random bits,
 * base64url>`, `continuationId` likewise; the random part is checked against the item on every read.
 */

/** A runId: 1–128 of `[A-Za-z0-9._:-]`. */
// `.` and `..` match the contract's character class but cannot travel in a URL path (they are dot segments, which
// clients and API Gateway normalise away), so no run may be named by them.
export const RUN_ID_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._:-]{1,128}$/;

/** The largest sequence number a run's pauses can reach. */
export const MAX_SEQ = 9_999_999_999;

const SEQ_DIGITS = 10;
const INDEX_DIGITS = 4;
const ID_PATTERN = /^([1-9][0-9]{0,9})\.([A-Za-z0-9_-]{22})$/;

/** The sequence number and random part of an `interruptId` or `continuationId`. */
export interface IdParts {
  seq: number;
  token: string;
}

/** An id `<seq>.<token>`. */
export function formatId(parts: IdParts): string {
  return `${parts.seq}.${parts.token}`;
}

/** The parts of an id made by `formatId`, or undefined for anything else. */
export function parseId(id: unknown): IdParts | undefined {
  if (typeof id !== 'string') return undefined;
  const match = ID_PATTERN.exec(id);
  if (match === null) return undefined;
  const seq = Number(match[1]);
  return seq <= MAX_SEQ ? { seq, token: match[2] as string } : undefined;
}

/** `bytes` random bytes as base64url: 16 bytes make the 22 characters of an id's random part. */
export function randomToken(randomBytes: (size: number) => Uint8Array, size = 16): string {
  return Buffer.from(randomBytes(size)).toString('base64url');
}

/** The tenant as it appears in keys: percent-encoded, so it holds no `#`. */
export function encodeTenant(tenant: string): string {
  return encodeURIComponent(tenant);
}

const pad = (value: number, digits: number) => String(value).padStart(digits, '0');

/** Key builders: every key the adapter reads or writes comes from here. */
export const Keys = {
  /** The partition of one run of one tenant. */
  run: (tenant: string, runId: string) => `T#${encodeTenant(tenant)}#R#${runId}`,
  /** The sort key of a run's pause `seq`. */
  pause: (seq: number) => `P#${pad(seq, SEQ_DIGITS)}#P`,
  /** The sort key of chunk `index` of pause `seq`, written by the attempt `attempt`. */
  chunk: (seq: number, attempt: string, index: number) =>
    `P#${pad(seq, SEQ_DIGITS)}#C#${attempt}#${pad(index, INDEX_DIGITS)}`,
  /** The sort key range holding pause `seq` and its chunks (both ends inclusive). */
  pauseRange: (seq: number) => ({ from: `P#${pad(seq, SEQ_DIGITS)}#`, to: `P#${pad(seq, SEQ_DIGITS)}#P` }),
  /** The prefix every pause and chunk sort key starts with. */
  pausesPrefix: 'P#',
  /** The byTenant partition of a tenant. */
  tenant: (tenant: string) => `T#${encodeTenant(tenant)}`,
  /** The byTenant sort key of a pause: newest last, so a reverse Query lists newest first. */
  listing: (createdAt: string, runId: string, seq: number) => `${createdAt}#${runId}#${pad(seq, SEQ_DIGITS)}`,
} as const;

/** What a sort key says about its item. */
export type SortKeyParts =
  | { kind: 'pause'; seq: number }
  | { kind: 'chunk'; seq: number; attempt: string; index: number }
  | { kind: 'unknown' };

const PAUSE_SK = /^P#(\d{10})#P$/;
const CHUNK_SK = /^P#(\d{10})#C#([A-Za-z0-9_-]+)#(\d{4})$/;

/** Reads a sort key made by `Keys.pause` or `Keys.chunk`. */
export function parseSortKey(sk: unknown): SortKeyParts {
  if (typeof sk !== 'string') return { kind: 'unknown' };
  const pause = PAUSE_SK.exec(sk);
  if (pause !== null) return { kind: 'pause', seq: Number(pause[1]) };
  const chunk = CHUNK_SK.exec(sk);
  if (chunk !== null) {
    return { kind: 'chunk', seq: Number(chunk[1]), attempt: chunk[2] as string, index: Number(chunk[3]) };
  }
  return { kind: 'unknown' };
}
