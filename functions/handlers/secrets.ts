import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { traceAwsClient } from './tracing.ts';

/**
 * One Secrets Manager secret's string, read with a deadline: the link key (`LINK_SECRET_ARN`) and Slack's bot token and
 * signing secret (`SLACK_SECRET_ID`). The client has its own timeouts and few retries, well inside any function's, so
 * a key store that does not answer fails the read, not the request; callers cache what it reads
 * (`links/cached-read.ts`) and read it on first use, never at cold start. The endpoint follows the SDK's own settings
 * (`AWS_ENDPOINT_URL_SECRETS_MANAGER`). The Secrets Manager client is imported statically: a client imported with
 * `import()` keeps every command of its package in the bundle.
 */

/** How long one read may take in all, retries included, before it counts as failed. */
export const READ_DEADLINE_MS = 1_000;

let client: SecretsManagerClient | undefined;

/** A reader of the string in the secret `secretId` (a name or an ARN; `variable` names it in errors): one bounded read a call. */
export function secretStringReader(secretId: string, variable: string): () => Promise<string> {
  return async () => {
    client ??= traceAwsClient(
      new SecretsManagerClient({
        maxAttempts: 2,
        requestHandler: { connectionTimeout: 500, requestTimeout: 800, throwOnRequestTimeout: true },
      }),
    );
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }), {
      abortSignal: AbortSignal.timeout(READ_DEADLINE_MS),
    });
    if (SecretString === undefined || SecretString.length === 0) {
      throw new Error(`The secret ${secretId} (${variable}) holds no string: store its value there.`);
    }
    return SecretString;
  };
}

/** An error as one line for the logs (never a secret: the SDK's errors do not carry its value). */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
