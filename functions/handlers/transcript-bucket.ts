import { S3TranscriptObjects, s3ClientConfig } from '../checkpoints/s3/s3-objects.ts';
import { traceAwsClient } from './tracing.ts';

/**
 * The transcript bucket of a Lambda function's store (§23): `@aws-sdk/client-s3` loaded, and its client made (traced),
 * on the first transcript over 64 KB a request meets, so no function's init loads it; at `endpoint` when one is
 * configured (an S3-compatible server, path-style, reached with the function's own credentials and region).
 */
export function tracedTranscriptObjects(bucket: string, endpoint: string | undefined): S3TranscriptObjects {
  return new S3TranscriptObjects({
    bucket,
    clientConfig: s3ClientConfig(endpoint === undefined ? {} : { endpoint, forcePathStyle: true }),
    capture: traceAwsClient,
  });
}
