import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { TABLE } from '../../functions/checkpoints/table.ts';
import { type EmbeddedDynamoDB, startEmbeddedDynamoDB } from '../../functions/local/embedded-dynamodb.ts';
import { type IndexEntry, writeIndexEntries } from '../support/dynalite-disk.ts';
import { pauseInput, testClock } from './support.ts';

/**
 * A listing index that holds what a crash leaves (an entry written before its item, or not deleted after its item
 * changed): entries are written into the embedded store's data dir by hand, as dynalite itself writes them, and the
 * listings must still read each pause once, in index order, and never fail — DynamoDB's BatchGetItem refuses a key
 * twice, so two entries of one pause on a page used to answer 500 for that tenant from then on.
 */

const tableName = 'handback-stale-index';
const dir = mkdtempSync(join(tmpdir(), 'handback-stale-index-'));
const clock = testClock();
let embedded: EmbeddedDynamoDB;
let store: CheckpointStore;
/** The pauses of `acme`, in the order they were made (oldest first). */
const runs = ['run-0', 'run-1', 'run-2', 'run-3'];

async function open(): Promise<void> {
  embedded = await startEmbeddedDynamoDB({ path: dir, tableName });
  store = createDynamoDBCheckpointStore({
    client: DynamoDBDocumentClient.from(embedded.client()),
    tableName,
    clock: clock.now,
  });
}

/** Every page of a listing at `limit`: the runIds in the order listed. */
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
    seen.push(...page.items.map((item) => item.runId));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return seen;
}

beforeAll(async () => {
  await open();
  const made = new Map<string, { interruptId: string; createdAt: string }>();
  for (const runId of runs) {
    const created = await store.pause(pauseInput({ runId }));
    made.set(runId, created);
    clock.advance(1);
  }
  await store.pause(pauseInput({ tenant: 'other', runId: 'run-0' }));
  await store.cancel({ tenant: 'acme', runId: 'run-1', interruptId: made.get('run-1')?.interruptId as string });
  await embedded.close();

  const acme = Keys.tenant('acme');
  const at = (runId: string) => Keys.run('acme', runId);
  const listing = (runId: string, createdAt = made.get(runId)?.createdAt as string) =>
    Keys.listing(createdAt, runId, 1);
  const stale: IndexEntry[] = [
    // run-2 written again after a crash left its first attempt's entries: another listing key, the same pause key.
    ...[TABLE.byTenant.indexName, TABLE.openByTenant.indexName].map((index) => ({
      index,
      partition: acme,
      gsi1sk: listing('run-2', '2025-12-31T23:59:00.000Z'),
      pk: at('run-2'),
      sk: Keys.pause(1),
    })),
    // A newer stale entry of run-0 than its own: it sorts first, the pause must still show where it sorts now.
    {
      index: TABLE.byTenant.indexName,
      partition: acme,
      gsi1sk: listing('run-0', '2026-01-01T00:10:00.000Z'),
      pk: at('run-0'),
      sk: Keys.pause(1),
    },
    // run-1 closed (cancelled), but its open entry was not deleted.
    {
      index: TABLE.openByTenant.indexName,
      partition: acme,
      gsi1sk: listing('run-1'),
      pk: at('run-1'),
      sk: Keys.pause(1),
    },
    // A pause whose item was never written.
    ...[TABLE.byTenant.indexName, TABLE.openByTenant.indexName].map((index) => ({
      index,
      partition: acme,
      gsi1sk: listing('run-9', '2026-01-01T00:00:02.500Z'),
      pk: at('run-9'),
      sk: Keys.pause(1),
    })),
  ];
  await writeIndexEntries(dir, tableName, stale);
  await open();
}, 60_000);

afterAll(async () => {
  await embedded?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a listing whose index holds stale and duplicate entries', () => {
  const newestFirst = [...runs].reverse();

  it.each([1, 2, 3, 4, 5, 100])('lists every pause once, newest first, at limit %i', async (limit) => {
    expect(await listAll('acme', limit)).toEqual(newestFirst);
  });

  it.each([1, 2, 3, 100])('lists every open pause once, newest first, at limit %i', async (limit) => {
    expect(await listAll('acme', limit, 'paused')).toEqual(newestFirst.filter((runId) => runId !== 'run-1'));
  });

  it("leaves another tenant's listing as it was", async () => {
    expect(await listAll('other', 100)).toEqual(['run-0']);
  });
});
