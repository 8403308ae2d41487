import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, inject } from 'vitest';
import { S3TranscriptObjects, s3EndpointConfig } from '../../functions/checkpoints/s3/s3-objects.ts';

/**
 * The S3-compatible server the global setup started (`store` and `slow` projects), its bucket, and clients on it. A
 * `unit` test has none, and is told which project it belongs in.
 */

/** The endpoint and bucket of the tests' S3-compatible server. */
export function testBucket(): { endpoint: string; bucket: string } {
  const endpoint = inject('s3Endpoint');
  if (endpoint === undefined) {
    throw new Error(
      'This test uses the embedded S3 server: name its file *.store.test.ts (the README\'s "Develop" says why).',
    );
  }
  return { endpoint, bucket: inject('s3Bucket') };
}

/** A client on the tests' S3 server, destroyed after the file. */
export function testS3Client(): S3Client {
  const client = new S3Client(s3EndpointConfig(testBucket().endpoint, {}));
  afterAll(() => client.destroy());
  return client;
}

/** Transcript objects in the tests' bucket, on `client` (a new one when not given). */
export function testObjects(client: S3Client = testS3Client()): S3TranscriptObjects {
  return new S3TranscriptObjects({ bucket: testBucket().bucket, client });
}
