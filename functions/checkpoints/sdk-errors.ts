import { StorageUnavailableError } from '../errors.ts';

/**
 * What an AWS SDK error of a backend is to the port, pure: the store did not answer, or refused for load (a retry may
 * succeed), is `StorageUnavailableError` (HTTP 503 with `Retry-After`); anything else is left as it is. The DynamoDB
 * adapter and the S3 transcript objects share it, so a table and a bucket that do not answer read the same.
 */

/** SDK error names that mean the store did not answer, or refused for load (S3's `SlowDown` too): a retry may succeed. */
const UNAVAILABLE = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'LimitExceededException',
  'SlowDown',
  // S3: the bytes changed on the way (the put's checksum), or the response's did (the SDK's check on a get).
  'BadDigest',
  'XAmzContentSHA256Mismatch',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * `error` as the port reports it: `StorageUnavailableError` (with `message`, else the table's) for a store that did
 * not answer, else unchanged.
 */
export function storageError(error: unknown, message?: string): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const { name, code, $metadata } = (error ?? {}) as {
    name?: string;
    code?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const status = $metadata?.httpStatusCode ?? 0;
  if (
    (name !== undefined && UNAVAILABLE.has(name)) ||
    (error instanceof Error && error.message.startsWith('Checksum mismatch')) ||
    (code !== undefined && NETWORK_CODES.has(code)) ||
    status >= 500
  ) {
    return new StorageUnavailableError(message, { cause: error });
  }
  return error;
}
