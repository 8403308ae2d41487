/**
 * The merge of a sharded listing, pure apart from the shard reads it is given: a backend that spreads one tenant's
 * listing over shards (so that no key takes every write, §23) reads a page from each shard not yet exhausted, newest
 * first, and takes the newest `limit` of them all. Every shard not exhausted then stands at the page's last position:
 * the merge takes entries in one total order, so nothing newer than that position is left unread in any shard. A
 * listing cursor therefore carries each shard's position as that one position and the set of shards that are done.
 */

/** One shard's page: its entries newest first, and whether more may follow them in the shard. */
export interface ShardPage<E> {
  entries: E[];
  more: boolean;
}

/** What a merge took: the entries in order, each with its shard, and the shards now known to be exhausted. */
export interface MergedPage<E> {
  taken: Array<{ shard: number; entry: E }>;
  /** Shards with nothing left after the last entry taken (those done before, too). */
  done: Set<number>;
  /** Whether any shard may hold more. */
  more: boolean;
}

/**
 * Reads shards `0..shards-1` but those in `done`, each `read(shard, limit)` (in parallel), and takes the first `limit`
 * entries of their union in `newerFirst`'s order (negative when its first argument comes first; a total order).
 */
export async function mergeShards<E>(
  shards: number,
  done: ReadonlySet<number>,
  limit: number,
  read: (shard: number, limit: number) => Promise<ShardPage<E>>,
  newerFirst: (a: E, b: E) => number,
): Promise<MergedPage<E>> {
  const open = Array.from({ length: shards }, (_, shard) => shard).filter((shard) => !done.has(shard));
  const pages = await Promise.all(open.map(async (shard) => ({ shard, page: await read(shard, limit) })));
  const all = pages.flatMap(({ shard, page }) => page.entries.map((entry) => ({ shard, entry })));
  all.sort((a, b) => newerFirst(a.entry, b.entry));
  const taken = all.slice(0, limit);
  const left = new Map<number, number>();
  for (const { shard } of all.slice(limit)) left.set(shard, (left.get(shard) ?? 0) + 1);
  const nowDone = new Set(done);
  for (const { shard, page } of pages) {
    if (!page.more && !left.has(shard)) nowDone.add(shard);
  }
  return { taken, done: nowDone, more: nowDone.size < shards };
}

/** A set of shard numbers as a bit mask (shards below 31). */
export function maskOf(shards: ReadonlySet<number>): number {
  let mask = 0;
  for (const shard of shards) mask |= 1 << shard;
  return mask;
}

/** The shard numbers of a bit mask made by `maskOf`, below `shards`; undefined for a mask with any other bit. */
export function shardsOfMask(mask: unknown, shards: number): Set<number> | undefined {
  if (!Number.isSafeInteger(mask) || (mask as number) < 0 || (mask as number) >= 2 ** shards) return undefined;
  const set = new Set<number>();
  for (let shard = 0; shard < shards; shard++) if (((mask as number) >> shard) & 1) set.add(shard);
  return set;
}
