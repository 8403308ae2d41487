import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeShards } from '../../functions/checkpoints/listing-merge.ts';
import { MemoryPersistence } from '../../functions/checkpoints/memory.ts';
import { recordOf } from '../../functions/testing/persistence-spec.ts';

/**
 * A tenant's listing spread over shards (§23) and merged on read, on the memory adapter, which walks the same merge
 * (`listing-merge.ts`) as the DynamoDB adapter: at every page size, over many shards, every page of a listing in
 * order is the whole listing, newest first, each pause once, and each page full but the last.
 */

const BYTES = new Uint8Array([1, 2, 3, 4, 5, 6]);

/** Every page of a listing at `limit`: the runIds listed, and the size of each page. */
async function walk(
  persistence: MemoryPersistence,
  tenant: string,
  openOnly: boolean,
  limit: number,
): Promise<{ runIds: string[]; pages: number[] }> {
  const runIds: string[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  for (let round = 0; round < 1_000; round++) {
    const page = await persistence.list({ tenant, openOnly, limit, ...(cursor === undefined ? {} : { cursor }) });
    runIds.push(...page.entries.map((entry) => entry.record.runId));
    pages.push(page.entries.length);
    // Each entry's own cursor continues right after it, as the page's does after the last.
    if (page.entries.length > 0 && page.next !== undefined) expect(page.entries.at(-1)?.after).toBeDefined();
    cursor = page.next;
    if (cursor === undefined) return { runIds, pages };
  }
  throw new Error('the listing did not end');
}

describe('the sharded listing', () => {
  it('lists every page in order at every page size over 1 to 30 shards (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 30 }),
        fc.array(
          fc.record({
            tenant: fc.constantFrom('acme', 'other'),
            // Few instants, so many pauses share one and the write order decides.
            second: fc.integer({ min: 0, max: 5 }),
            open: fc.boolean(),
          }),
          { maxLength: 120 },
        ),
        fc.integer({ min: 1, max: 101 }),
        fc.boolean(),
        async (shards, specs, limit, openOnly) => {
          const persistence = new MemoryPersistence({ listingShards: shards });
          const written = specs.map((spec, index) =>
            recordOf({
              tenant: spec.tenant,
              runId: `run-${index}`,
              createdAt: `2026-01-01T00:00:0${spec.second}.000Z`,
              status: spec.open ? 'paused' : 'resumed',
            }),
          );
          for (const record of written) await persistence.create(record, BYTES);
          const expected = written
            .map((record, order) => ({ record, order }))
            .filter(({ record }) => record.tenant === 'acme' && (!openOnly || record.status === 'paused'))
            .sort((a, b) =>
              a.record.createdAt === b.record.createdAt
                ? b.order - a.order
                : a.record.createdAt < b.record.createdAt
                  ? 1
                  : -1,
            )
            .map(({ record }) => record.runId);
          const { runIds, pages } = await walk(persistence, 'acme', openOnly, limit);
          expect(runIds).toEqual(expected);
          // Full pages but the last (which may be empty when the listing ends on a page boundary).
          for (const size of pages.slice(0, -1)) expect(size).toBe(limit);
          expect(pages.at(-1)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('continues after any entry of a page with that entry’s own cursor (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 2, max: 40 }), async (count, limit) => {
        const persistence = new MemoryPersistence();
        for (let index = 0; index < count; index++) {
          await persistence.create(recordOf({ runId: `run-${index}`, createdAt: '2026-01-01T00:00:00.000Z' }), BYTES);
        }
        const first = await persistence.list({ tenant: 'acme', openOnly: false, limit });
        const all = (await walk(persistence, 'acme', false, 101)).runIds;
        // A page cut short after its k-th entry (as the service does past its byte bound) resumes at entry k + 1.
        for (const [k, entry] of first.entries.entries()) {
          const after = await persistence.list({ tenant: 'acme', openOnly: false, limit: 101, cursor: entry.after });
          expect(after.entries.map((next) => next.record.runId)).toEqual(all.slice(k + 1, k + 102));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('refuses a cursor with a shard beyond the listing’s or another tenant’s', async () => {
    const persistence = new MemoryPersistence({ listingShards: 4 });
    for (let index = 0; index < 10; index++) await persistence.create(recordOf({ runId: `run-${index}` }), BYTES);
    const page = await persistence.list({ tenant: 'acme', openOnly: false, limit: 3 });
    const [tenant, at, order] = JSON.parse(Buffer.from(page.next as string, 'base64url').toString()) as unknown[];
    const forged = Buffer.from(JSON.stringify([tenant, at, order, 1 << 4])).toString('base64url');
    await expect(persistence.list({ tenant: 'acme', openOnly: false, limit: 3, cursor: forged })).rejects.toMatchObject(
      {
        code: 'bad_request',
      },
    );
    await expect(
      persistence.list({ tenant: 'other', openOnly: false, limit: 3, cursor: page.next as string }),
    ).rejects.toMatchObject({ code: 'bad_request' });
  });
});

describe('mergeShards', () => {
  it('reads only the shards not done, and marks done a shard whose every entry it took', async () => {
    const read: number[] = [];
    const shards = [[9, 5, 1], [8], [], [7, 6]];
    const merged = await mergeShards(
      4,
      new Set([2]),
      3,
      async (shard, limit) => {
        read.push(shard);
        const entries = (shards[shard] ?? []).slice(0, limit);
        return { entries, more: (shards[shard] ?? []).length > limit };
      },
      (a, b) => b - a,
    );
    expect(read.sort()).toEqual([0, 1, 3]);
    expect(merged.taken).toEqual([
      { shard: 0, entry: 9 },
      { shard: 1, entry: 8 },
      { shard: 3, entry: 7 },
    ]);
    expect([...merged.done].sort()).toEqual([1, 2]);
    expect(merged.more).toBe(true);
  });
});
