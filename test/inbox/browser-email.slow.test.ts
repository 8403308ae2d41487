import type { ParsedMail } from 'mailparser';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnswerLinks } from '../../functions/links/answer-links.ts';
import { type RunningService, request, startService, stopAll } from '../black-box/service.ts';
import { recipientsOf, type SmtpCatcher, startSmtpCatcher, until } from '../channels/smtp-catcher.ts';
import { type Call, createPause, launchChromium, newPage, turn } from './browser.ts';

/**
 * The email channel end to end (§14, §13): `npm start` with `HANDBACK_SMTP_URL` mails each recipient of a pause's
 * `notify` through a real SMTP server, each message is parsed with mailparser, and recipient A's **Review and decide**
 * link is opened in Chromium, where A decides: the decision is recorded as `email:<A>`. Before that, the link is
 * fetched as mail scanners fetch links (HEAD and GET, redirects followed, and rendered without a click), and nothing
 * changes. The HTML part is rendered in Chromium too, and loads nothing from anywhere.
 */

const LINK_SECRET = 'browser-email-link-secret-of-at-least-32-bytes';
const ALICE = 'alice@example.com';
const BOB = 'bob@example.com';

let smtp: SmtpCatcher;
let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  [service, browser] = await Promise.all([
    startService({
      HANDBACK_LINK_SECRET: LINK_SECRET,
      HANDBACK_SMTP_URL: smtp.url,
      HANDBACK_EMAIL_FROM: 'Handback <handback@example.com>',
    }),
    launchChromium(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await smtp?.close();
});

const refund: Call = { id: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 42.5 } };

/** A pause of one approval that notifies Alice and Bob by email. */
function pauseForBoth() {
  return createPause(service.url, {
    messages: turn([refund]),
    asks: [{ toolCallId: refund.id, kind: 'approval', prompt: 'Refund 42.50 EUR for order A-1042?' }],
    notify: [
      { channel: 'email', to: ALICE },
      { channel: 'email', to: BOB },
    ],
  });
}

/** The messages of run `runId`, by recipient, once both have arrived. */
async function mailsOf(runId: string): Promise<Map<string, ParsedMail>> {
  const got = await until(() => {
    const found = smtp.mails.filter((mail) => mail.subject === `Approval needed: refund_order — ${runId}`);
    return found.length >= 2 && found;
  }, `the two emails of ${runId}`);
  return new Map(got.map((mail) => [recipientsOf(mail)[0] as string, mail]));
}

/** The **Review and decide** link of a message, as its plain-text part carries it (its HTML part links the same). */
function linkOf(mail: ParsedMail | undefined): string {
  const link = /Review and decide: (\S+)/.exec(mail?.text ?? '')?.[1];
  if (link === undefined) throw new Error('the message carries no link');
  expect(mail?.html).toContain(`href="${link}"`);
  return link;
}

const getPause = (runId: string, interruptId: string) =>
  request(`${service.url}/runs/${runId}/pauses/${interruptId}`, 'GET');

describe('an email recipient’s link', () => {
  it('is each recipient’s own, decides nothing when a mail scanner fetches it, and records the decision as theirs when opened in Chromium', async () => {
    const pause = await pauseForBoth();
    const byRecipient = await mailsOf(pause.runId);
    expect([...byRecipient.keys()].sort()).toEqual([ALICE, BOB]);
    const alice = linkOf(byRecipient.get(ALICE));
    const bob = linkOf(byRecipient.get(BOB));
    expect(alice).not.toBe(bob);
    const links = createAnswerLinks(new TextEncoder().encode(LINK_SECRET));
    const grants = await Promise.all([alice, bob].map((link) => links.verify(link.split('#')[1] as string)));
    expect(grants.map((grant) => grant?.principal.subject)).toEqual([`email:${ALICE}`, `email:${BOB}`]);
    expect(grants.map((grant) => grant?.interruptId)).toEqual([pause.interruptId, pause.interruptId]);

    // A mail scanner fetches what a link points at (the fragment never leaves the client), with HEAD and GET,
    // following redirects; some also render the page. None of it decides anything.
    const before = await getPause(pause.runId, pause.interruptId);
    expect(before.body).toMatchObject({ status: 'paused', pending: [refund.id], decided: [] });
    // The inbox is a GET route: a HEAD is answered 405 with `Allow: GET`, the GET with the page's HTML.
    const head = await fetch(alice, { method: 'HEAD', redirect: 'follow' });
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'GET']);
    const got = await fetch(alice, { redirect: 'follow' });
    expect([got.status, got.headers.get('content-type')?.split(';')[0]]).toEqual([200, 'text/html']);
    await got.arrayBuffer();
    const scanner = await newPage(browser);
    await scanner.page.goto(alice);
    await scanner.page.getByRole('heading', { level: 1, name: `Request from ${pause.runId}` }).waitFor();
    await scanner.context.close();
    expect((await getPause(pause.runId, pause.interruptId)).body).toEqual(before.body);

    const { context, page } = await newPage(browser);
    await page.goto(alice);
    await page.getByRole('heading', { level: 1, name: `Request from ${pause.runId}` }).waitFor();
    await page.getByRole('radio', { name: 'Approve', exact: true }).check();
    await page.getByRole('button', { name: 'Submit decision' }).click();
    await page.locator('.outcome').getByText('Resumed: the agent will now run refund_order.').waitFor();
    await context.close();

    const after = await getPause(pause.runId, pause.interruptId);
    expect(after.status).toBe(200);
    expect(after.body.status).toBe('resumed');
    expect(after.body.asks[0].decision).toMatchObject({
      decision: 'approve',
      by: { kind: 'link', subject: `email:${ALICE}`, email: ALICE, via: 'link' },
    });
  });
});

describe('the HTML part of an email', () => {
  it('has no remote images and, rendered in Chromium, loads nothing', async () => {
    const pause = await pauseForBoth();
    const html = (await mailsOf(pause.runId)).get(ALICE)?.html;
    if (typeof html !== 'string') throw new Error('the message has no HTML part');
    expect(html).not.toMatch(/<img|<link|<script|<iframe|<object|\bsrc=|url\(|@import/i);
    const { context, page } = await newPage(browser);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.setContent(html, { waitUntil: 'load' });
    await page.getByRole('link', { name: 'Review and decide' }).waitFor();
    expect(requested).toEqual([]);
    await context.close();
  });
});
