import { createHash } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { archiveTranscript } from '../../functions/checkpoints/dynamodb/archive.ts';
import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import { ARCHIVE_TRANSCRIPT_BYTES, INLINE_TRANSCRIPT_BYTES } from '../../functions/checkpoints/dynamodb/parts.ts';
import type { RecordKey } from '../../functions/checkpoints/record.ts';
import type { TranscriptObjects } from '../../functions/checkpoints/transcript-objects.ts';
import { CorruptCheckpointError } from '../../functions/errors.ts';
import { NOT_DISPATCHED } from '../../functions/rehydrate/rehydrate.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { testBucket, testObjects, testS3Client } from '../support/s3.ts';
import { chatTranscript, expectedContinuation, pauseInput, runItems, setAttribute, storeOn } from './support.ts';

/**
 * A closed pause's transcript moved from its parts to the bucket (§23, `archiveTranscript`), on dynalite
 * and s3rver: the object first, then the item naming it (only while it still names its parts), then the parts gone;
 * the pause's id, view and continuation unchanged; never a move of bytes that are not the item's.
 */

const table = useTestTable();
const s3 = testS3Client();
const objects = testObjects(s3);
const { bucket } = testBucket();

/** About 15 KB through brotli: over `ARCHIVE_TRANSCRIPT_BYTES`, under `INLINE_TRANSCRIPT_BYTES`, so in parts. */
const MEDIUM = 20_000;

/** The move on the test table, through `client`, to `bucketObjects` (`none`: no bucket). */
function persistenceOn(client = table.client, bucketObjects: TranscriptObjects | 'none' = objects) {
  const on = { client, tableName: table.tableName, objects: bucketObjects === 'none' ? undefined : bucketObjects };
  return { archive: (key: RecordKey) => archiveTranscript(on, key) };
}

/** The kinds of a run's items, sorted. */
async function kindsOf(runId: string): Promise<string[]> {
  return (await runItems(table, 'acme', runId)).map((item) => String(item.kind)).sort();
}

async function objectBytes(key: string): Promise<Uint8Array | undefined> {
  try {
    return await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body?.transformToByteArray();
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

/** A pause of `size` characters of transcript, answered: closed, its transcript in parts. */
async function closedPause(size = MEDIUM) {
  const store = storeOn(table, { objects });
  const messages = chatTranscript(size);
  const input = pauseInput({ messages });
  const { interruptId } = await store.pause(input);
  const result = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'yes' });
  const [seq, , token] = interruptId.split('.') as [string, string, string];
  const key = { tenant: 'acme', runId: input.runId, seq: Number(seq) };
  return {
    store,
    messages,
    input,
    interruptId,
    result,
    key,
    objectKey: Keys.object('acme', input.runId, key.seq, token),
  };
}

/** A client on the test table that runs `before` ahead of the first command named `commandName`. */
function clientRunning(commandName: string, before: () => Promise<void>): DynamoDBDocumentClient {
  const raw = table.newClient();
  let done = false;
  raw.middlewareStack.add(
    (next, context) => async (args) => {
      if (!done && context.commandName === commandName) {
        done = true;
        await before();
      }
      return next(args);
    },
    { step: 'initialize', name: 'runBefore' },
  );
  return DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
}

describe('a closed transcript moved to the bucket', () => {
  it('writes the object, names it on the item, deletes the parts; the id, the view and the continuation are unchanged', async () => {
    const { store, messages, input, interruptId, result, key, objectKey } = await closedPause();
    const before = await runItems(table, 'acme', input.runId);
    const pauseBefore = before.find((item) => item.kind === 'pause') as Record<string, unknown>;
    expect(pauseBefore).toMatchObject({ v: 2, chunkCount: 1, status: 'resumed' });
    expect(pauseBefore.byteLength as number).toBeGreaterThanOrEqual(ARCHIVE_TRANSCRIPT_BYTES);
    expect(pauseBefore.byteLength as number).toBeLessThanOrEqual(INLINE_TRANSCRIPT_BYTES);
    expect(before.filter((item) => item.kind === 'part')).toHaveLength(1);

    expect(await persistenceOn().archive(key)).toBe('archived');

    const after = await runItems(table, 'acme', input.runId);
    expect(await kindsOf(input.runId)).toEqual(['pause']);
    const pause = after[0] as Record<string, unknown>;
    // Only where the bytes are changed: the revision, the status and the part count (the id's hint) are the same.
    expect(pause).toMatchObject({ v: 3, objectKey, chunkCount: 1, rev: pauseBefore.rev, status: 'resumed' });
    const stored = (await objectBytes(objectKey)) as Uint8Array;
    expect(stored.length).toBe(pause.byteLength);
    expect(createHash('sha256').update(stored).digest('base64url')).toBe(pause.sha256);

    const pauseKey = { tenant: 'acme', runId: input.runId, interruptId };
    const view = await store.getPause(pauseKey, { includeMessages: true });
    expect(view.interruptId).toBe(interruptId);
    expect(view.messages).toEqual(messages);
    const again = await store.getContinuation({
      tenant: 'acme',
      runId: input.runId,
      continuationId: result.continuationId,
    });
    expect(again.messages).toEqual(expectedContinuation(messages, 'yes', NOT_DISPATCHED));
  });

  it('is safe to repeat: a second move finds the object named and changes nothing', async () => {
    const { input, key, objectKey } = await closedPause();
    expect(await persistenceOn().archive(key)).toBe('archived');
    const once = await runItems(table, 'acme', input.runId);
    const bytes = await objectBytes(objectKey);
    expect(await persistenceOn().archive(key)).toBe('archived');
    expect(await runItems(table, 'acme', input.runId)).toEqual(once);
    expect(await objectBytes(objectKey)).toEqual(bytes);
  });

  it('deletes the parts a move left behind when it stopped after naming the object', async () => {
    const { input, key, objectKey } = await closedPause();
    expect(await persistenceOn().archive(key)).toBe('archived');
    const [pause] = await runItems(table, 'acme', input.runId);
    // The parts as a move that stopped before deleting them would leave them: put back, byte for byte.
    const part = await partAsItWas(input.runId, pause as Record<string, unknown>, objectKey);
    await table.client.send(new PutCommand({ TableName: table.tableName, Item: part }));
    expect(await kindsOf(input.runId)).toEqual(['part', 'pause']);
    expect(await persistenceOn().archive(key)).toBe('archived');
    expect(await kindsOf(input.runId)).toEqual(['pause']);
  });

  it.each([
    [
      'open',
      async () => {
        const store = storeOn(table, { objects });
        const input = pauseInput({ messages: chatTranscript(MEDIUM) });
        const { interruptId } = await store.pause(input);
        return { runId: input.runId, seq: Number(interruptId.split('.')[0]) };
      },
    ],
    [
      'small',
      async () => {
        const { input, key } = await closedPause(2_000);
        return { runId: input.runId, seq: key.seq };
      },
    ],
  ])('leaves a transcript in its parts when the pause is %s', async (outcome, make) => {
    const { runId, seq } = await make();
    const before = await runItems(table, 'acme', runId);
    expect(await persistenceOn().archive({ tenant: 'acme', runId, seq })).toBe(outcome);
    expect(await runItems(table, 'acme', runId)).toEqual(before);
  });

  it('answers gone for no pause and no-bucket without a bucket, and writes nothing', async () => {
    const { input, key, objectKey } = await closedPause();
    const before = await runItems(table, 'acme', input.runId);
    expect(await persistenceOn(table.client, 'none').archive(key)).toBe('no-bucket');
    expect(await persistenceOn().archive({ ...key, seq: key.seq + 1 })).toBe('gone');
    expect(await runItems(table, 'acme', input.runId)).toEqual(before);
    expect(await objectBytes(objectKey)).toBeUndefined();
  });

  it('never moves parts that are not the transcript the item names: CorruptCheckpointError, nothing written', async () => {
    const { store, input, interruptId, key, objectKey } = await closedPause();
    const items = await runItems(table, 'acme', input.runId);
    const part = items.find((item) => item.kind === 'part') as Record<string, unknown>;
    const data = Uint8Array.from(part.data as Uint8Array, (byte, index) => (index === 9 ? byte ^ 1 : byte));
    await setAttribute(table, part, 'data', data);
    const before = await runItems(table, 'acme', input.runId);
    await expect(persistenceOn().archive(key)).rejects.toBeInstanceOf(CorruptCheckpointError);
    expect(await runItems(table, 'acme', input.runId)).toEqual(before);
    expect(await objectBytes(objectKey)).toBeUndefined();
    // The pause still shows, as it did.
    expect((await store.getPause({ tenant: 'acme', runId: input.runId, interruptId })).status).toBe('resumed');
  });

  it('removes its object when the item is gone between the read and the write (TTL), and answers gone', async () => {
    const { input, key, objectKey } = await closedPause();
    const pauseKey = { pk: Keys.run('acme', input.runId), sk: Keys.pause(key.seq) };
    const client = clientRunning('UpdateItemCommand', async () => {
      await table.client.send(new DeleteCommand({ TableName: table.tableName, Key: pauseKey }));
    });
    expect(await persistenceOn(client).archive(key)).toBe('gone');
    expect(await objectBytes(objectKey)).toBeUndefined();
  });

  it('serves a reader that read the item before the move and its parts after it: the item read again names the object', async () => {
    const { store, messages, input, interruptId, key } = await closedPause();
    // The reader's one BatchGetItem (item and parts) sees the item as it was; the move lands before its parts are read.
    const raw = table.newClient();
    raw.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'BatchGetItemCommand') {
          const responses = (result.output as { Responses: Record<string, Array<Record<string, unknown>>> }).Responses;
          const found = responses[table.tableName] ?? [];
          await persistenceOn().archive(key);
          // As read before the move: the pause item with its parts, the part item gone by the time it is read.
          const kind = (item: Record<string, unknown>) => (item.kind as { S?: string }).S ?? item.kind;
          responses[table.tableName] = found.filter((item) => kind(item) === 'pause');
        }
        return result;
      },
      { step: 'initialize', name: 'moveMidRead' },
    );
    const reader = storeOn(table, { client: DynamoDBDocumentClient.from(raw), objects });
    const view = await reader.getPause({ tenant: 'acme', runId: input.runId, interruptId }, { includeMessages: true });
    expect(view.messages).toEqual(messages);
    expect(await kindsOf(input.runId)).toEqual(['pause']);
    expect((await store.getPause({ tenant: 'acme', runId: input.runId, interruptId })).status).toBe('resumed');
  });
});

/** The part item of an archived pause as it was before the move: its bytes are the object's. */
async function partAsItWas(runId: string, pause: Record<string, unknown>, objectKey: string) {
  const bytes = (await objectBytes(objectKey)) as Uint8Array;
  return {
    pk: Keys.run('acme', runId),
    sk: Keys.part(pause.seq as number, pause.token as string, 0),
    v: 2,
    kind: 'part',
    data: bytes,
    ttl: pause.ttl,
  };
}
