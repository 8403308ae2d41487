import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CheckpointStore, PauseView } from '../../functions/checkpoints/checkpoint-store.ts';
import { BadRequestError } from '../../functions/errors.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { pauseInput, storeOn, testClock } from './support.ts';

const table = useTestTable();

/** A tenant of its own, with pauses created one minute apart: `paused`, `resumed` and (by then) `expired` ones. */
async function tenantWithPauses() {
  const tenant = `tenant-${randomUUID()}`;
  const clock = testClock('2026-05-01T00:00:00.000Z');
  const store = storeOn(table, { clock: clock.now });
  const created: Array<{ runId: string; interruptId: string; kind: 'paused' | 'resumed' | 'expired' }> = [];
  const kinds = ['expired', 'paused', 'resumed', 'paused', 'expired', 'resumed', 'paused'] as const;
  for (const [n, kind] of kinds.entries()) {
    const input = pauseInput({ tenant, runId: `run-${n}`, expiresInSeconds: kind === 'expired' ? 30 : 86_400 });
    const { interruptId } = await store.pause(input);
    if (kind === 'resumed') await store.resume({ tenant, runId: input.runId, interruptId, answer: 'ok' });
    created.push({ runId: input.runId, interruptId, kind });
    clock.advance(60);
  }
  return { tenant, store, created: created.reverse() /* newest first */ };
}

async function allPages(
  store: CheckpointStore,
  query: Parameters<CheckpointStore['listPauses']>[0],
): Promise<PauseView[][]> {
  const pages: PauseView[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listPauses({ ...query, ...(cursor ? { cursor } : {}) });
    pages.push(page.items);
    cursor = page.cursor;
    expect(cursor === undefined || /^[A-Za-z0-9_-]+$/.test(cursor)).toBe(true);
  } while (cursor && pages.length < 20);
  return pages;
}

describe('listPauses', () => {
  it('lists the tenant’s pauses newest first, every status derived on read', async () => {
    const { tenant, store, created } = await tenantWithPauses();
    const { items, cursor } = await store.listPauses({ tenant });
    expect(cursor).toBeUndefined();
    expect(items.map((item) => [item.runId, item.status])).toEqual(created.map((c) => [c.runId, c.kind]));
    expect(items[0]).not.toHaveProperty('messages');
  });

  it.each(['paused', 'resumed', 'expired'] as const)(
    'lists only %s pauses when asked, in pages that fill',
    async (status) => {
      const { tenant, store, created } = await tenantWithPauses();
      const pages = await allPages(store, { tenant, status, limit: 1 });
      const expected = created.filter((c) => c.kind === status).map((c) => c.interruptId);
      expect(pages.flat().map((item) => item.interruptId)).toEqual(expected);
      for (const page of pages) expect(page).toHaveLength(1);
    },
  );

  it('paginates with an opaque cursor, no page repeating or skipping a pause', async () => {
    const { tenant, store, created } = await tenantWithPauses();
    const pages = await allPages(store, { tenant, limit: 3 });
    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(pages.flat().map((item) => item.interruptId)).toEqual(created.map((c) => c.interruptId));
  });

  it('cuts a page of large pauses short of 4 MB, with a cursor to the rest', async () => {
    const tenant = `tenant-${randomUUID()}`;
    const store = storeOn(table);
    const prompt = 'p'.repeat(90 * 1024);
    for (let n = 0; n < 50; n++) await store.pause(pauseInput({ tenant, runId: `big-${n}`, prompt }));
    const pages = await allPages(store, { tenant, limit: 100 });
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(new Set(pages.flat().map((view) => view.runId)).size).toBe(50);
  });

  it('defaults to 20 a page and refuses a limit outside 1–100', async () => {
    const { tenant, store } = await tenantWithPauses();
    expect((await store.listPauses({ tenant })).items).toHaveLength(7);
    for (const limit of [0, 101, 2.5]) {
      await expect(store.listPauses({ tenant, limit })).rejects.toBeInstanceOf(BadRequestError);
    }
  });

  it('never shows another tenant’s pauses, even to a tenant whose name holds the key separators', async () => {
    const store = storeOn(table);
    const runId = `shared-${randomUUID()}`;
    const a = `a-${randomUUID()}`;
    await store.pause(pauseInput({ tenant: a, runId }));
    await store.pause(pauseInput({ tenant: `${a}#R#${runId}`, runId }));
    const mine = await store.listPauses({ tenant: a });
    expect(mine.items).toHaveLength(1);
    expect((await store.listPauses({ tenant: `${a}#R#${runId}` })).items).toHaveLength(1);
    expect((await store.listPauses({ tenant: `a-${randomUUID()}` })).items).toEqual([]);
  });

  it('refuses a cursor made for another tenant, another status, or no cursor at all', async () => {
    const { tenant, store } = await tenantWithPauses();
    const other = await tenantWithPauses();
    const page = await store.listPauses({ tenant, limit: 2 });
    expect(page.cursor).toBeDefined();
    const cursor = page.cursor as string;
    await expect(other.store.listPauses({ tenant: other.tenant, limit: 2, cursor })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(store.listPauses({ tenant, limit: 2, status: 'paused', cursor })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(store.listPauses({ tenant, cursor: 'bm90IGEgY3Vyc29y' })).rejects.toBeInstanceOf(BadRequestError);
    await expect(store.listPauses({ tenant, cursor: '!!' })).rejects.toBeInstanceOf(BadRequestError);
    // A cursor whose position names another tenant's run, forged by hand, is refused too.
    const forged = Buffer.from(
      JSON.stringify({ v: 1, s: null, k: ['9999', `T#${other.tenant}#R#run-1`, 'P#0000000001#P'] }),
    ).toString('base64url');
    await expect(store.listPauses({ tenant, cursor: forged })).rejects.toBeInstanceOf(BadRequestError);
    // So is one whose index key is not the one its pause carries: DynamoDB would refuse it as a start key.
    for (const gsi1sk of ['', 'x'.repeat(2000), '2026-01-01T00:00:00.000Z#run-2#0000000001']) {
      const badIndexKey = Buffer.from(
        JSON.stringify({ v: 1, s: null, k: [gsi1sk, `T#${tenant}#R#run-1`, 'P#0000000001#P'] }),
      ).toString('base64url');
      await expect(store.listPauses({ tenant, cursor: badIndexKey })).rejects.toBeInstanceOf(BadRequestError);
    }
  });
});
