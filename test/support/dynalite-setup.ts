import type { TestProject } from 'vitest/node';
import { startEmbeddedDynamoDB } from '../../functions/local/embedded-dynamodb.ts';
import { startEmbeddedS3 } from '../../functions/local/embedded-s3.ts';

/**
 * vitest global setup of the `store` and `slow` projects: starts the embedded DynamoDB-compatible server (dynalite, in
 * memory, on a free port) and the embedded S3-compatible server (s3rver, in a temporary directory, with the bucket
 * `TEST_BUCKET`) once for the project's run and hands their endpoints to the tests (`inject('dynamodbEndpoint')`,
 * `inject('s3Endpoint')`, see `dynamodb.ts` and `s3.ts`). With `DYNAMODB_ENDPOINT` (or `HANDBACK_S3_ENDPOINT`) set,
 * the tests use that endpoint and that server is not started.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const s3 = await startS3(project);
  const configured = process.env.DYNAMODB_ENDPOINT;
  if (configured) {
    project.provide('dynamodbEndpoint', configured);
    project.provide('dynamodbEmbedded', false);
    return s3;
  }
  const embedded = await startEmbeddedDynamoDB();
  project.provide('dynamodbEndpoint', embedded.endpoint);
  project.provide('dynamodbEmbedded', true);
  return async () => {
    await embedded.close();
    await s3();
  };
}

/** The bucket the tests' transcripts go to. */
export const TEST_BUCKET = 'handback-test-transcripts';

async function startS3(project: TestProject): Promise<() => Promise<void>> {
  project.provide('s3Bucket', TEST_BUCKET);
  const configured = process.env.HANDBACK_S3_ENDPOINT;
  if (configured) {
    project.provide('s3Endpoint', configured);
    return async () => {};
  }
  const embedded = await startEmbeddedS3({ bucket: TEST_BUCKET });
  if (embedded === undefined) throw new Error('s3rver is not installed: npm ci');
  project.provide('s3Endpoint', embedded.endpoint);
  return () => embedded.close();
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoint of the DynamoDB-compatible server the tests run on. */
    dynamodbEndpoint: string;
    /** True when it is the embedded dynalite started by this setup. */
    dynamodbEmbedded: boolean;
    /** The endpoint of the S3-compatible server the tests' transcripts go to. */
    s3Endpoint: string;
    /** Its bucket. */
    s3Bucket: string;
  }
}
