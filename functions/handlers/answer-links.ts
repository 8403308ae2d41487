import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type AnswerLinks, createAnswerLinks, createKeyCache } from '../links/answer-links.ts';
import { logger, tracer } from './observability.ts';

/**
 * Answer links, when the deployment keeps a link key in Secrets Manager (`LINK_SECRET_ARN`). The key is read on first
 * use and cached (`createKeyCache`: five minutes, a failure remembered for five seconds), never at cold start: a slow
 * or failing Secrets Manager then costs only what needs the key — the link routes answer 503
 * `link_key_unavailable`, a pause's 201 goes without its `answerUrl` — and every other route keeps serving. The
 * entry points that sign or verify links (the API and the lifecycle stream) are the only ones that import this module,
 * and with it the Secrets Manager client and jose (statically: a client imported with `import()` keeps every command
 * of its package in the bundle).
 */

/** How long one read of the key may take in all, retries included, before it counts as failed. */
const READ_DEADLINE_MS = 1_000;

/** Answer links on the key in `linkSecretArn`, read when first needed; undefined when no secret is configured. */
export function loadAnswerLinks(linkSecretArn: string | undefined): AnswerLinks | undefined {
  if (linkSecretArn === undefined) return undefined;
  // Its own timeouts and few retries, well inside the API's: a key store that does not answer fails the read, not
  // the request. The endpoint follows the SDK's own settings (`AWS_ENDPOINT_URL_SECRETS_MANAGER`).
  const client = tracer.captureAWSv3Client(
    new SecretsManagerClient({
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 500, requestTimeout: 800, throwOnRequestTimeout: true },
    }),
  );
  const read = async (): Promise<Uint8Array> => {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: linkSecretArn }), {
      abortSignal: AbortSignal.timeout(READ_DEADLINE_MS),
    });
    if (SecretString === undefined || SecretString.length === 0) {
      throw new Error(`The secret ${linkSecretArn} (LINK_SECRET_ARN) holds no string: store the link key there.`);
    }
    return new TextEncoder().encode(SecretString);
  };
  const key = createKeyCache(read, {
    onFailure: (error) => logger.warn('The answer-link key could not be read', { error: describeError(error) }),
  });
  return createAnswerLinks(key);
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
