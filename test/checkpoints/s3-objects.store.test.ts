import { createHash } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import { INLINE_TRANSCRIPT_BYTES, OBJECT_HINT } from '../../functions/checkpoints/dynamodb/parts.ts';
import type { TranscriptObjects } from '../../functions/checkpoints/transcript-objects.ts';
import { StorageUnavailableError } from '../../functions/errors.ts';
import { NOT_DISPATCHED } from '../../functions/rehydrate/rehydrate.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { testBucket, testObjects, testS3Client } from '../support/s3.ts';
import { chatTranscript, expectedContinuation, pauseInput, runItems, storeOn } from './support.ts';

/**
 * Transcripts in the bucket (§23), on dynalite and s3rver: what the S3-compatible server does (pinned, since the code
 * is written against S3's behaviour and relies only on what both do), and what the store does with it — the object
 * first, the pause item naming it after, every read checked against the item.
 */

const table = useTestTable();
const s3 = testS3Client();
const objects = testObjects(s3);
const { bucket } = testBucket();

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64');

/** Over 64 KB compressed: random base64 stays about 0.75 of its size through brotli. */
const LARGE = 200_000;

async function objectBytes(key: string): Promise<Uint8Array | undefined> {
  try {
    const output = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return await output.Body?.transformToByteArray();
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

describe('the S3-compatible server (pinned: what the code may and may not rely on)', () => {
  const key = `pinned/${Date.now()}`;
  const body = Buffer.from('{"transcript":"bytes"}'.repeat(1000));

  it('stores a PutObject and serves it back whole by GetObject and its length by HeadObject', async () => {
    const put = await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ChecksumSHA256: sha256(body) }),
    );
    expect(put.$metadata.httpStatusCode).toBe(200);
    expect(Buffer.from((await objectBytes(key)) ?? [])).toEqual(body);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }));
    expect(head.ContentLength).toBe(body.length);
  });

  it('returns no checksum with GetObject or HeadObject, even asked with ChecksumMode (S3 returns the one put)', async () => {
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }));
    await got.Body?.transformToByteArray();
    expect(got.ChecksumSHA256).toBeUndefined();
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumSHA256).toBeUndefined();
  });

  it('accepts a PutObject whose ChecksumSHA256 is not its body’s (S3 refuses it: BadDigest)', async () => {
    const other = `${key}-bad-checksum`;
    const put = await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: other, Body: body, ChecksumSHA256: sha256(Buffer.from('x')) }),
    );
    expect(put.$metadata.httpStatusCode).toBe(200);
    expect(Buffer.from((await objectBytes(other)) ?? [])).toEqual(body);
  });

  it('ignores If-None-Match: * on a key that exists (S3 answers 412): the second put replaces the first', async () => {
    const other = `${key}-if-none-match`;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: other, Body: 'first', IfNoneMatch: '*' }));
    const second = await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: other, Body: 'second', IfNoneMatch: '*' }),
    );
    expect(second.$metadata.httpStatusCode).toBe(200);
    expect(Buffer.from((await objectBytes(other)) ?? []).toString()).toBe('second');
  });

  it('answers NoSuchKey to a GetObject and NotFound to a HeadObject of a key that is not there', async () => {
    await expect(s3.send(new GetObjectCommand({ Bucket: bucket, Key: `${key}-none` }))).rejects.toMatchObject({
      name: 'NoSuchKey',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: `${key}-none` }))).rejects.toMatchObject({
      name: 'NotFound',
    });
  });
});

describe('S3TranscriptObjects', () => {
  it('puts, gets and deletes an object; a key that is not there gets undefined and deletes without error', async () => {
    const key = `port/${Date.now()}`;
    const bytes = new Uint8Array([1, 2, 3, 250]);
    await objects.put(key, bytes, createHash('sha256').update(bytes).digest('base64url'));
    expect(await objects.get(key)).toEqual(bytes);
    await objects.delete(key);
    expect(await objects.get(key)).toBeUndefined();
    await expect(objects.delete(key)).resolves.toBeUndefined();
  });

  it('is StorageUnavailableError when the server does not answer', async () => {
    const { S3Client } = await import('@aws-sdk/client-s3');
    const { S3TranscriptObjects, s3EndpointConfig, s3ClientConfig } = await import(
      '../../functions/checkpoints/s3/s3-objects.ts'
    );
    // Nothing listens on port 9 of this machine.
    const client = new S3Client(s3ClientConfig({ ...s3EndpointConfig('http://127.0.0.1:9', {}), maxAttempts: 1 }));
    const down = new S3TranscriptObjects({ bucket, client });
    await expect(down.get('any')).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(down.put('any', new Uint8Array([1]), 'x')).rejects.toBeInstanceOf(StorageUnavailableError);
    client.destroy();
  });
});

/** `objects` recording each call in `log`. */
function recorded(log: string[]): TranscriptObjects {
  return {
    put: async (key, bytes, hash) => {
      log.push(`put ${key}`);
      await objects.put(key, bytes, hash);
    },
    get: (key) => objects.get(key),
    delete: async (key) => {
      log.push(`delete ${key}`);
      await objects.delete(key);
    },
  };
}

/** A document client on the test table logging each PutItem of a pause item in `log`; `fail` makes them fail. */
function tableLogging(log: string[], fail = false): DynamoDBDocumentClient {
  const raw = table.newClient();
  raw.middlewareStack.add(
    (next, context) => async (args) => {
      // The document client's command may not have marshalled its item yet at this step.
      const kind = (args.input as { Item?: { kind?: unknown } }).Item?.kind;
      const isPause = kind === 'pause' || (kind as { S?: unknown } | undefined)?.S === 'pause';
      if (context.commandName === 'PutItemCommand' && isPause) {
        log.push('put pause item');
        if (fail) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      }
      return next(args);
    },
    { step: 'initialize', name: 'logPauseItems' },
  );
  return DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
}

describe('a transcript in the bucket', () => {
  it('keeps a transcript of at most 64 KB compressed in the table, in parts, and writes no object', async () => {
    const log: string[] = [];
    const store = storeOn(table, { objects: recorded(log) });
    // 80 KB of base64 is about 60 KB through brotli: under the line.
    const input = pauseInput({ messages: chatTranscript(80_000) });
    const { interruptId } = await store.pause(input);
    const pause = (await runItems(table, 'acme', input.runId)).find((item) => item.kind === 'pause');
    expect(pause?.byteLength as number).toBeLessThanOrEqual(INLINE_TRANSCRIPT_BYTES);
    expect(pause).toMatchObject({ v: 2, chunkCount: 1 });
    expect(pause).not.toHaveProperty('objectKey');
    expect(interruptId.split('.')[1]).toBe('1');
    expect(log).toEqual([]);
  });

  it('writes the object before the pause item, names it by tenant, run and pause, and holds its length and SHA-256', async () => {
    const log: string[] = [];
    const store = storeOn(table, { client: tableLogging(log), objects: recorded(log) });
    const messages = chatTranscript(LARGE);
    const input = pauseInput({ messages });
    const { interruptId } = await store.pause(input);
    const [seq, hint, token] = interruptId.split('.') as [string, string, string];
    const key = Keys.object('acme', input.runId, Number(seq), token);
    expect(hint).toBe(OBJECT_HINT);
    expect(key).toBe(`t/acme/r/${input.runId}/p/${seq.padStart(10, '0')}.${token}`);
    expect(log).toEqual([`put ${key}`, 'put pause item']);

    const items = await runItems(table, 'acme', input.runId);
    expect(items).toHaveLength(1);
    const pause = items[0] as Record<string, unknown>;
    const stored = (await objectBytes(key)) as Uint8Array;
    expect(pause).toMatchObject({
      v: 3,
      objectKey: key,
      byteLength: stored.length,
      sha256: createHash('sha256').update(stored).digest('base64url'),
    });
    expect(pause.byteLength as number).toBeGreaterThan(INLINE_TRANSCRIPT_BYTES);
    expect(pause).not.toHaveProperty('chunkCount');

    const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId }, { includeMessages: true });
    expect(view.messages).toEqual(messages);
    const result = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'yes' });
    expect(result.messages).toEqual(expectedContinuation(messages, 'yes', NOT_DISPATCHED));
    const again = await store.getContinuation({
      tenant: 'acme',
      runId: input.runId,
      continuationId: result.continuationId,
    });
    expect(again.messages).toEqual(result.messages);
  });

  it('cut between the object and the item: the object is orphaned, the pause never half-written, a retry pauses', async () => {
    const log: string[] = [];
    const input = pauseInput({ messages: chatTranscript(LARGE) });
    const cut = storeOn(table, { client: tableLogging(log, true), objects: recorded(log) });
    await expect(cut.pause(input)).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(log).toHaveLength(2);
    const [put, item] = log as [string, string];
    expect(item).toBe('put pause item');
    const orphan = put.slice('put '.length);
    expect(orphan.startsWith(`t/acme/r/${input.runId}/p/`)).toBe(true);
    expect((await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: orphan }))).ContentLength).toBeGreaterThan(0);
    expect(await runItems(table, 'acme', input.runId)).toEqual([]);

    const store = storeOn(table, { objects });
    const paused = await store.pause(input);
    expect(paused.interruptId.split('.')[2]).not.toBe(orphan.split('.').at(-1));
    const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId: paused.interruptId });
    expect(view.status).toBe('paused');
  });

  it.each([
    [
      'bytes of the same length changed',
      (bytes: Uint8Array) => Uint8Array.from(bytes, (b, i) => (i === 7 ? b ^ 1 : b)),
    ],
    ['a byte cut off', (bytes: Uint8Array) => bytes.subarray(1)],
  ])('is a 503, never a transcript, when the object has %s; nothing changes', async (_, tamper) => {
    const store = storeOn(table, { objects });
    const input = pauseInput({ messages: chatTranscript(LARGE) });
    const { interruptId } = await store.pause(input);
    const [seq, , token] = interruptId.split('.') as [string, string, string];
    const key = Keys.object('acme', input.runId, Number(seq), token);
    const stored = (await objectBytes(key)) as Uint8Array;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: tamper(stored) }));
    const pauseKey = { tenant: 'acme', runId: input.runId, interruptId };

    await expect(store.getPause(pauseKey, { includeMessages: true })).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(store.resume({ ...pauseKey, answer: 'yes' })).rejects.toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringContaining(interruptId),
    });
    // Nothing was decided: the pause is still open at its first revision.
    const [item] = await runItems(table, 'acme', input.runId);
    expect(item).toMatchObject({ status: 'paused', rev: 1 });
    expect(item).not.toHaveProperty('d0');
  });

  it('is a 503 when the object is gone, and when the store has no bucket to read it from', async () => {
    const store = storeOn(table, { objects });
    const input = pauseInput({ messages: chatTranscript(LARGE) });
    const { interruptId } = await store.pause(input);
    const pauseKey = { tenant: 'acme', runId: input.runId, interruptId };
    await expect(storeOn(table).resume({ ...pauseKey, answer: 'yes' })).rejects.toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringContaining('TRANSCRIPT_BUCKET'),
    });
    const [seq, , token] = interruptId.split('.') as [string, string, string];
    await s3.send(
      new DeleteObjectCommand({ Bucket: bucket, Key: Keys.object('acme', input.runId, Number(seq), token) }),
    );
    await expect(store.resume({ ...pauseKey, answer: 'yes' })).rejects.toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringContaining('missing from the bucket'),
    });
    // The view without messages needs no transcript: it still shows.
    expect((await store.getPause(pauseKey)).status).toBe('paused');
  });

  it('stores a 16 MB transcript as one object and resumes it byte-identical', async () => {
    const store = storeOn(table, { objects });
    const messages = chatTranscript(16 * 1024 * 1024 - 2_000);
    const input = pauseInput({ messages });
    const { interruptId } = await store.pause(input);
    const items = await runItems(table, 'acme', input.runId);
    expect(items.map((item) => item.kind)).toEqual(['pause']);
    expect(items[0]?.byteLength as number).toBeGreaterThan(12_000_000);
    const result = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'yes' });
    expect(JSON.stringify(result.messages.slice(0, -2))).toBe(JSON.stringify(messages));
  });

  it('deletes the object of a write attempt that lost its sequence number', async () => {
    const log: string[] = [];
    const input = pauseInput({ messages: chatTranscript(LARGE) });
    // Each object's put waits for the other's, so both attempts have read the run's latest pause before either item is
    // written: the race is certain, not left to the machine's timing (under load one attempt could finish first, and the
    // other then finds its pause open and writes no object).
    const objectsMeeting = recorded(log);
    let arrived = 0;
    let bothArrived = () => {};
    const meeting = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    const put = objectsMeeting.put.bind(objectsMeeting);
    objectsMeeting.put = async (key, bytes, hash) => {
      if (++arrived === 2) bothArrived();
      await meeting;
      await put(key, bytes, hash);
    };
    const store = storeOn(table, { objects: objectsMeeting });
    // Two pauses of one run at once: one wins the number; the other's object is removed.
    const results = await Promise.allSettled([
      store.pause(input),
      store.pause({ ...input, idempotencyKey: undefined }),
    ]);
    const won = results.filter((result) => result.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const puts = log.filter((line) => line.startsWith('put ')).map((line) => line.slice(4));
    const deletes = log.filter((line) => line.startsWith('delete ')).map((line) => line.slice(7));
    expect(puts).toHaveLength(2);
    expect(deletes).toHaveLength(1);
    expect(await objectBytes(deletes[0] as string)).toBeUndefined();
    const kept = puts.find((key) => key !== deletes[0]) as string;
    expect(await objectBytes(kept)).toBeDefined();
  });
});
