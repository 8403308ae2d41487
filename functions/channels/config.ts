import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Directory } from '../directory/port.ts';
import type { EventSink } from '../events/emitter.ts';
import type { LinkMailer, UseCaseDeps } from '../resume/resume.ts';
import { CHANNEL_NAMES, type ChannelName } from '../vocabulary.ts';
import { type Channel, channelSink } from './channel.ts';
import { createDynamoDBDeliveryLog, type DeliveryLog } from './delivery-log.ts';
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

/** Each channel's own settings, checked. */
export interface ChannelSettingsOf {
  /** Slack, by its bot token and signing secret, at its Web API's URL. */
  slack: { botToken: string; signingSecret: string; apiUrl: string; defaultChannels: string[] };
  /** Email by SMTP, from `from`. */
  email: { smtpUrl: string; from: string; defaultRecipients: string[] };
}

/** The channels (§14) the local service's settings turn on, checked: a channel without settings is off. */
export type LocalChannelSettings = { [Name in ChannelName]?: ChannelSettingsOf[Name] };

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

/** What the channels are made from: the use cases, the delivery log, the recipient domains (§16). */
interface SetupOptions {
  useCases: UseCaseDeps;
  log: DeliveryLog;
  /** `HANDBACK_RECIPIENT_DOMAINS`, parsed (§16). */
  recipientDomains?: readonly string[];
  /** The directory of persons (§20): whom a level's groups are mailed at (§21). */
  directory?: Directory;
}

/** One channel the settings turn on, and what else it gives the service. */
type ChannelSetup = { channel: Channel } & Omit<ConfiguredChannels, 'names' | 'sink'>;

/** How the local service makes each channel from its checked settings. */
const SETUPS: { [Name in ChannelName]: (settings: ChannelSettingsOf[Name], options: SetupOptions) => ChannelSetup } = {
  slack(settings, options) {
    const slack = createSlackChannel({
      useCases: options.useCases,
      call: createSlackCall(settings.botToken, { apiUrl: settings.apiUrl }),
      log: options.log,
      signingSecret: settings.signingSecret,
      defaultChannels: settings.defaultChannels,
    });
    return { channel: slack, slack };
  },
  email(settings, options) {
    const transport = createSmtpTransport(settings.smtpUrl);
    const { from } = settings;
    const channel = createEmailChannel({
      useCases: options.useCases,
      transport,
      from,
      log: options.log,
      link: recipientLinkOf(options.useCases),
      defaultRecipients: settings.defaultRecipients,
      ...(options.recipientDomains === undefined ? {} : { recipientDomains: options.recipientDomains }),
      ...(options.directory === undefined ? {} : { directory: options.directory }),
    });
    return { channel, deliverLink: createLinkMailer({ transport, from }) };
  },
};

/** The channels the settings turn on. */
export function channelsOf(
  settings: LocalChannelSettings,
  options: {
    useCases: UseCaseDeps;
    client: DynamoDBDocumentClient;
    tableName: string;
    /** The recipient domains (§16). */
    recipientDomains?: readonly string[];
    /** The directory of persons (§20). */
    directory?: Directory;
  },
): ConfiguredChannels {
  const setupOptions: SetupOptions = {
    useCases: options.useCases,
    log: createDynamoDBDeliveryLog({ client: options.client, tableName: options.tableName }),
    ...(options.recipientDomains === undefined ? {} : { recipientDomains: options.recipientDomains }),
    ...(options.directory === undefined ? {} : { directory: options.directory }),
  };
  const channels: Channel[] = [];
  const configured: ConfiguredChannels = { names: [] };
  for (const name of CHANNEL_NAMES) {
    const setup = setupOf(name, settings, setupOptions);
    if (setup === undefined) continue;
    const { channel, ...wiring } = setup;
    channels.push(channel);
    configured.names.push(name);
    Object.assign(configured, wiring);
  }
  if (channels.length > 0) configured.sink = channelSink(channels);
  return configured;
}

/** One channel's setup, when its settings turn it on. */
function setupOf<Name extends ChannelName>(
  name: Name,
  settings: LocalChannelSettings,
  options: SetupOptions,
): ChannelSetup | undefined {
  const own: ChannelSettingsOf[Name] | undefined = settings[name];
  return own === undefined ? undefined : SETUPS[name](own, options);
}
