import { afterAll, describe, expect, it } from 'vitest';
import { startFailing, stopAll } from '../black-box/service.ts';

/**
 * A channel setting that cannot work stops `npm start` in one line naming it (docs/channels.md), as every other
 * setting does, rather than a stack trace or a service that cannot deliver.
 */

afterAll(stopAll);

const SMTP = { HANDBACK_SMTP_URL: 'smtp://127.0.0.1:1025', HANDBACK_EMAIL_FROM: 'handback@example.com' };
const LINKS = { HANDBACK_LINK_SECRET: 'a-local-answer-link-key-of-at-least-32-bytes' };

describe('npm start with a channel setting that cannot work', () => {
  it.each([
    [
      'a bot token without the signing secret',
      { HANDBACK_SLACK_BOT_TOKEN: 'xoxb-local' },
      'Slack needs both HANDBACK_SLACK_BOT_TOKEN and HANDBACK_SLACK_SIGNING_SECRET, or neither.',
    ],
    [
      'an SMTP server without a sender',
      { HANDBACK_SMTP_URL: 'smtp://127.0.0.1:1025', ...LINKS },
      'Email by HANDBACK_SMTP_URL needs HANDBACK_EMAIL_FROM.',
    ],
    [
      'an SMTP server without answer links',
      SMTP,
      'Email carries each recipient’s own answer link: set HANDBACK_LINK_SECRET too.',
    ],
    [
      'a default recipient that is not an address',
      { ...SMTP, ...LINKS, HANDBACK_EMAIL_TO: 'ops' },
      /^HANDBACK_EMAIL_TO: The default email recipient is not valid: /,
    ],
  ])('refuses %s in one line, and exits 1', async (_, env, message) => {
    const { code, output } = await startFailing(env);
    expect(code).toBe(1);
    const printed = output.split('\n').filter((line) => line.trim() !== '');
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(message);
  });
});
