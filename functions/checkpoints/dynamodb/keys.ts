import { createHash } from 'node:crypto';
import { TABLE } from '../table.ts';

/**
 * The single-table keys, pure. Layout (attribute names from `table.ts`):
 *
 * | item  | pk                     | sk                                   | byTenant (gsi1pk / gsi1sk)        | openByTenant (openPk) | byDue (duePk / dueAtMs) |
 * | ----- | ---------------------- | ------------------------------------ | --------------------------------- | --------------------- | ----------------------- |
 * | pause | `T#<tenant>#R#<runId>` | `P#<seq, 10 digits>#P`               | `T#<tenant>[#<shard>]` / `<createdAt>#<runId>#<seq>` | the same while open | `D#<shard>` / epoch ms while open |
 * | part  | `T#<tenant>#R#<runId>` | `P#<seq>#C#<token>#<index, 4 digits>` | —                                | —                     | —                       |
 *
 * A tenant's listing indexes are spread over `TABLE.listingShards` partitions (`Keys.listingShard`), so no index key
 * takes more than its share of one tenant's writes (§23); shard 0 is `T#<tenant>` itself, the key every pause had
 * before the listings were sharded, so those pauses are shard 0's and list as they did. A transcript kept in the
 * bucket is the object `Keys.object(...)`: the tenant, the run and the pause's write attempt.
 *
 * `<tenant>` is `encodeURIComponent(tenant)`, so no tenant can write a `#` that would make its keys another
 * tenant's; a runId holds no `#` by its own rule. In one run, a pause's parts sort right before it, and a reverse
 * Query on `P#` returns the run's latest pause first (stepping over parts a crashed writer left above it). The
 * `<token>` of a part is the random part of its pause's interruptId, so the parts of an attempt that lost its sequence
 * number (or whose writer crashed) are never read as another's, and an id names every key a read needs.
 */

/** The tenant as it appears in keys: percent-encoded, so it holds no `#`. */
export function encodeTenant(tenant: string): string {
  return encodeURIComponent(tenant);
}

const SEQ_DIGITS = 10;
const INDEX_DIGITS = 4;
const pad = (value: number, digits: number) => String(value).padStart(digits, '0');

/** Key builders: every key the adapter reads or writes comes from here. */
export const Keys = {
  /** The partition of one run of one tenant. */
  run: (tenant: string, runId: string) => `T#${encodeTenant(tenant)}#R#${runId}`,
  /** The sort key of a run's pause `seq`. */
  pause: (seq: number) => `P#${pad(seq, SEQ_DIGITS)}#P`,
  /** The sort key of part `index` of pause `seq`, written by the attempt whose token is `token`. */
  part: (seq: number, token: string, index: number) =>
    `P#${pad(seq, SEQ_DIGITS)}#C#${token}#${pad(index, INDEX_DIGITS)}`,
  /** The prefix every pause and part sort key starts with. */
  pausesPrefix: 'P#',
  /** The tenant's prefix of every key: shard 0 of its listings, and what a listing cursor is checked against. */
  tenant: (tenant: string) => `T#${encodeTenant(tenant)}`,
  /** The byTenant / openByTenant partition of a tenant's listing shard `shard` (0 is `Keys.tenant`). */
  listingShard: (tenant: string, shard: number) =>
    shard === 0 ? `T#${encodeTenant(tenant)}` : `T#${encodeTenant(tenant)}#${shard}`,
  /** The listing shard of a run's pause `seq`: a stable spread of a tenant's pauses over the shards. */
  listingShardOf: (pk: string, seq: number) => spread(`${pk}#${seq}`, TABLE.listingShards),
  /** Every listing shard of a tenant, 0 first. */
  listingShards: (tenant: string) =>
    Array.from(
      { length: TABLE.listingShards },
      (_, shard) => `T#${encodeTenant(tenant)}${shard === 0 ? '' : `#${shard}`}`,
    ),
  /**
   * The object key of a transcript kept in the bucket: the tenant, the run, and the pause's sequence number and the
   * token of its write attempt, so an id names it (a read fetches it beside the pause item) and no two attempts share
   * one. Tenant first: a grant can be scoped to one tenant's objects (`t/<tenant>/*`).
   */
  object: (tenant: string, runId: string, seq: number, token: string) =>
    `t/${encodeTenant(tenant)}/r/${runId}/p/${pad(seq, SEQ_DIGITS)}.${token}`,
  /** The prefix of a tenant's objects, for grants scoped to it. */
  objectsOf: (tenant: string) => `t/${encodeTenant(tenant)}/`,
  /** The byTenant sort key of a pause: newest last, so a reverse Query lists newest first. */
  listing: (createdAt: string, runId: string, seq: number) => `${createdAt}#${runId}#${pad(seq, SEQ_DIGITS)}`,
  /** The byDue partition of a run's pauses: a stable spread of runs over the shards. */
  due: (pk: string) => `D#${shardOf(pk)}`,
  /** Every byDue partition. */
  dueShards: () => Array.from({ length: TABLE.dueShards }, (_, shard) => `D#${shard}`),
} as const;

function shardOf(pk: string): number {
  return spread(pk, TABLE.dueShards);
}

/** A stable spread of `text` over `count` shards. */
function spread(text: string, count: number): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) % count;
}

/** What a sort key says about its item. */
export type SortKeyParts =
  | { kind: 'pause'; seq: number }
  | { kind: 'part'; seq: number; token: string; index: number }
  | { kind: 'unknown' };

const PAUSE_SK = /^P#(\d{10})#P$/;
const PART_SK = /^P#(\d{10})#C#([A-Za-z0-9_-]+)#(\d{4})$/;

/** Reads a sort key made by `Keys.pause` or `Keys.part`. */
export function parseSortKey(sk: unknown): SortKeyParts {
  if (typeof sk !== 'string') return { kind: 'unknown' };
  const pause = PAUSE_SK.exec(sk);
  if (pause !== null) return { kind: 'pause', seq: Number(pause[1]) };
  const part = PART_SK.exec(sk);
  if (part !== null) return { kind: 'part', seq: Number(part[1]), token: part[2] as string, index: Number(part[3]) };
  return { kind: 'unknown' };
}

/** The tenant and run a run partition key names, or undefined for any other key. */
export function parseRunKey(pk: unknown): { tenant: string; runId: string } | undefined {
  if (typeof pk !== 'string') return undefined;
  const match = /^T#([^#]*)#R#([A-Za-z0-9._:-]{1,128})$/.exec(pk);
  if (match === null) return undefined;
  try {
    return { tenant: decodeURIComponent(match[1] as string), runId: match[2] as string };
  } catch {
    return undefined;
  }
}
