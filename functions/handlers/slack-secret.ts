import { createSlackChannel, type SlackDeps } from '../channels/slack.ts';
import { createSlackCall } from '../channels/slack-api.ts';
import {
  onSlackSecret,
  parseSlackSecret,
  type SlackSecret,
  SlackSecretUnavailableError,
} from '../channels/slack-secret.ts';
import { parseDefaults } from '../checkpoints/notify.ts';
import { createCachedRead } from '../links/cached-read.ts';
import { optionalEnv, requireEnv } from './config.ts';
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

/**
 * The Slack channel of a Lambda function (§14), made from the app's secret (`SLACK_SECRET_ID`) on first use and made
 * again when the secret rotates; Slack's Web API at `HANDBACK_SLACK_API_URL` (default Slack's), a pause without
 * `notify` posted to `HANDBACK_SLACK_CHANNEL`.
 */
export function slackChannelFromEnv(
  env: NodeJS.ProcessEnv,
  deps: Pick<SlackDeps, 'useCases' | 'log'>,
): () => Promise<ReturnType<typeof createSlackChannel>> {
  const apiUrl = optionalEnv(env, 'HANDBACK_SLACK_API_URL');
  const defaultChannels = parseDefaults('slack', optionalEnv(env, 'HANDBACK_SLACK_CHANNEL'));
  return onSlackSecret(loadSlackSecret(requireEnv(env, 'SLACK_SECRET_ID')), (secret) =>
    createSlackChannel({
      ...deps,
      call: createSlackCall(secret.botToken, apiUrl === undefined ? {} : { apiUrl }),
      signingSecret: secret.signingSecret,
      defaultChannels,
    }),
  );
}
