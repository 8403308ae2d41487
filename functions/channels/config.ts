import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventSink } from '../events/emitter.ts';
import type { LinkMailer, UseCaseDeps } from '../resume/resume.ts';
import type { ChannelName } from '../vocabulary.ts';
import { type Channel, channelSink } from './channel.ts';
import { createDynamoDBDeliveryLog } from './delivery-log.ts';
import { createEmailChannel, createLinkMailer } from './email.ts';
import { createSmtpTransport } from './email-smtp.ts';
import { recipientLinkOf } from './recipient-link.ts';
import { createSlackChannel } from './slack.ts';
import { createSlackCall } from './slack-api.ts';

export { recipientLinkOf };

/**
 * The channels a local service runs (§14), from its settings (`functions/local/config.ts` reads and checks them):
 * Slack with its bot token and signing secret, email by SMTP (with answer links, which each email carries).
 */

/** The channels (§14) the local service's settings turn on, checked. */
export interface LocalChannelSettings {
  /** Slack, by its bot token and signing secret, at its Web API's URL. */
  slack?: { botToken: string; signingSecret: string; apiUrl: string; defaultChannels: string[] };
  /** Email by SMTP, from `from`. */
  email?: { smtpUrl: string; from: string; defaultRecipients: string[] };
}

/**
 * What the service wires: the configured names, the lifecycle sink, Slack's interactions endpoint, and the mailer of
 * delivered links (§16) when email is on.
 */
export interface ConfiguredChannels {
  names: ChannelName[];
  sink?: EventSink;
  slack?: ReturnType<typeof createSlackChannel>;
  deliverLink?: LinkMailer;
}

/** The channels the settings turn on. */
export function channelsOf(
  settings: LocalChannelSettings,
  options: {
    useCases: UseCaseDeps;
    client: DynamoDBDocumentClient;
    tableName: string;
    /** The recipient domains (§16). */
    recipientDomains?: readonly string[];
  },
): ConfiguredChannels {
  const log = createDynamoDBDeliveryLog({ client: options.client, tableName: options.tableName });
  const channels: Channel[] = [];
  const configured: ConfiguredChannels = { names: [] };
  if (settings.slack !== undefined) {
    const slack = createSlackChannel({
      useCases: options.useCases,
      call: createSlackCall(settings.slack.botToken, { apiUrl: settings.slack.apiUrl }),
      log,
      signingSecret: settings.slack.signingSecret,
      defaultChannels: settings.slack.defaultChannels,
    });
    channels.push(slack);
    configured.slack = slack;
    configured.names.push('slack');
  }
  if (settings.email !== undefined) {
    const transport = createSmtpTransport(settings.email.smtpUrl);
    const { from } = settings.email;
    channels.push(
      createEmailChannel({
        useCases: options.useCases,
        transport,
        from,
        log,
        link: recipientLinkOf(options.useCases),
        defaultRecipients: settings.email.defaultRecipients,
        ...(options.recipientDomains === undefined ? {} : { recipientDomains: options.recipientDomains }),
      }),
    );
    configured.names.push('email');
    configured.deliverLink = createLinkMailer({ transport, from });
  }
  if (channels.length > 0) configured.sink = channelSink(channels);
  return configured;
}
