import { fileURLToPath } from 'node:url';
import { startService, stopAll } from '../black-box/service.ts';
import { startSmtpCatcher, until } from '../channels/smtp-catcher.ts';
import { createPause, launchChromium, newPage, turn } from './browser.ts';

/**
 * `npm run screenshots:email`: `docs/email-message.png`, the HTML part of a real email as the channel sends it:
 * `npm start` with `HANDBACK_SMTP_URL` mails a pause's recipient through a real SMTP server, the message is parsed
 * with mailparser, and its HTML part is rendered in headless Chromium, offline (it loads nothing: see
 * `test/inbox/browser-email.slow.test.ts`).
 */

const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
const smtp = await startSmtpCatcher();
const service = await startService({
  HANDBACK_LINK_SECRET: 'screenshot-link-secret-of-at-least-32-bytes',
  HANDBACK_SMTP_URL: smtp.url,
  HANDBACK_EMAIL_FROM: 'Handback <handback@example.com>',
});
const browser = await launchChromium();
try {
  await createPause(
    service.url,
    {
      messages: turn(
        [
          { id: 'call_refund', name: 'refund_order', args: { orderId: 'order-42', amount: 30 } },
          { id: 'call_reason', name: 'pick_reason', args: {} },
        ],
        'Please refund order-42, it arrived broken.',
      ),
      asks: [
        { toolCallId: 'call_refund', kind: 'approval', prompt: 'Refund this order?' },
        {
          toolCallId: 'call_reason',
          prompt: 'Why is it refunded?',
          answerSchema: { enum: ['broken', 'late', 'wrong item'] },
        },
      ],
      notify: [{ channel: 'email', to: 'ops@example.com' }],
    },
    {},
    'order-42',
  );
  const mail = await until(() => smtp.mails[0], 'the email');
  if (typeof mail.html !== 'string') throw new Error('the email has no HTML part');
  const { context, page } = await newPage(browser, { viewport: { width: 720, height: 480 } });
  await context.route('**/*', (route) => route.abort());
  await page.setContent(mail.html, { waitUntil: 'load' });
  await page.screenshot({ path: `${docs}email-message.png`, fullPage: true });
  await context.close();
  console.log(`Wrote ${docs}email-message.png (subject: ${mail.subject})`);
} finally {
  await browser.close();
  await stopAll();
  await smtp.close();
}
