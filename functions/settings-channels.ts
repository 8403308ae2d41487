// The channels' settings (§14, docs/channels.md): which are on, and Slack's and email's.

import { BOTH, LAMBDA, LOCAL } from './settings-readers.ts';

export const channels = { env: 'HANDBACK_CHANNELS', read: LAMBDA, type: 'list', setBy: 'stack' } as const;
export const slackBotToken = { env: 'HANDBACK_SLACK_BOT_TOKEN', read: LOCAL, type: 'secret' } as const;
export const slackSigningSecret = { env: 'HANDBACK_SLACK_SIGNING_SECRET', read: LOCAL, type: 'secret' } as const;
export const slackSecretName = {
  env: 'SLACK_SECRET_ID',
  read: LAMBDA,
  type: 'string',
  context: 'handback:slackSecretName',
  setBy: 'stack',
} as const;
export const slackChannel = {
  env: 'HANDBACK_SLACK_CHANNEL',
  read: BOTH,
  type: 'list',
  context: 'handback:slackChannel',
} as const;
export const slackApiUrl = {
  env: 'HANDBACK_SLACK_API_URL',
  read: BOTH,
  type: 'url',
  default: 'https://slack.com/api/',
} as const;
export const smtpUrl = { env: 'HANDBACK_SMTP_URL', read: LOCAL, type: 'url' } as const;
export const emailFrom = {
  env: 'HANDBACK_EMAIL_FROM',
  read: BOTH,
  type: 'string',
  context: 'handback:emailFrom',
} as const;
export const emailIdentity = { type: 'string', context: 'handback:emailIdentity' } as const;
export const emailRegion = {
  env: 'SES_REGION',
  read: LAMBDA,
  type: 'string',
  context: 'handback:emailRegion',
} as const;
export const emailTo = { env: 'HANDBACK_EMAIL_TO', read: BOTH, type: 'list', context: 'handback:emailTo' } as const;
export const emailSandbox = { type: 'boolean', context: 'handback:emailSandbox', default: true } as const;
export const emailConfigurationSet = {
  env: 'SES_CONFIGURATION_SET',
  read: LAMBDA,
  type: 'string',
  context: 'handback:emailConfigurationSet',
} as const;
