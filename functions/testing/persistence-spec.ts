import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CheckpointPersistence } from '../checkpoints/persistence.ts';
import type { PauseRecord } from '../checkpoints/record.ts';

/**
 * The persistence port's behaviour, one suite for every backend (as langgraphjs' checkpoint validation):
 * `persistenceSpec(initializer)` runs against the in-memory adapter, the DynamoDB adapter on dynalite, and a user's
 * own adapter (`handback/testing`). What is specific to one layout (keys, parts, TTL) is tested beside that adapter.
 */

/** How the suites get a backend: a fresh one per case, and hooks around the whole suite. */
export interface SpecInitializer<T> {
  /** Names the backend in the suite's title. */
  name: string;
  /** Runs once before the suite (start a server, create a schema). */
  beforeAll?: () => unknown;
  /** Runs once after the suite. */
  afterAll?: () => unknown;
  /** A backend for one case, as empty as it can be (a case only reads what it wrote, or a tenant of its own). */
  create: () => T | Promise<T>;
  /** Releases a backend `create` made, after its case. */
  destroy?: (backend: T) => unknown;
}

/** A record of `tenant`'s run `runId`, pause `seq`, as the service would write it. */
export function recordOf(overrides: Partial<PauseRecord> = {}): PauseRecord {
  return {
    tenant: 'acme',
    runId: `run-${randomUUID()}`,
    seq: 1,
    token: randomUUID().replaceAll('-', '').slice(0, 22),
    format: 'openai-chat',
    asks: [{ toolCallId: 'call_1', name: 'ask_human', args: { question: 'Ship it?' }, kind: 'answer' }],
    decisions: [undefined],
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAtMs: Date.parse('2026-01-08T00:00:00.000Z'),
    onExpiry: 'fail',
    status: 'paused',
    rev: 1,
    dueAtMs: Date.parse('2026-01-08T00:00:00.000Z'),
    readHint: '1',
    transcript: { codec: 'br', byteLength: 6, rawLength: 10, sha256: 'h' },
    pausedBy: { kind: 'service', subject: 'library', via: 'library' },
    ...overrides,
  };
}

const BYTES = new Uint8Array([1, 2, 3, 4, 5, 6]);

/** The port's spec suite: every case on a fresh persistence from `initializer.create`. */
export function persistenceSpec<T extends CheckpointPersistence>(initializer: SpecInitializer<T>): void {
  /** The case's persistence, whose read hint each record of the case carries. */
  let hints: CheckpointPersistence;
  const made: T[] = [];
  const factory = async () => {
    const persistence = await initializer.create();
    made.push(persistence);
    hints = persistence;
    return persistence;
  };
  const record = (overrides: Partial<PauseRecord> = {}) => {
    const made = recordOf(overrides);
    return { ...made, readHint: hints.readHint(made.transcript.byteLength) };
  };
  describe(`the persistence port on ${initializer.name}`, () => {
    if (initializer.beforeAll !== undefined) beforeAll(initializer.beforeAll);
    if (initializer.afterAll !== undefined) afterAll(initializer.afterAll);
    afterEach(async () => {
      for (const persistence of made.splice(0)) await initializer.destroy?.(persistence);
    });

    it('creates a record once per sequence number: a second create of the same number is taken', async () => {
      const persistence = await factory();
      const first = record();
      expect(await persistence.create(first, BYTES)).toBe('created');
      const rival = record({ runId: first.runId, token: 'rivalTokenrivalTokenAA' });
      expect(await persistence.create(rival, BYTES)).toBe('taken');
      expect((await persistence.read(first))?.record).toEqual(first);
    });

    it('gives a read hint of 1–16 letters and digits, the same for the same length', async () => {
      const persistence = await factory();
      for (const length of [1, 6, 300_000, 16 * 1024 * 1024]) {
        expect(persistence.readHint(length)).toMatch(/^[A-Za-z0-9]{1,16}$/);
        expect(persistence.readHint(length)).toBe(persistence.readHint(length));
      }
    });

    it('reads a record alone, or with its transcript bytes, with the hint or without', async () => {
      const persistence = await factory();
      const stored = record();
      await persistence.create(stored, BYTES);
      expect(await persistence.read(stored)).toEqual({ record: stored });
      for (const transcript of [{ token: stored.token, hint: stored.readHint }, { token: stored.token }]) {
        const read = await persistence.read(stored, transcript);
        expect(read?.record).toEqual(stored);
        expect([...(read?.transcript ?? [])]).toEqual([1, 2, 3, 4, 5, 6]);
      }
    });

    it('never returns the transcript of another write attempt than the one asked for', async () => {
      const persistence = await factory();
      const stored = record();
      await persistence.create(stored, BYTES);
      const read = await persistence.read(stored, { token: 'someoneElsesTokenAAAAA', hint: stored.readHint });
      expect(read).toEqual({ record: stored });
    });

    it('stores a large transcript whole and reads it back byte for byte, whatever hint comes with the read', async () => {
      const persistence = await factory();
      const bytes = Uint8Array.from({ length: 1_500_000 }, (_, index) => (index * 7919) % 251);
      const stored = record({
        transcript: { codec: 'br', byteLength: bytes.length, rawLength: 2_000_000, sha256: 'h' },
      });
      expect(await persistence.create(stored, bytes)).toBe('created');
      for (const hint of [stored.readHint, persistence.readHint(1), undefined]) {
        const read = await persistence.read(
          stored,
          hint === undefined ? { token: stored.token } : { token: stored.token, hint },
        );
        expect(read?.transcript?.length).toBe(bytes.length);
        expect(Buffer.from(read?.transcript ?? []).equals(Buffer.from(bytes))).toBe(true);
      }
    });

    it('reads nothing for a sequence number, run or tenant without a record', async () => {
      const persistence = await factory();
      const stored = record();
      await persistence.create(stored, BYTES);
      expect(await persistence.read({ ...stored, seq: 2 })).toBeUndefined();
      expect(await persistence.read({ ...stored, runId: 'another-run' })).toBeUndefined();
      expect(await persistence.read({ ...stored, tenant: 'globex' })).toBeUndefined();
    });

    it('returns the latest record of a run, and nothing for a run that never paused', async () => {
      const persistence = await factory();
      const first = record();
      await persistence.create(first, BYTES);
      const second = record({ runId: first.runId, seq: 2, createdAt: '2026-01-02T00:00:00.000Z' });
      await persistence.create(second, BYTES);
      expect(await persistence.latest('acme', first.runId)).toEqual(second);
      expect(await persistence.latest('acme', 'never-paused')).toBeUndefined();
      expect(await persistence.latest('globex', first.runId)).toBeUndefined();
    });

    it('updates a record only from the revision that was read; a stale revision is a conflict', async () => {
      const persistence = await factory();
      const before = record();
      await persistence.create(before, BYTES);
      const decided: PauseRecord = {
        ...before,
        rev: 2,
        decisions: [{ body: { answer: 'yes' }, hash: 'x', decidedAt: '2026-01-01T00:01:00.000Z' }],
      };
      expect(await persistence.update(before, decided)).toBe('updated');
      const rival: PauseRecord = { ...before, rev: 2, status: 'cancelled' };
      expect(await persistence.update(before, rival)).toBe('conflict');
      expect((await persistence.read(before))?.record).toEqual(decided);
    });

    it('removes what a change drops, and keeps what it leaves alone', async () => {
      const persistence = await factory();
      const before = record({ remindAtMs: 5, metadata: { ticket: 'T-1' } });
      await persistence.create(before, BYTES);
      const { dueAtMs: _, ...closedRest } = before;
      const closed: PauseRecord = {
        ...closedRest,
        rev: 2,
        status: 'resumed',
        closing: {
          continuationId: '1.2.AAAAAAAAAAAAAAAAAAAAAA',
          closedAt: '2026-01-01T00:02:00.000Z',
          outcome: 'resumed',
          continuationSha256: 'c',
        },
      };
      expect(await persistence.update(before, closed)).toBe('updated');
      expect((await persistence.read(before))?.record).toEqual(closed);
    });

    it('keeps a record that came from a newer writer, with a status this version does not know', async () => {
      const persistence = await factory();
      const stored = record({ status: 'archived' });
      await persistence.create(stored, BYTES);
      expect((await persistence.read(stored))?.record.status).toBe('archived');
    });

    it('lists a tenant’s records newest first, page by page, each page continuing after the last', async () => {
      const persistence = await factory();
      const tenant = `t-${randomUUID()}`;
      const records = Array.from({ length: 5 }, (_, index) =>
        record({ tenant, createdAt: `2026-01-0${index + 1}T00:00:00.000Z` }),
      );
      for (const each of records) await persistence.create(each, BYTES);
      const first = await persistence.list({ tenant, openOnly: false, limit: 2 });
      expect(first.entries.map((entry) => entry.record.createdAt)).toEqual([
        '2026-01-05T00:00:00.000Z',
        '2026-01-04T00:00:00.000Z',
      ]);
      expect(first.next).toBeDefined();
      const second = await persistence.list({ tenant, openOnly: false, limit: 2, cursor: first.entries[1]?.after });
      expect(second.entries.map((entry) => entry.record.createdAt)).toEqual([
        '2026-01-03T00:00:00.000Z',
        '2026-01-02T00:00:00.000Z',
      ]);
      const rest = await persistence.list({ tenant, openOnly: false, limit: 10, cursor: second.next });
      expect(rest.entries.map((entry) => entry.record.createdAt)).toEqual(['2026-01-01T00:00:00.000Z']);
      expect(rest.next).toBeUndefined();
    });

    it('lists only the open records when asked, and a record leaves that listing when it closes', async () => {
      const persistence = await factory();
      const tenant = `t-${randomUUID()}`;
      const open = record({ tenant });
      const closing = record({ tenant, createdAt: '2026-01-02T00:00:00.000Z' });
      await persistence.create(open, BYTES);
      await persistence.create(closing, BYTES);
      const { dueAtMs: _, ...rest } = closing;
      await persistence.update(closing, { ...rest, rev: 2, status: 'expired' });
      const page = await persistence.list({ tenant, openOnly: true, limit: 10 });
      expect(page.entries.map((entry) => entry.record.runId)).toEqual([open.runId]);
      const all = await persistence.list({ tenant, openOnly: false, limit: 10 });
      expect(all.entries).toHaveLength(2);
    });

    it('never lists another tenant’s records, even one whose name holds the key separators', async () => {
      const persistence = await factory();
      const mine = record({ tenant: 'a#b' });
      const theirs = record({ tenant: 'a', runId: 'b' });
      await persistence.create(mine, BYTES);
      await persistence.create(theirs, BYTES);
      const page = await persistence.list({ tenant: 'a#b', openOnly: false, limit: 10 });
      expect(page.entries.map((entry) => entry.record.tenant)).toEqual(['a#b']);
    });

    it('refuses a cursor made for another tenant or listing', async () => {
      const persistence = await factory();
      const tenant = `t-${randomUUID()}`;
      for (let index = 0; index < 3; index++) await persistence.create(record({ tenant }), BYTES);
      const page = await persistence.list({ tenant, openOnly: false, limit: 1 });
      const cursor = page.entries[0]?.after as string;
      await expect(
        persistence.list({ tenant: 'someone-else', openOnly: false, limit: 1, cursor }),
      ).rejects.toMatchObject({ name: 'BadRequestError' });
      await expect(
        persistence.list({ tenant, openOnly: false, limit: 1, cursor: 'bm90IGEgY3Vyc29y' }),
      ).rejects.toMatchObject({ name: 'BadRequestError' });
    });

    it('finds the records due by a time, and not those due later or closed', async () => {
      const persistence = await factory();
      const runId = `run-${randomUUID()}`;
      const soon = record({ runId, seq: 1, dueAtMs: 1_000 });
      const later = record({ runId: `${runId}-b`, dueAtMs: 5_000 });
      const { dueAtMs: _, ...closedRest } = record({ runId: `${runId}-c` });
      const closed: PauseRecord = { ...closedRest, status: 'expired' };
      for (const each of [soon, later, closed]) await persistence.create(each, BYTES);
      const due = await persistence.due(2_000, 100);
      expect(due).toContainEqual({ tenant: 'acme', runId, seq: 1 });
      expect(due).not.toContainEqual(expect.objectContaining({ runId: `${runId}-b` }));
      expect(due).not.toContainEqual(expect.objectContaining({ runId: `${runId}-c` }));
    });
  });
}
