import { randomBytes } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3EndpointConfig } from '../../functions/checkpoints/s3/s3-objects.ts';
import { pauseBody, pausedTurn } from '../handlers/events.ts';
import { type RunningService, request, startService, stopAll } from './service.ts';

/**
 * `npm start` keeps a transcript over 64 KB compressed in its embedded S3 server (§23): it prints where that server
 * listens, the object is there under the pause's tenant and run, the pause reads and resumes as any other, a small
 * transcript writes no object, and an object whose bytes were changed is a 503, never a transcript.
 */

afterAll(stopAll);

/** Text that does not compress: base64 of random bytes, `bytes` of it. */
const noise = (bytes: number) =>
  randomBytes(Math.ceil((bytes * 3) / 4))
    .toString('base64')
    .slice(0, bytes);

let service: RunningService;
let s3: S3Client;
const BUCKET = 'handback-transcripts';

beforeAll(async () => {
  service = await startService();
  const match = /^S3 on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(service.output());
  expect(match, service.output()).not.toBeNull();
  s3 = new S3Client(s3EndpointConfig(match?.[1] as string, {}));
});

afterAll(() => s3?.destroy());

/** The keys of the bucket's objects under `prefix`. */
async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key as string);
}

describe('npm start with a transcript over 64 KB', () => {
  it('prints the S3 server’s URL before its own', () => {
    const lines = service.output().trim().split('\n');
    expect(lines[0]).toMatch(/^S3 on http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[1]).toBe(`Handback listening on ${service.url}`);
  });

  it('keeps the transcript in the bucket under its tenant and run, and pauses, reads and resumes as any other', async () => {
    const runId = 'big-run';
    const big = noise(200_000);
    const paused = await request(`${service.url}/runs/${runId}/pauses`, 'POST', {
      ...pauseBody(),
      messages: pausedTurn(big),
    });
    expect(paused.status).toBe(201);
    const keys = await keysUnder(`t/default/r/${runId}/`);
    expect(keys).toHaveLength(1);
    const stored = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: keys[0] }));
    expect(Number(stored.ContentLength)).toBeGreaterThan(64 * 1024);

    const shown = await request(`${service.url}/runs/${runId}/pauses/${paused.body.interruptId}`, 'GET');
    expect(shown).toMatchObject({ status: 200, body: { status: 'paused' } });
    const resumed = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId: paused.body.interruptId,
      answer: 'yes',
    });
    expect(resumed).toMatchObject({ status: 200, body: { outcome: 'resumed' } });
    const continuation = await request(
      `${service.url}/runs/${runId}/continuations/${resumed.body.continuationId}`,
      'GET',
    );
    expect(continuation.status).toBe(200);
    // The transcript comes back from the bucket whole: its first message is the one paused, byte for byte.
    expect(continuation.body.messages[0]).toEqual(pausedTurn(big)[0]);
  });

  it('writes no object for a transcript under 64 KB compressed', async () => {
    const paused = await request(`${service.url}/runs/small-run/pauses`, 'POST', pauseBody());
    expect(paused.status).toBe(201);
    expect(await keysUnder('t/default/r/small-run/')).toEqual([]);
  });

  it('answers 503 storage_unavailable for an object whose bytes were changed, and the pause stays as it was', async () => {
    const runId = 'tampered-run';
    const paused = await request(`${service.url}/runs/${runId}/pauses`, 'POST', {
      ...pauseBody(),
      messages: pausedTurn(noise(200_000)),
    });
    expect(paused.status).toBe(201);
    const [key] = await keysUnder(`t/default/r/${runId}/`);
    const stored = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    const bytes = await (stored.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray();
    const changed = Uint8Array.from(bytes);
    changed[changed.length >> 1] = (changed[changed.length >> 1] as number) ^ 0xff;
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: changed }));

    const refused = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId: paused.body.interruptId,
      answer: 'yes',
    });
    expect(refused).toMatchObject({ status: 503, body: { code: 'storage_unavailable' } });
    // Its control: the bytes put back, the same resume goes through, so nothing was decided by the refused one.
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: bytes }));
    const resumed = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId: paused.body.interruptId,
      answer: 'yes',
    });
    expect(resumed).toMatchObject({ status: 200, body: { outcome: 'resumed' } });
  });
});
