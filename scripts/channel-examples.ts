import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pauseEmail } from '../functions/channels/email-message.ts';
import { pauseMessage } from '../functions/channels/slack-message.ts';
import type { PauseView } from '../functions/wire.ts';

/**
 * The channels' examples in the docs, rendered by the channels' own renderers so they cannot drift:
 * `docs/slack-message.json` (the Slack message of a two-ask pause), `docs/slack-message-decided.json` (the same once
 * one ask is decided) and the plain-text email in `docs/channels.md`
 * (between its `email-text` markers). `npx tsx scripts/channel-examples.ts` rewrites both; `test/channels/doc-examples.test.ts`
 * holds them equal to what the renderers make.
 */

/** The pause both examples show: a refund to approve and a reason to pick. */
export const EXAMPLE_PAUSE: PauseView = {
  runId: 'order-42',
  interruptId: '1.1.2fj4k9',
  status: 'paused',
  format: 'openai-chat',
  toolCall: { id: 'call_refund', name: 'refund_order', args: { orderId: 'order-42', amount: 30 } },
  prompt: 'Refund this order?',
  answerSchema: null,
  asks: [
    {
      toolCallId: 'call_refund',
      name: 'refund_order',
      args: { orderId: 'order-42', amount: 30 },
      kind: 'approval',
      prompt: 'Refund this order?',
      editable: true,
    },
    {
      toolCallId: 'call_reason',
      name: 'pick_reason',
      args: {},
      kind: 'answer',
      prompt: 'Why is it refunded?',
      answerSchema: { enum: ['broken', 'late', 'wrong item'] },
    },
  ],
  decided: [],
  pending: ['call_refund', 'call_reason'],
  metadata: null,
  context: { user: 'Please refund order-42, it arrived broken.' },
  onExpiry: 'fail',
  createdAt: '2026-12-01T09:00:00.000Z',
  expiresAt: '2026-12-08T09:00:00.000Z',
  notify: [
    { channel: 'slack', to: 'C0123456789' },
    { channel: 'email', to: 'ops@example.com' },
  ],
};

/** The same pause once Alice has approved the refund in Slack: the other ask still waits. */
export const EXAMPLE_PAUSE_DECIDED: PauseView = {
  ...EXAMPLE_PAUSE,
  asks: EXAMPLE_PAUSE.asks.map((ask, index) =>
    index === 0
      ? {
          ...ask,
          decision: {
            decision: 'approve',
            by: {
              kind: 'person',
              subject: 'slack:T0123456789:U0ALICE01',
              email: 'alice@example.com',
              name: 'Alice Approver',
              via: 'slack',
            },
          },
          decidedAt: '2026-12-01T09:05:00.000Z',
        }
      : ask,
  ),
  decided: ['call_refund'],
  pending: ['call_reason'],
};

/** Where the examples' inbox is. */
export const EXAMPLE_INBOX = 'https://handback.example.com/inbox';

/** `docs/slack-message.json` as the Slack channel renders it. */
export function slackExample(): string {
  return `${JSON.stringify(pauseMessage(EXAMPLE_PAUSE, { inboxUrl: EXAMPLE_INBOX }), null, 2)}\n`;
}

/** `docs/slack-message-decided.json`: the message as `chat.update` leaves it after Alice's approval. */
export function slackDecidedExample(): string {
  return `${JSON.stringify(pauseMessage(EXAMPLE_PAUSE_DECIDED, { inboxUrl: EXAMPLE_INBOX }), null, 2)}\n`;
}

/** The plain-text part of the email to ops@example.com (its link's token shortened to `<token>`). */
export function emailTextExample(): string {
  return pauseEmail(EXAMPLE_PAUSE, 'ops@example.com', `${EXAMPLE_INBOX}#<token>`).text;
}

/** The fenced block `docs/channels.md` carries between its markers. */
export const EMAIL_TEXT_START = '<!-- email-text: written by scripts/channel-examples.ts -->';
export const EMAIL_TEXT_END = '<!-- /email-text -->';

/** The part of `page` between the email-text markers, or undefined when it has none. */
export function emailTextBlockOf(page: string): string | undefined {
  const start = page.indexOf(EMAIL_TEXT_START);
  const end = page.indexOf(EMAIL_TEXT_END);
  if (start < 0 || end < start) return undefined;
  return page.slice(start + EMAIL_TEXT_START.length, end);
}

/** The block as it should read: a fenced `text` example. */
export const emailTextBlock = () => `\n\`\`\`text\n${emailTextExample()}\n\`\`\`\n`;

const docs = fileURLToPath(new URL('../docs/', import.meta.url));
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(`${docs}slack-message.json`, slackExample());
  writeFileSync(`${docs}slack-message-decided.json`, slackDecidedExample());
  const page = readFileSync(`${docs}channels.md`, 'utf8');
  const current = emailTextBlockOf(page);
  if (current === undefined)
    throw new Error(`docs/channels.md has no ${EMAIL_TEXT_START} … ${EMAIL_TEXT_END} markers.`);
  writeFileSync(`${docs}channels.md`, page.replace(current, emailTextBlock()));
  console.log(
    'Wrote docs/slack-message.json, docs/slack-message-decided.json and the email example in docs/channels.md',
  );
}
