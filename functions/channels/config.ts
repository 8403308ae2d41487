import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseDefaults, senderAddress } from '../checkpoints/notify.ts';
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
 * The channels a local service runs (§14), from its environment: Slack with `HANDBACK_SLACK_BOT_TOKEN` and
 * `HANDBACK_SLACK_SIGNING_SECRET` (both, or neither), at `HANDBACK_SLACK_API_URL`, defaulting to
 * `HANDBACK_SLACK_CHANNEL`; email with `HANDBACK_SMTP_URL` from `HANDBACK_EMAIL_FROM`, defaulting to
 * `HANDBACK_EMAIL_TO` (it needs answer links: `HANDBACK_LINK_SECRET`).
 */

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
}

/** One channel `env` turns on, and what else it gives the service. */
type ChannelSetup = { channel: Channel } & Omit<ConfiguredChannels, 'names' | 'sink'>;

/** How the local service makes each channel from its environment: undefined when the environment leaves it off. */
const SETUPS: Record<ChannelName, (env: NodeJS.ProcessEnv, options: SetupOptions) => ChannelSetup | undefined> = {
  slack(env, options) {
    const token = env.HANDBACK_SLACK_BOT_TOKEN;
    const secret = env.HANDBACK_SLACK_SIGNING_SECRET;
    if ((token === undefined) !== (secret === undefined)) {
      throw new Error('Slack needs both HANDBACK_SLACK_BOT_TOKEN and HANDBACK_SLACK_SIGNING_SECRET, or neither.');
    }
    if (token === undefined || secret === undefined) return undefined;
    const slack = createSlackChannel({
      useCases: options.useCases,
      call: createSlackCall(token, env.HANDBACK_SLACK_API_URL ? { apiUrl: env.HANDBACK_SLACK_API_URL } : {}),
      log: options.log,
      signingSecret: secret,
      defaultChannels: parseDefaults('slack', env.HANDBACK_SLACK_CHANNEL),
    });
    return { channel: slack, slack };
  },
  email(env, options) {
    const smtp = env.HANDBACK_SMTP_URL;
    if (smtp === undefined || smtp === '') return undefined;
    checkSmtpUrl(smtp);
    const from = env.HANDBACK_EMAIL_FROM;
    if (from === undefined || from === '') throw new Error('Email by HANDBACK_SMTP_URL needs HANDBACK_EMAIL_FROM.');
    try {
      senderAddress(from);
    } catch (error) {
      throw new Error(`HANDBACK_EMAIL_FROM ${(error as Error).message}.`);
    }
    if (options.useCases.links === undefined) {
      throw new Error('Email carries each recipient’s own answer link: set HANDBACK_LINK_SECRET too.');
    }
    const transport = createSmtpTransport(smtp);
    const channel = createEmailChannel({
      useCases: options.useCases,
      transport,
      from,
      log: options.log,
      link: recipientLinkOf(options.useCases),
      defaultRecipients: parseDefaults('email', env.HANDBACK_EMAIL_TO),
      ...(options.recipientDomains === undefined ? {} : { recipientDomains: options.recipientDomains }),
    });
    return { channel, deliverLink: createLinkMailer({ transport, from }) };
  },
};

/** The channels `env` configures. */
export function channelsFromEnv(
  env: NodeJS.ProcessEnv,
  options: {
    useCases: UseCaseDeps;
    client: DynamoDBDocumentClient;
    tableName: string;
    /** `HANDBACK_RECIPIENT_DOMAINS`, parsed (§16). */
    recipientDomains?: readonly string[];
  },
): ConfiguredChannels {
  const log = createDynamoDBDeliveryLog({ client: options.client, tableName: options.tableName });
  const channels: Channel[] = [];
  const configured: ConfiguredChannels = { names: [] };
  for (const name of CHANNEL_NAMES) {
    const setup = SETUPS[name](env, {
      useCases: options.useCases,
      log,
      ...(options.recipientDomains === undefined ? {} : { recipientDomains: options.recipientDomains }),
    });
    if (setup === undefined) continue;
    const { channel, ...wiring } = setup;
    channels.push(channel);
    configured.names.push(name);
    Object.assign(configured, wiring);
  }
  if (channels.length > 0) configured.sink = channelSink(channels);
  return configured;
}

/** Refuses an SMTP URL nodemailer cannot use (it would fail at the first send, or at start with a message of its own). */
function checkSmtpUrl(url: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'smtp:' && protocol !== 'smtps:') {
    throw new Error(
      `HANDBACK_SMTP_URL must be an smtp:// or smtps:// URL, such as smtp://127.0.0.1:1025 or smtps://user:password@host:465, not ${JSON.stringify(url.slice(0, 80))}.`,
    );
  }
}
