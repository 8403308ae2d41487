import { fileURLToPath } from 'node:url';
import { startService, stopAll } from '../black-box/service.ts';
import { createPause, launchChromium, newPage, pauseUrl, turn } from './browser.ts';

/**
 * `npm run screenshots:inbox`: the README's pictures of the inbox page, `docs/inbox-list.png` and
 * `docs/inbox-pause.png`, taken in headless Chromium from `npm start` with a few pauses made as an agent makes them.
 */

const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
const service = await startService();
const browser = await launchChromium();
try {
  await createPause(
    service.url,
    {
      messages: turn(
        [{ id: 'c1', name: 'send_invoice', args: { customer: 'Globex', total: 1280 } }],
        'Send Globex the March invoice.',
      ),
      asks: [{ toolCallId: 'c1', kind: 'approval', prompt: 'Send the March invoice (1,280.00 EUR) to Globex?' }],
    },
    {},
    'billing-run-0311',
  );
  await createPause(
    service.url,
    {
      messages: turn(
        [{ id: 'c1', name: 'ask_human', args: { question: 'Which plan should the customer move to?' } }],
        'I want to change my plan.',
      ),
      asks: [
        {
          toolCallId: 'c1',
          prompt: 'Which plan should the customer move to?',
          answerSchema: { enum: ['Starter', 'Team', 'Enterprise'] },
        },
      ],
    },
    {},
    'support-run-7f3a',
  );
  const refund = await createPause(
    service.url,
    {
      messages: turn([
        { id: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 42.5, currency: 'EUR' } },
        { id: 'call_ask', name: 'ask_human', args: { question: 'Where should the refund go?' } },
      ]),
      asks: [
        {
          toolCallId: 'call_refund',
          kind: 'approval',
          prompt: 'Refund 42.50 EUR for order A-1042?',
          argsSchema: { type: 'object', properties: { amount: { type: 'number', maximum: 100 } } },
        },
        {
          toolCallId: 'call_ask',
          prompt: 'Where should the refund go?',
          answerSchema: {
            type: 'object',
            properties: {
              method: { enum: ['card', 'voucher', 'bank'], title: 'Refund to' },
              account: {
                type: 'string',
                title: 'Account',
                description: 'IBAN, or the last four digits of the card',
                maxLength: 40,
              },
              notify: { type: 'boolean', title: 'Email the customer' },
            },
            required: ['method'],
          },
        },
      ],
    },
    {},
    'support-run-9c21',
  );

  const { context, page } = await newPage(browser, { viewport: { width: 900, height: 640 } });
  await page.goto(`${service.url}/inbox`);
  await page.locator('li.card').nth(2).waitFor();
  await page.screenshot({ path: `${docs}inbox-list.png`, fullPage: true });

  await page.goto(pauseUrl(service.url, refund));
  await page.locator('.ask').nth(1).waitFor();
  await page.locator('#a0').getByRole('radio', { name: 'Approve', exact: true }).check();
  await page.getByRole('radio', { name: 'card' }).check();
  await page.getByLabel('Account').fill('4242');
  await page.getByLabel('Email the customer').check();
  await page.screenshot({ path: `${docs}inbox-pause.png`, fullPage: true });
  await context.close();
  console.log(`Wrote ${docs}inbox-list.png and ${docs}inbox-pause.png`);
} finally {
  await browser.close();
  await stopAll();
}
