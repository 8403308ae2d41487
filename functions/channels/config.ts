import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventSink } from '../events/emitter.ts';
import type { UseCaseDeps } from '../resume/resume.ts';
import type { ChannelName } from '../vocabulary.ts';
import { type Channel, channelSink } from './channel.ts';
import { createDynamoDBDeliveryLog } from './delivery-log.ts';
import { parseDefaults } from './notify.ts';
import { createSlackChannel } from './slack.ts';
import { createSlackCall } from './slack-api.ts';

/**
 * The channels a local service runs (§14), from its environment: Slack with `HANDBACK_SLACK_BOT_TOKEN` and
 * `HANDBACK_SLACK_SIGNING_SECRET` (both, or neither), at `HANDBACK_SLACK_API_URL`, defaulting to
 * `HANDBACK_SLACK_CHANNEL`.
 */

/** What the service wires: the configured names, the lifecycle sink, Slack's interactions endpoint. */
export interface ConfiguredChannels {
  names: ChannelName[];
  sink?: EventSink;
  slack?: ReturnType<typeof createSlackChannel>;
}

/** The channels `env` configures. */
export function channelsFromEnv(
  env: NodeJS.ProcessEnv,
  options: { useCases: UseCaseDeps; client: DynamoDBDocumentClient; tableName: string },
): ConfiguredChannels {
  const log = createDynamoDBDeliveryLog({ client: options.client, tableName: options.tableName });
  const channels: Channel[] = [];
  const configured: ConfiguredChannels = { names: [] };
  const token = env.HANDBACK_SLACK_BOT_TOKEN;
  const secret = env.HANDBACK_SLACK_SIGNING_SECRET;
  if ((token === undefined) !== (secret === undefined)) {
    throw new Error('Slack needs both HANDBACK_SLACK_BOT_TOKEN and HANDBACK_SLACK_SIGNING_SECRET, or neither.');
  }
  if (token !== undefined && secret !== undefined) {
    const slack = createSlackChannel({
      useCases: options.useCases,
      call: createSlackCall(token, env.HANDBACK_SLACK_API_URL ? { apiUrl: env.HANDBACK_SLACK_API_URL } : {}),
      log,
      signingSecret: secret,
      defaultChannels: parseDefaults('slack', env.HANDBACK_SLACK_CHANNEL),
    });
    channels.push(slack);
    configured.slack = slack;
    configured.names.push('slack');
  }
  if (channels.length > 0) configured.sink = channelSink(channels);
  return configured;
}
