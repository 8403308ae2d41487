import { SESv2Client } from '@aws-sdk/client-sesv2';
import { createEmailChannel } from '../channels/email.ts';
import { createSesTransport } from '../channels/email-ses.ts';
import { recipientLinkOf } from '../channels/recipient-link.ts';
import { parseDefaults } from '../checkpoints/notify.ts';
import { parseRecipientDomains } from '../checkpoints/recipient-domains.ts';
import * as S from '../settings.ts';
import { loadAnswerLinks } from './answer-links.ts';
import { createChannelEventHandler } from './channel-events.ts';
import { channelDeps, logger, metrics } from './channel-runtime.ts';
import { listSetting, requiredSetting, settingOf } from './config.ts';
import { traceAwsClient } from './tracing.ts';

/**
 * The email channel's Lambda entry point on AWS (§14): its rule on the lifecycle bus brings `Pause Created`,
 * `Pause Reminder` and `Pause Escalated` (§21: mailed to the email approvers the level added); each recipient (the pause's `notify` entries or `HANDBACK_EMAIL_TO`) gets one email by SES v2
 * `SendEmail` from the verified identity `HANDBACK_EMAIL_FROM` (in `SES_REGION`, default the function's; with the
 * configuration set `SES_CONFIGURATION_SET` when set), with their own answer link: signed with the link key
 * (`LINK_SECRET_ARN`, read on first use) to the inbox at `HANDBACK_INBOX_URL`.
 */
const { useCases, log, directory } = channelDeps();
const links = loadAnswerLinks(requiredSetting(S.linkSecretArn));
const withLinks = {
  ...useCases,
  ...(links === undefined ? {} : { links }),
  inboxUrl: requiredSetting(S.inboxUrl),
};
const region = settingOf(S.emailRegion);
const ses = traceAwsClient(new SESv2Client(region === undefined ? {} : { region }));
const configurationSet = settingOf(S.emailConfigurationSet);

const channel = createEmailChannel({
  useCases: withLinks,
  transport: createSesTransport(ses, configurationSet === undefined ? {} : { configurationSet }),
  from: requiredSetting(S.emailFrom),
  log,
  link: recipientLinkOf(withLinks),
  defaultRecipients: listSetting(S.emailTo, (text) => parseDefaults('email', text)),
  recipientDomains: listSetting(S.recipientDomains, parseRecipientDomains),
  ...(directory === undefined ? {} : { directory }),
});

export const handler = createChannelEventHandler({ channel: async () => channel, logger, metrics });
