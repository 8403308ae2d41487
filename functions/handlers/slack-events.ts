import { createChannelEventHandler } from './channel-events.ts';
import { channelDeps, logger, metrics } from './channel-runtime.ts';
import { slackChannelOf, slackSettings } from './slack-secret.ts';

/**
 * The Slack channel's Lambda entry point on AWS (§14): its rule on the lifecycle bus brings each event of a pause; the
 * channel posts the message on `Pause Created`, updates it on every later change and replies in its thread on
 * `Pause Reminder`, to the pause's `notify` entries or `HANDBACK_SLACK_CHANNEL`. The bot token comes from the app's
 * secret (`SLACK_SECRET_ID`), read on first use; Slack's Web API is at `HANDBACK_SLACK_API_URL` (default Slack's).
 */
const { useCases, log } = channelDeps();
const channel = slackChannelOf(slackSettings(), { useCases, log });

export const handler = createChannelEventHandler({ channel, logger, metrics });
