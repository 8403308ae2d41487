import { parseSlackSecret, type SlackSecret, SlackSecretUnavailableError } from '../channels/slack-secret.ts';
import { createCachedRead } from '../links/cached-read.ts';
import { logger } from './observability.ts';
import { describeError, secretStringReader } from './secrets.ts';

/**
 * The Slack app's secret (`SLACK_SECRET_ID`: its name or ARN; JSON `{botToken, signingSecret}`), read on first use and cached as the
 * link key is (`createCachedRead`: five minutes, a failure remembered five seconds), never at cold start: the first
 * interaction after a cold start pays one bounded Secrets Manager read, and a secret not yet filled in fails the Slack
 * functions' requests, not their init.
 */
export function loadSlackSecret(secretId: string): () => Promise<SlackSecret> {
  const read = secretStringReader(secretId, 'SLACK_SECRET_ID');
  return createCachedRead(
    async () => parseSlackSecret(await read(), secretId),
    (retryInMs, cause) => new SlackSecretUnavailableError(retryInMs, cause === undefined ? undefined : { cause }),
    { onFailure: (error) => logger.warn("The Slack app's secret could not be read", { error: describeError(error) }) },
  );
}
