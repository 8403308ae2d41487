import { beforeAll, describe, expect, it } from 'vitest';
import { CheckpointService } from '../../functions/checkpoints/checkpoint-service.ts';
import { ALL_CHECKS } from '../../functions/checkpoints/checks.ts';
import { encodeTranscript, serializeTranscript } from '../../functions/checkpoints/codec.ts';
import { DynamoDBPersistence } from '../../functions/checkpoints/dynamodb/dynamodb-persistence.ts';
import { recordOf } from '../../functions/testing/persistence-spec.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { chatTranscript } from './support.ts';

/**
 * Tenants with more pauses than one BatchGetItem takes (100 keys; the embedded server refuses a larger batch as
 * DynamoDB does): every page of their listings, each pause exactly once, newest first. The pauses are written straight
 * through the persistence (one transcript encoded once), so the test times the listing, not the pausing. The embedded
 * server scans an index partition from its start for every page, so every limit from 1 to 100 runs on a tenant of
 * 150 pauses, and the tenant of 1,050 on the limits that cross the batch size.
 */

const table = useTestTable();
const start = Date.parse('2026-01-01T00:00:00.000Z');
let store: CheckpointService;

/** Writes `count` open pauses of `tenant`, a second apart; their runIds, newest first. */
async function seed(persistence: DynamoDBPersistence, tenant: string, count: number): Promise<string[]> {
  const { header, bytes } = await encodeTranscript(serializeTranscript(chatTranscript()));
  const records = Array.from({ length: count }, (_, index) =>
    recordOf({
      tenant,
      runId: `run-${String(index).padStart(4, '0')}`,
      createdAt: new Date(start + index * 1000).toISOString(),
      expiresAtMs: start + 365 * 86_400_000,
      readHint: persistence.readHint(bytes.length),
      transcript: header,
    }),
  );
  for (let next = 0; next < records.length; next += 25) {
    const created = await Promise.all(
      records.slice(next, next + 25).map((record) => persistence.create(record, bytes)),
    );
    expect(new Set(created)).toEqual(new Set(['created']));
  }
  return records.map((record) => record.runId).reverse();
}

/** Every page of `tenant`'s listing at `limit`: the runIds in the order listed. */
async function listAll(tenant: string, limit: number, status?: 'paused'): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listPauses({
      tenant,
      limit,
      ...(status === undefined ? {} : { status }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    // A page is full unless it is the last.
    expect(page.cursor === undefined ? page.items.length <= limit : page.items.length === limit).toBe(true);
    seen.push(...page.items.map((item) => item.runId));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return seen;
}

let many: string[];
let some: string[];

beforeAll(async () => {
  const persistence = new DynamoDBPersistence({ client: table.client, tableName: table.tableName });
  store = new CheckpointService({ persistence, checks: ALL_CHECKS, clock: () => new Date(start + 2 * 86_400_000) });
  [many, some] = await Promise.all([seed(persistence, 'many', 1_050), seed(persistence, 'some', 150)]);
}, 180_000);

describe('a listing of more pauses than one batch read takes', () => {
  it.each([100, 99, 34])(
    'lists 1,050 pauses at limit %i, every one once, newest first',
    async (limit) => {
      expect(await listAll('many', limit)).toEqual(many);
    },
    120_000,
  );

  it('lists 1,050 open pauses through the status filter, every one once, newest first', async () => {
    expect(await listAll('many', 100, 'paused')).toEqual(many);
  }, 120_000);

  it('lists 150 pauses at every limit from 1 to 100, every one once, newest first', async () => {
    const limits = Array.from({ length: 100 }, (_, index) => index + 1);
    for (let next = 0; next < limits.length; next += 4) {
      const batch = limits.slice(next, next + 4);
      const listed = await Promise.all(batch.map((limit) => listAll('some', limit)));
      for (const [index, seen] of listed.entries()) expect(seen, `limit ${batch[index]}`).toEqual(some);
    }
  }, 180_000);
});
