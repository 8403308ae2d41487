import { BadRequestError } from '../../errors.ts';
import { RUN_ID_PATTERN } from '../../vocabulary.ts';
import { maskOf, shardsOfMask } from '../listing-merge.ts';
import { TABLE } from '../table.ts';
import { Keys, parseSortKey } from './keys.ts';

/**
 * The adapter's listing cursor, pure: base64url of a small JSON holding the position in the tenant's listing (the
 * index sort key and the table key of the last pause read), the shards of the listing already exhausted, and which
 * index it walks. Every other shard stands at that position (`listing-merge.ts`), so one position and the done shards
 * are each shard's position. The partitions themselves are never in the cursor: they are always the caller's own,
 * so a cursor cannot lead into another tenant's pauses, and one made for another tenant (or forged) is refused before
 * DynamoDB sees it. A cursor of the unsharded listing (version 2) reads as one with no shard done.
 */

/** A position in a tenant's listing. */
export interface ListingKey {
  gsi1sk: string;
  pk: string;
  sk: string;
}

/** Which index a listing walks: every pause, or open ones only. */
export type Listing = 'all' | 'open';

const CURSOR_VERSION = 3;
/** Cursors made before the listings were sharded: a position alone. */
const UNSHARDED_VERSION = 2;
/** `Date.prototype.toISOString` output, as pauses record `createdAt`. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A position in a sharded listing: the last pause read, and the shards with nothing after it. */
export interface ListingPosition {
  key: ListingKey;
  done: ReadonlySet<number>;
}

/** The cursor that continues after `key` in `listing`, the shards `done` exhausted. */
export function encodeCursor(key: ListingKey, listing: Listing, done: ReadonlySet<number> = new Set()): string {
  return Buffer.from(
    JSON.stringify({ v: CURSOR_VERSION, l: listing, k: [key.gsi1sk, key.pk, key.sk], d: maskOf(done) }),
  ).toString('base64url');
}

/**
 * The position a cursor names; `BadRequestError` for a cursor that is malformed, another tenant's or another
 * listing's.
 */
export function decodeCursor(cursor: unknown, tenant: string, listing: Listing): ListingPosition {
  const refuse = (why: string) =>
    new BadRequestError(`The cursor ${why}: pass the cursor of the previous page unchanged, with the same status.`, [
      { path: '/cursor', message: why },
    ]);
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw refuse('is not a cursor');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse('is not a cursor');
  }
  const { v, l, k, d } = (parsed ?? {}) as { v?: unknown; l?: unknown; k?: unknown; d?: unknown };
  const done = v === UNSHARDED_VERSION ? new Set<number>() : shardsOfMask(d, TABLE.listingShards);
  if (
    (v !== CURSOR_VERSION && v !== UNSHARDED_VERSION) ||
    done === undefined ||
    !Array.isArray(k) ||
    k.length !== 3 ||
    !k.every((part) => typeof part === 'string')
  ) {
    throw refuse('is not a cursor');
  }
  if (l !== listing) throw refuse('was made for a listing with another status');
  const [gsi1sk, pk, sk] = k as [string, string, string];
  const runPrefix = Keys.run(tenant, '');
  const runId = pk.slice(runPrefix.length);
  const position = parseSortKey(sk);
  if (!pk.startsWith(runPrefix) || !RUN_ID_PATTERN.test(runId) || position.kind !== 'pause') {
    throw refuse('is not one of this tenant');
  }
  // The index key must be the one this pause carries, or DynamoDB refuses the start key (a forged cursor).
  const createdAt = gsi1sk.slice(0, 24);
  if (!ISO_INSTANT.test(createdAt) || gsi1sk !== Keys.listing(createdAt, runId, position.seq)) {
    throw refuse('is not a cursor');
  }
  return { key: { gsi1sk, pk, sk }, done };
}
