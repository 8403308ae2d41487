import { StorageUnavailableError } from '../errors.ts';
import { createCachedRead } from '../links/cached-read.ts';
import * as S from '../settings.ts';
import { logger } from './observability.ts';
import { describeError, secretStringReader } from './secrets.ts';

/**
 * SCIM's secret on AWS (§20 SCIM: `SCIM_SECRET_ARN`, the Secrets Manager secret the stack creates), read by the first
 * `/scim` request and cached as the link key is (five minutes: a secret rotated by replacing its value is in force
 * within them), never at cold start. Loaded lazily with the SCIM edge.
 */

let reads: { arn: string; read: () => Promise<string> } | undefined;

/** The SCIM secret in `arn`; a store that does not answer is a 503 the identity provider retries. */
export function readScimSecret(arn: string): Promise<string> {
  if (reads?.arn !== arn) {
    const read = secretStringReader(arn, S.scimSecretArn.env);
    reads = {
      arn,
      read: createCachedRead(
        read,
        (retryInMs, cause) =>
          new StorageUnavailableError('The SCIM secret cannot be read now; retry.', {
            retryAfterSeconds: Math.max(1, Math.ceil(retryInMs / 1000)),
            ...(cause === undefined ? {} : { cause }),
          }),
        { onFailure: (error) => logger.warn('The SCIM secret could not be read', { error: describeError(error) }) },
      ),
    };
  }
  return reads.read();
}
