import type { Construct } from 'constructs';
import { parseDefaults, senderAddress } from '../functions/checkpoints/notify.ts';
import { emailSandbox } from '../functions/settings.ts';
import { CONTEXT, ConfigurationError, contextBoolean, contextString } from './context.ts';

/**
 * The channels a deployment turns on (§14), from context: Slack by the name of the app's secret, email by its SES
 * sender, each default recipient checked as a pause's `notify` entry is; a key that needs another names it.
 */

/** The channels a deployment turns on (§14), from context; a channel without its key creates nothing. */
export interface ChannelSettings {
  /** Slack, when `handback:slackSecretName` names the app's secret (a name or a full ARN). */
  slack?: { secretName: string; defaultChannels: string[] };
  /** Email by SES, when `handback:emailFrom` names the sender. */
  email?: {
    /** The sender as the emails name it: an address, or `Name <address>`. */
    from: string;
    /** The sender's address (`ses:FromAddress`). */
    address: string;
    identity: string;
    region?: string;
    defaultRecipients: string[];
    /**
     * Whether the account's SES may still be in the sandbox, where SES also authorizes `SendEmail` against each
     * recipient's identity: then the grant covers the account's identities too, for this sender only.
     */
    sandbox: boolean;
    /** A configuration set every email is sent with, when one is named; the grant covers it. */
    configurationSet?: string;
  };
}

/** What a channel's default recipients are: the list, each checked as a pause's `notify` entry is. */
function channelDefaults(scope: Construct, key: string, check: (value: string | undefined) => string[]): string[] {
  try {
    return check(contextString(scope, key));
  } catch (error) {
    throw new ConfigurationError(`Context ${key}: ${(error as Error).message}`);
  }
}

/**
 * The channels' settings: Slack by the name of a Secrets Manager secret the operator made and filled (JSON
 * `{botToken, signingSecret}`), email by a verified SES identity; each default recipient checked as `notify`'s are.
 */
export function resolveChannelSettings(scope: Construct): ChannelSettings {
  const settings: ChannelSettings = {};
  const secretName = contextString(scope, CONTEXT.slackSecretName);
  const slackChannels = channelDefaults(scope, CONTEXT.slackChannel, (value) => parseDefaults('slack', value));
  if (secretName !== undefined) settings.slack = { secretName, defaultChannels: slackChannels };
  else if (slackChannels.length > 0) {
    throw new ConfigurationError(
      `Context ${CONTEXT.slackChannel} needs ${CONTEXT.slackSecretName}, the secret holding the Slack app's bot token and signing secret.`,
    );
  }
  const from = contextString(scope, CONTEXT.emailFrom);
  const emailTo = channelDefaults(scope, CONTEXT.emailTo, (value) => parseDefaults('email', value));
  const identity = contextString(scope, CONTEXT.emailIdentity);
  const region = contextString(scope, CONTEXT.emailRegion);
  const sandbox = contextBoolean(scope, CONTEXT.emailSandbox);
  const configurationSet = contextString(scope, CONTEXT.emailConfigurationSet);
  if (from === undefined) {
    const orphan = [
      emailTo.length > 0 ? CONTEXT.emailTo : undefined,
      identity && CONTEXT.emailIdentity,
      region && CONTEXT.emailRegion,
      sandbox !== undefined ? CONTEXT.emailSandbox : undefined,
      configurationSet && CONTEXT.emailConfigurationSet,
    ]
      .filter(Boolean)
      .join(', ');
    if (orphan !== '') {
      throw new ConfigurationError(
        `Context ${orphan} needs ${CONTEXT.emailFrom}, the verified SES address the emails come from.`,
      );
    }
    return settings;
  }
  let address: string;
  try {
    address = senderAddress(from);
  } catch (error) {
    throw new ConfigurationError(`Context ${CONTEXT.emailFrom} ${(error as Error).message}.`);
  }
  if (region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) {
    throw new ConfigurationError(
      `Context ${CONTEXT.emailRegion} must be an AWS region such as eu-west-1, not ${JSON.stringify(region)}.`,
    );
  }
  // SES's own rule for a configuration set's name: letters, digits, _ and -, at most 64.
  if (configurationSet !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(configurationSet)) {
    throw new ConfigurationError(
      `Context ${CONTEXT.emailConfigurationSet} must be an SES configuration set's name (letters, digits, _ and -, at most 64), not ${JSON.stringify(configurationSet)}.`,
    );
  }
  settings.email = {
    from,
    address,
    identity: identity ?? address,
    ...(region === undefined ? {} : { region }),
    defaultRecipients: emailTo,
    sandbox: sandbox ?? emailSandbox.default,
    ...(configurationSet === undefined ? {} : { configurationSet }),
  };
  return settings;
}
