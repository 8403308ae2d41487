import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { CheckpointService } from '../../functions/checkpoints/checkpoint-service.ts';
import { ALL_CHECKS } from '../../functions/checkpoints/checks.ts';
import { encodeTranscript, serializeTranscript } from '../../functions/checkpoints/codec.ts';
import { DynamoDBPersistence } from '../../functions/checkpoints/dynamodb/dynamodb-persistence.ts';
import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import { TABLE } from '../../functions/checkpoints/table.ts';
import { recordOf } from '../../functions/testing/persistence-spec.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { chatTranscript, runItems, setAttribute } from './support.ts';

/**
 * Tenants with more pauses than one BatchGetItem takes (100 keys; the embedded server refuses a larger batch as
 * DynamoDB does): every page of their listings, each pause exactly once, newest first. The pauses are written straight
 * through the persistence (one transcript encoded once), so the test times the listing, not the pausing. The embedded
 * server scans an index partition from its start for every page, so the limits around the shard count, parts of 150
 * and the batch size run on a tenant of 150 pauses, and the tenant of 1,050 on the limits that cross the batch size.
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
let persistence: DynamoDBPersistence;

beforeAll(async () => {
  persistence = new DynamoDBPersistence({ client: table.client, tableName: table.tableName });
  store = new CheckpointService({ persistence, checks: ALL_CHECKS, clock: () => new Date(start + 2 * 86_400_000) });
  [many, some] = await Promise.all([seed(persistence, 'many', 1_050), seed(persistence, 'some', 150)]);
}, 180_000);

/** How many of `tenant`'s pauses each partition of `index` holds. */
async function spread(tenant: string, index: typeof TABLE.byTenant | typeof TABLE.openByTenant): Promise<number[]> {
  return Promise.all(
    Keys.listingShards(tenant).map(async (partition) => {
      let count = 0;
      let startKey: Record<string, unknown> | undefined;
      do {
        const output = await table.client.send(
          new QueryCommand({
            TableName: table.tableName,
            IndexName: index.indexName,
            KeyConditionExpression: '#p = :p',
            ExpressionAttributeNames: { '#p': index.partitionKey.name },
            ExpressionAttributeValues: { ':p': partition },
            ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
          }),
        );
        count += output.Count ?? 0;
        startKey = output.LastEvaluatedKey;
      } while (startKey !== undefined);
      return count;
    }),
  );
}

describe('a tenant spread over the listing shards (§23)', () => {
  it('writes 1,050 pauses of one tenant over all 16 partitions of each listing index, none with more than 1/8', async () => {
    for (const index of [TABLE.byTenant, TABLE.openByTenant]) {
      const counts = await spread('many', index);
      expect(counts).toHaveLength(16);
      expect(counts.reduce((sum, count) => sum + count, 0)).toBe(1_050);
      for (const count of counts) {
        expect(count).toBeGreaterThan(0);
        expect(count).toBeLessThan(1_050 / 8);
      }
    }
  });

  it('lists pauses written before the listings were sharded (under the tenant key) in order among the others', async () => {
    const runIds = await seed(persistence, 'legacy', 40);
    // Every third pause as an earlier version wrote it: both listing keys the unsharded T#<tenant>.
    for (const [index, runId] of runIds.entries()) {
      if (index % 3 !== 0) continue;
      const [item] = await runItems(table, 'legacy', runId);
      await setAttribute(table, item as Record<string, unknown>, TABLE.byTenant.partitionKey.name, 'T#legacy');
      await setAttribute(table, item as Record<string, unknown>, TABLE.openByTenant.partitionKey.name, 'T#legacy');
    }
    for (const limit of [1, 7, 40]) {
      expect(await listAll('legacy', limit)).toEqual(runIds);
      expect(await listAll('legacy', limit, 'paused')).toEqual(runIds);
    }
  });

  it('continues an unsharded listing’s cursor (version 2) where it stood', async () => {
    const first = await persistence.list({ tenant: 'some', openOnly: false, limit: 10 });
    const tenth = first.entries[9]?.record;
    expect(tenth).toBeDefined();
    const key = [
      Keys.listing(tenth?.createdAt as string, tenth?.runId as string, 1),
      Keys.run('some', tenth?.runId as string),
      Keys.pause(1),
    ];
    const old = Buffer.from(JSON.stringify({ v: 2, l: 'all', k: key })).toString('base64url');
    const next = await persistence.list({ tenant: 'some', openOnly: false, limit: 5, cursor: old });
    expect(next.entries.map((entry) => entry.record.runId)).toEqual(some.slice(10, 15));
  });
});

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

  // The merge itself is held at every page size over 1 to 30 shards in test/checkpoints/sharded-listing.test.ts; here
  // the adapter's queries and cursors, at the limits where a page meets the 16 shards, a part of the 150 pauses or the
  // batch read's 100 keys (each limit costs 150 / limit pages, so every limit from 1 to 100 took twice as long).
  it('lists 150 pauses at each limit around the shards, the pauses and a batch read, every one once, newest first', async () => {
    const limits = [1, 2, 3, 15, 16, 17, 31, 32, 33, 49, 50, 51, 74, 75, 76, 99, 100];
    for (let next = 0; next < limits.length; next += 4) {
      const batch = limits.slice(next, next + 4);
      const listed = await Promise.all(batch.map((limit) => listAll('some', limit)));
      for (const [index, seen] of listed.entries()) expect(seen, `limit ${batch[index]}`).toEqual(some);
    }
  }, 180_000);
});
