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
import * as S from '../settings.ts';
import { listSetting, requiredSetting, settingOf } from './config.ts';
import { logger } from './observability.ts';
import { describeError, secretStringReader } from './secrets.ts';

/**
 * The Slack app's secret (`SLACK_SECRET_ID`: its name or ARN; JSON `{botToken, signingSecret}`), read on first use and cached as the
 * link key is (`createCachedRead`: five minutes, a failure remembered five seconds), never at cold start: the first
 * interaction after a cold start pays one bounded Secrets Manager read, and a secret not yet filled in fails the Slack
 * functions' requests, not their init.
 */
export function loadSlackSecret(secretId: string): () => Promise<SlackSecret> {
  const read = secretStringReader(secretId, S.slackSecretName.env);
  return createCachedRead(
    async () => parseSlackSecret(await read(), secretId),
    (retryInMs, cause) => new SlackSecretUnavailableError(retryInMs, cause === undefined ? undefined : { cause }),
    { onFailure: (error) => logger.warn("The Slack app's secret could not be read", { error: describeError(error) }) },
  );
}

/** What the Slack functions read: the app's secret, Slack's Web API, and where a pause without `notify` goes. */
export interface SlackSettings {
  /** The app's secret, by name or ARN (`SLACK_SECRET_ID`). */
  secretId: string;
  /** Slack's Web API base URL. */
  apiUrl: string;
  /** The channels a pause without `notify` is posted in. */
  defaultChannels: string[];
}

/** The Slack functions' settings, read once at cold start; a bad default channel names its variable. */
export function slackSettings(): SlackSettings {
  return {
    secretId: requiredSetting(S.slackSecretName),
    apiUrl: settingOf(S.slackApiUrl) as string,
    defaultChannels: listSetting(S.slackChannel, (text) => parseDefaults('slack', text)),
  };
}

/**
 * The Slack channel of a Lambda function (§14), made from the app's secret on first use and made again when the
 * secret rotates; Slack's Web API at `settings.apiUrl`, a pause without `notify` posted to its default channels.
 */
export function slackChannelOf(
  settings: SlackSettings,
  deps: Pick<SlackDeps, 'useCases' | 'log'>,
): () => Promise<ReturnType<typeof createSlackChannel>> {
  return onSlackSecret(loadSlackSecret(settings.secretId), (secret) =>
    createSlackChannel({
      ...deps,
      call: createSlackCall(secret.botToken, { apiUrl: settings.apiUrl }),
      signingSecret: secret.signingSecret,
      defaultChannels: settings.defaultChannels,
    }),
  );
}
