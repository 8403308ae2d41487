import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

// The client settings of the store's table, a module of their own: a Lambda function's document client
// (`handlers/document-client.ts`) reads them without the store's factories and the rules they import.

/**
 * The DynamoDB client settings Handback runs with: a connection timeout, a socket timeout and bounded retries, so a
 * table that does not answer becomes a `StorageUnavailableError` (HTTP 503 with `Retry-After`) within about ten
 * seconds, well inside a 30-second handler, instead of hanging until the function times out.
 */
export function storageClientConfig(overrides: DynamoDBClientConfig = {}): DynamoDBClientConfig {
  // Without `throwOnRequestTimeout` the HTTP handler only warns when a request passes its `requestTimeout`.
  const timeouts = { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true };
  const handler = overrides.requestHandler;
  const isOptions = typeof handler === 'object' && handler !== null && !('handle' in handler);
  return {
    maxAttempts: 3,
    ...overrides,
    requestHandler: handler === undefined ? timeouts : isOptions ? { ...timeouts, ...handler } : handler,
  };
}

/**
 * The client settings for `DYNAMODB_ENDPOINT`: a regional AWS endpoint (`https://dynamodb.<region>.amazonaws.com`)
 * uses that region and the usual credential chain; any other endpoint (DynamoDB Local, dynalite) gets a region and
 * placeholder credentials unless the environment has its own, as such servers accept any.
 */
export function endpointClientConfig(endpoint: string, env: NodeJS.ProcessEnv): DynamoDBClientConfig {
  const region = /^https?:\/\/dynamodb[.-]([a-z0-9-]+)\.amazonaws\.com/.exec(endpoint)?.[1];
  if (region !== undefined) return { endpoint, region };
  const local: DynamoDBClientConfig = { endpoint, region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1' };
  if (!env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE) {
    local.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return local;
}
