import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import { TABLE } from '../../functions/checkpoints/table.ts';
import {
  BadRequestError,
  CorruptCheckpointError,
  StorageUnavailableError,
  UnsupportedRecordError,
} from '../../functions/errors.ts';
import { recordingClient, useTestTable } from '../support/dynamodb.ts';
import { pauseInput, runItems, setAttribute, storeOn, testClock } from './support.ts';

/** What is specific to the DynamoDB layout: keys, parts, TTL, indexes, request counts, and reads of odd items. */

const table = useTestTable();

describe('the DynamoDB layout', () => {
  it('keeps a pause in one item keyed by tenant, run and sequence number, its transcript in parts keyed by its token', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const [seq, parts, token] = interruptId.split('.');
    const items = await runItems(table, 'acme', input.runId);
    expect(items.map((item) => item.sk).sort()).toEqual(
      [
        Keys.pause(Number(seq)),
        ...Array.from({ length: Number(parts) }, (_, i) => Keys.part(Number(seq), token as string, i)),
      ].sort(),
    );
    const pause = items.find((item) => item.kind === 'pause') as Record<string, unknown>;
    // Both listings in the one shard of this pause (shard 0 is the tenant's unsharded key).
    const shard = Keys.listingShardOf(`T#acme#R#${input.runId}`, Number(seq));
    expect(pause).toMatchObject({
      pk: `T#acme#R#${input.runId}`,
      v: 2,
      status: 'paused',
      rev: 1,
      [TABLE.byTenant.partitionKey.name]: shard === 0 ? 'T#acme' : `T#acme#${shard}`,
      [TABLE.openByTenant.partitionKey.name]: shard === 0 ? 'T#acme' : `T#acme#${shard}`,
      [TABLE.byDue.partitionKey.name]: expect.stringMatching(/^D#\d+$/),
    });
  });

  it('writes a TTL attribute on every item, after expiry plus the retention', async () => {
    const clock = testClock('2026-01-01T00:00:00.000Z');
    const store = storeOn(table, { clock: clock.now });
    const input = pauseInput({ expiresInSeconds: 60 });
    await store.pause(input);
    const ttl = Date.parse('2026-01-01T00:01:00.000Z') / 1000 + 30 * 24 * 60 * 60;
    for (const item of await runItems(table, 'acme', input.runId)) expect(item.ttl).toBe(ttl);
  });

  it('takes the pause out of the open and due indexes when it closes', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'yes' });
    const pause = (await runItems(table, 'acme', input.runId)).find((item) => item.kind === 'pause');
    expect(pause).not.toHaveProperty(TABLE.openByTenant.partitionKey.name);
    expect(pause).not.toHaveProperty(TABLE.byDue.partitionKey.name);
    expect(pause).toMatchObject({ status: 'resumed', rev: 2, d0: expect.any(String) });
  });

  it('resumes with one strongly consistent read request and one conditional write of O(answer) bytes', async () => {
    const input = pauseInput();
    const { interruptId } = await storeOn(table).pause(input);
    const { client, commands } = recordingClient(table);
    const result = await storeOn(table, { client }).resume({
      tenant: 'acme',
      runId: input.runId,
      interruptId,
      answer: 'yes',
    });
    expect(result.replayed).toBe(false);
    expect(commands.map((c) => c.command)).toEqual(['BatchGetItemCommand', 'UpdateItemCommand']);
    const [read, write] = commands;
    expect(JSON.stringify(read?.input)).toContain('"ConsistentRead":true');
    // A write is billed for the whole item (this one's ~1.1 KB, with who paused and who decided): at most 2 units.
    expect((write?.consumedCapacity as { CapacityUnits?: number } | undefined)?.CapacityUnits).toBeLessThanOrEqual(2);
    expect(write?.input).toMatchObject({ ConditionExpression: '#token = :token AND #rev = :rev' });
    expect(JSON.stringify(write?.input).length).toBeLessThan(2_000);
  });

  it('records a decision that leaves asks pending with one read and one write of that decision alone', async () => {
    const messages = [
      { role: 'user', content: 'Do both.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: ['a', 'b'].map((id) => ({ id, type: 'function', function: { name: 'act', arguments: '{}' } })),
      },
    ];
    const input = pauseInput({
      messages,
      toolCallId: undefined,
      prompt: undefined,
      asks: [
        { toolCallId: 'a', kind: 'approval' },
        { toolCallId: 'b', kind: 'approval' },
      ],
    });
    const { interruptId } = await storeOn(table).pause(input);
    const { client, commands } = recordingClient(table);
    const result = await storeOn(table, { client }).decide({
      tenant: 'acme',
      runId: input.runId,
      interruptId,
      decisions: [{ toolCallId: 'a', decision: 'approve' }],
    });
    expect(result).toMatchObject({ kind: 'pending', pending: ['b'] });
    expect(commands.map((c) => c.command)).toEqual(['BatchGetItemCommand', 'UpdateItemCommand']);
    const values = Object.values((commands[1]?.input.ExpressionAttributeValues ?? {}) as Record<string, unknown>);
    expect(values).toContain(
      JSON.stringify(JSON.parse(values.find((v) => typeof v === 'string' && v.includes('approve')) as string)),
    );
    expect(JSON.stringify(commands[1]?.input).length).toBeLessThan(1_000);
  });

  it('steps over the parts a crashed writer left above the latest pause, and never reads them', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const first = await store.pause(input);
    await store.resume({ tenant: 'acme', runId: input.runId, interruptId: first.interruptId, answer: 'ok' });
    const orphan = { pk: Keys.run('acme', input.runId), v: 2, kind: 'part', ttl: 1, data: new Uint8Array([1, 2, 3]) };
    for (const index of [0, 1]) {
      await table.client.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { ...orphan, sk: Keys.part(2, 'crashedWriterToken0000', index) },
        }),
      );
    }
    const second = await store.pause(input);
    expect(second.interruptId).toMatch(/^2\./);
    const result = await store.resume({
      tenant: 'acme',
      runId: input.runId,
      interruptId: second.interruptId,
      answer: 'y',
    });
    expect(result.messages.slice(0, input.messages.length)).toEqual(input.messages);
  });

  it('never lists a pause the table does not hold, though its index entry is there', async () => {
    const store = storeOn(table);
    const tenant = `t-${Date.now()}`;
    const kept = pauseInput({ tenant });
    await store.pause(kept);
    const lost = pauseInput({ tenant });
    await store.pause(lost);
    // As after a kill between the index write and the item write: delete the item behind the index's back, keeping
    // an index entry by putting a keys-only stand-in that the listing must refuse to show.
    const lostItem = (await runItems(table, tenant, lost.runId)).find((item) => item.kind === 'pause') as Record<
      string,
      unknown
    >;
    await table.client.send(
      new DeleteCommand({ TableName: table.tableName, Key: { pk: lostItem.pk, sk: lostItem.sk } }),
    );
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          pk: lostItem.pk,
          sk: lostItem.sk,
          gsi1pk: lostItem.gsi1pk,
          gsi1sk: lostItem.gsi1sk,
          openPk: lostItem.openPk,
          kind: 'half-written',
        },
      }),
    );
    for (const status of [undefined, 'paused'] as const) {
      const page = await store.listPauses({ tenant, ...(status ? { status } : {}) });
      expect(page.items.map((item) => item.runId)).toEqual([kept.runId]);
    }
  });

  it('shows a pause whose status a newer version wrote, and refuses to act on it with a retryable error', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const pause = (await runItems(table, 'acme', input.runId)).find((item) => item.kind === 'pause') as Record<
      string,
      unknown
    >;
    await setAttribute(table, pause, 'status', 'archived');
    const key = { tenant: 'acme', runId: input.runId, interruptId };
    expect((await store.getPause(key)).status).toBe('archived');
    const error = await store.resume({ ...key, answer: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedRecordError);
    expect(error).toMatchObject({ code: 'unsupported_record' });
    await expect(store.pause(input)).rejects.toBeInstanceOf(UnsupportedRecordError);
  });

  it('tells a newer schema version (retryable) from a missing field (corrupt)', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const key = { tenant: 'acme', runId: input.runId, interruptId };
    const pause = (await runItems(table, 'acme', input.runId)).find((item) => item.kind === 'pause') as Record<
      string,
      unknown
    >;
    await setAttribute(table, pause, 'v', 4);
    await expect(store.getPause(key)).rejects.toBeInstanceOf(UnsupportedRecordError);
    // Version 3 is a pause whose transcript is in the bucket: one without its object's key is corrupt.
    await setAttribute(table, pause, 'v', 3);
    await expect(store.getPause(key)).rejects.toBeInstanceOf(CorruptCheckpointError);
    await setAttribute(table, pause, 'v', 2);
    await setAttribute(table, pause, 'asks', 'not json');
    await expect(store.getPause(key)).rejects.toBeInstanceOf(CorruptCheckpointError);
  });

  it('answers StorageUnavailableError when the table does not answer in time', async () => {
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
    const { createServer } = await import('node:net');
    const { storageClientConfig, createDynamoDBCheckpointStore } = await import(
      '../../functions/checkpoints/dynamodb-store.ts'
    );
    // A table that accepts connections and never answers.
    const sockets: import('node:net').Socket[] = [];
    const frozen = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => frozen.listen(0, '127.0.0.1', resolve));
    const { port } = frozen.address() as import('node:net').AddressInfo;
    const raw = new DynamoDBClient(
      storageClientConfig({
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
        maxAttempts: 2,
        requestHandler: { connectionTimeout: 200, requestTimeout: 300 },
      }),
    );
    const store = createDynamoDBCheckpointStore({ client: DynamoDBDocumentClient.from(raw), tableName: 'frozen' });
    const error = await store
      .getPause({ tenant: 'acme', runId: 'r', interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect(error).toMatchObject({ code: 'storage_unavailable', retryAfterSeconds: 1 });
    raw.destroy();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => frozen.close(() => resolve()));
  });
});

describe('createDynamoDBCheckpointStore', () => {
  it('refuses options without a client or a table name with a named error saying which', async () => {
    const { createDynamoDBCheckpointStore } = await import('../../functions/checkpoints/dynamodb-store.ts');
    const noClient = (() => createDynamoDBCheckpointStore(undefined as never)) as () => unknown;
    expect(noClient).toThrow(BadRequestError);
    expect(noClient).toThrow('needs a DynamoDBDocumentClient as `client`');
    const noTable = () => createDynamoDBCheckpointStore({ client: table.client, tableName: '' });
    expect(noTable).toThrow(BadRequestError);
    expect(noTable).toThrow('needs the table name as `tableName`');
  });
});
