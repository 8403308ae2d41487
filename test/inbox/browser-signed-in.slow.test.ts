import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, request, startService, stopAll } from '../black-box/service.ts';
import {
  axeViolations,
  type Call,
  type Created,
  createPause,
  launchChromium,
  newPage,
  pauseUrl,
  tabTo,
  turn,
  watchWrites,
} from './browser.ts';

/**
 * The inbox page in headless Chromium against `npm start` with auth off (one tenant, no token): list, open, decide
 * through generated forms, approve, edit, reject, two people at once, expiry, cancel, keyboard only, 375 px, axe.
 */

let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  [service, browser] = await Promise.all([startService(), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
});

const refundCall: Call = { id: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 42.5 } };
const refundSchema = {
  type: 'object',
  properties: { orderId: { type: 'string' }, amount: { type: 'number', exclusiveMinimum: 0, maximum: 100 } },
  required: ['orderId', 'amount'],
  additionalProperties: false,
};
const answerSchema = {
  type: 'object',
  properties: {
    account: {
      type: 'string',
      title: 'Account',
      description: 'IBAN or card suffix',
      maxLength: 40,
      pattern: '^[A-Z0-9 -]+$',
    },
    method: { enum: ['card', 'voucher', 'bank'], title: 'Method' },
    notify: { type: 'boolean', title: 'Tell the customer' },
    days: { type: 'integer', title: 'Days to wait', minimum: 0, maximum: 30 },
  },
  required: ['account', 'method'],
};

/** A pause with one approval ask for `refund_order`. */
function approvalPause(extra: Record<string, unknown> = {}, calls: Call[] = [refundCall]) {
  return createPause(service.url, {
    messages: turn(calls),
    asks: [
      {
        toolCallId: refundCall.id,
        kind: 'approval',
        prompt: 'Refund 42.50 EUR for order A-1042?',
        argsSchema: refundSchema,
      },
    ],
    ...extra,
  });
}

/** A pause with one answer ask whose form is generated from `answerSchema`. */
function answerPause(name = 'ask_human') {
  return createPause(service.url, {
    messages: turn([{ id: 'call_ask', name, args: { question: 'Where should the refund go?' } }]),
    asks: [{ toolCallId: 'call_ask', prompt: 'Where should the refund go?', answerSchema }],
  });
}

async function shown(pause: Created) {
  return (await request(`${service.url}/runs/${pause.runId}/pauses/${pause.interruptId}`, 'GET')).body;
}

async function open(page: Page, pause: Created) {
  await page.goto(pauseUrl(service.url, pause));
  await page.getByRole('heading', { level: 1, name: `Request from ${pause.runId}` }).waitFor();
}

async function outcome(page: Page): Promise<string> {
  const status = page.locator('.outcome');
  await expect.poll(() => status.textContent(), { timeout: 15_000 }).not.toBe('');
  return (await status.textContent()) ?? '';
}

describe('the inbox, signed in with auth off', () => {
  it('lists open pauses newest first, opens one, and answers it through its generated form', async () => {
    const older = await approvalPause();
    const newer = await answerPause('choose_account');
    const { context, page } = await newPage(browser);
    await page.goto(`${service.url}/inbox`);
    await page.getByRole('heading', { level: 1, name: 'Waiting for a decision' }).waitFor();
    await page.locator('li.card', { hasText: newer.runId }).waitFor();
    const runs = await page.locator('li.card code.run').allTextContents();
    expect(runs.indexOf(newer.runId)).toBeGreaterThanOrEqual(0);
    expect(runs.indexOf(newer.runId)).toBeLessThan(runs.indexOf(older.runId));
    const card = page.locator('li.card', { hasText: newer.runId });
    expect(await card.textContent()).toMatch(
      /choose_account.*needs an answer.*Where should the refund go\?.*(now|seconds? ago).*expires in 7 days/,
    );

    await card.getByRole('link', { name: 'choose_account' }).click();
    await page.getByRole('heading', { level: 1, name: `Request from ${newer.runId}` }).waitFor();
    expect(new URL(page.url()).search).toBe(`?run=${newer.runId}&pause=${newer.interruptId}`);
    expect(await page.locator('blockquote').allTextContents()).toEqual([
      'Order A-1042 arrived broken. Please refund it.',
      'I can refund this order, but a person has to confirm first.',
    ]);
    expect(await page.locator('pre.json').first().textContent()).toBe(
      '{\n  "question": "Where should the refund go?"\n}',
    );

    await page.getByLabel('Account (required)').fill('DE 1234');
    await page.getByRole('radio', { name: 'bank' }).check();
    await page.getByLabel('Tell the customer').check();
    await page.getByLabel('Days to wait').fill('3');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    expect(await outcome(page)).toBe('Resumed: the agent goes on with your decisions.');
    await page.getByText(/^Resumed just now: every ask was decided\.$/).waitFor();
    // A decision of a moment ago, by whom: never a duration to come ("in 2 seconds").
    expect(await page.locator('.decided').textContent()).toMatch(/^Answered.* by .+ just now$/);
    expect((await shown(newer)).asks[0]).toMatchObject({
      decision: { answer: { account: 'DE 1234', method: 'bank', notify: true, days: 3 } },
    });
    await context.close();
  });

  it('refuses an answer its schema refuses, next to the field, sending nothing; the server refuses it too', async () => {
    const pause = await answerPause();
    const { context, page } = await newPage(browser);
    const writes = watchWrites(page);
    await open(page, pause);
    const account = page.getByLabel('Account (required)');
    await account.fill('not an account!');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    await page.getByText('Nothing was sent: correct what is marked, then submit again.').waitFor();
    expect(await page.locator(`#${await account.getAttribute('id')}-error`).textContent()).toBe(
      'Must match pattern "^[A-Z0-9 -]+$".',
    );
    expect(await account.getAttribute('aria-invalid')).toBe('true');
    expect(await account.getAttribute('aria-describedby')).toContain('-error');
    expect(await page.getByRole('radio', { name: 'card' }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('Choose one.').count()).toBe(1);
    // Focus went to the first field in error.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(await account.getAttribute('id'));
    expect(writes()).toEqual([]);

    // What the page would have sent, the server refuses with the same words.
    const refused = await request(`${service.url}/runs/${pause.runId}/resume`, 'POST', {
      interruptId: pause.interruptId,
      decisions: [{ toolCallId: 'call_ask', answer: { account: 'not an account!', method: 'card' } }],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.failures).toEqual([
      { path: '/decisions/0/answer/account', message: 'must match pattern "^[A-Z0-9 -]+$"' },
    ]);

    await account.fill('AB 12');
    await page.getByRole('radio', { name: 'voucher' }).check();
    await page.getByRole('button', { name: 'Submit decision' }).click();
    expect(await outcome(page)).toBe('Resumed: the agent goes on with your decisions.');
    expect(writes()).toEqual([`/runs/${pause.runId}/resume`]);
    await context.close();
  });

  it('approves an approval ask, and says the agent will run it', async () => {
    const pause = await approvalPause();
    const { context, page } = await newPage(browser);
    await open(page, pause);
    expect(await page.locator('pre.json').first().textContent()).toBe('{\n  "orderId": "A-1042",\n  "amount": 42.5\n}');
    await page.getByRole('radio', { name: 'Approve', exact: true }).check();
    await page.getByRole('button', { name: 'Submit decision' }).click();
    expect(await outcome(page)).toBe('Resumed: the agent will now run refund_order.');
    await page.getByText('Approved', { exact: true }).waitFor();
    expect((await shown(pause)).asks[0].decision).toMatchObject({ decision: 'approve' });
    await context.close();
  });

  it('refuses edited arguments that fail argsSchema or are not an object, sending nothing, then sends valid ones', async () => {
    const pause = await approvalPause();
    const { context, page } = await newPage(browser);
    const writes = watchWrites(page);
    await open(page, pause);
    await page.getByRole('radio', { name: 'Edit the arguments, then approve' }).check();
    const editor = page.getByLabel('Arguments to run the tool with (a JSON object)');
    expect(JSON.parse(await editor.inputValue())).toEqual(refundCall.args);

    await editor.fill('{"orderId": "A-1042", "amount": 500}');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    await page.locator('#a0-args-error').getByText('At /amount: must be <= 100.').waitFor();
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    await editor.fill('[1, 2]');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    await page.locator('#a0-args-error').getByText('The arguments must be a JSON object, in { }.').waitFor();
    expect(writes()).toEqual([]);
    const refused = await request(`${service.url}/runs/${pause.runId}/resume`, 'POST', {
      interruptId: pause.interruptId,
      decisions: [{ toolCallId: refundCall.id, decision: 'edit', args: { orderId: 'A-1042', amount: 500 } }],
    });
    expect(refused).toMatchObject({ status: 422, body: { code: 'invalid_answer' } });

    await editor.fill('{"orderId": "A-1042", "amount": 40}');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    expect(await outcome(page)).toBe('Resumed: the agent will now run refund_order.');
    expect(writes()).toHaveLength(1);
    expect((await shown(pause)).asks[0].decision).toMatchObject({
      decision: 'edit',
      args: { orderId: 'A-1042', amount: 40 },
    });
    await context.close();
  });

  it('rejects with a reason', async () => {
    const pause = await approvalPause();
    const { context, page } = await newPage(browser);
    await open(page, pause);
    await page.getByRole('radio', { name: 'Reject' }).check();
    await page.getByLabel('Reason (optional; the agent is told)').fill('The customer already got a voucher.');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    expect(await outcome(page)).toBe('Resumed: the agent goes on with your decisions.');
    await page.getByText('Rejected: The customer already got a voucher.').waitFor();
    expect((await shown(pause)).asks[0].decision).toMatchObject({
      decision: 'reject',
      reason: 'The customer already got a voucher.',
    });
    await context.close();
  });

  it('decides several asks at once, and one now, the other later', async () => {
    const notify: Call = { id: 'call_notify', name: 'notify_customer', args: { channel: 'email' } };
    const pause = await createPause(service.url, {
      messages: turn([refundCall, notify]),
      asks: [
        { toolCallId: refundCall.id, kind: 'approval', argsSchema: refundSchema },
        { toolCallId: notify.id, kind: 'approval', editable: false },
      ],
    });
    const { context, page } = await newPage(browser);
    await open(page, pause);
    const [refund, notice] = [page.locator('#a0'), page.locator('#a1')];
    expect(await notice.locator('label').allTextContents()).toEqual(['Approve', 'Reject', 'Decide later']);
    await refund.getByRole('radio', { name: 'Approve', exact: true }).check();
    await page.getByRole('button', { name: 'Submit decisions' }).click();
    expect(await outcome(page)).toBe('Recorded. Still waiting for a decision on: notify_customer.');
    await refund.getByText('Approved', { exact: true }).waitFor();

    await notice.getByRole('radio', { name: 'Reject' }).check();
    await page.getByRole('button', { name: 'Submit decision' }).click();
    expect(await outcome(page)).toBe('Resumed: the agent will now run refund_order.');
    expect((await shown(pause)).asks.map((a: { decision: unknown }) => a.decision)).toMatchObject([
      { decision: 'approve' },
      { decision: 'reject' },
    ]);
    await context.close();
  });

  it('tells the second of two people deciding the same ask that it was already decided, and how', async () => {
    const notify: Call = { id: 'call_notify', name: 'notify_customer', args: { channel: 'email' } };
    const pause = await createPause(service.url, {
      messages: turn([refundCall, notify]),
      asks: [
        { toolCallId: refundCall.id, kind: 'approval' },
        { toolCallId: notify.id, kind: 'approval' },
      ],
    });
    const [first, second] = await Promise.all([newPage(browser), newPage(browser)]);
    await Promise.all([open(first.page, pause), open(second.page, pause)]);

    await first.page.locator('#a0').getByRole('radio', { name: 'Approve', exact: true }).check();
    await first.page.getByRole('button', { name: 'Submit decisions' }).click();
    expect(await outcome(first.page)).toBe('Recorded. Still waiting for a decision on: notify_customer.');

    await second.page.locator('#a0').getByRole('radio', { name: 'Reject' }).check();
    await second.page.getByRole('button', { name: 'Submit decisions' }).click();
    expect(await outcome(second.page)).toBe('Someone else decided first; nothing of yours was sent.');
    await second.page
      .locator('#a0-note')
      .getByText(/^Already decided by .+: Approved\.$/)
      .waitFor();
    await second.page.locator('#a0').getByText('Approved', { exact: true }).waitFor();
    // The other ask is still theirs to decide.
    await second.page.locator('#a1').getByRole('radio', { name: 'Reject' }).check();
    await second.page.getByRole('button', { name: 'Submit decision' }).click();
    expect(await outcome(second.page)).toBe('Resumed: the agent will now run refund_order.');
    await Promise.all([first.context.close(), second.context.close()]);
  });

  it('shows an expired pause as expired, and says so when a decision comes too late', async () => {
    const pause = await approvalPause({ expiresInSeconds: 6 });
    const { context, page } = await newPage(browser);
    await open(page, pause);
    await page.getByRole('radio', { name: 'Approve', exact: true }).check();
    await new Promise((resolve) => setTimeout(resolve, Date.parse(pause.expiresAt) - Date.now() + 500));
    await page.getByRole('button', { name: 'Submit decision' }).click();
    expect(await outcome(page)).toBe('This request expired before a decision was made; nothing was sent.');
    await page.getByText(/^Expired .*: no decision can be made now\.$/).waitFor();
    expect(await page.getByRole('button', { name: 'Submit decision' }).count()).toBe(0);

    await page.reload();
    await page.getByText(/^Expired .*: no decision can be made now\.$/).waitFor();
    expect(await page.getByRole('radio').count()).toBe(0);
    await context.close();
  });

  it('says a pause was cancelled when it is cancelled while open, and cancels one from the page', async () => {
    const pause = await approvalPause();
    const { context, page } = await newPage(browser);
    await open(page, pause);
    const cancelled = await request(`${service.url}/runs/${pause.runId}/pauses/${pause.interruptId}/cancel`, 'POST', {
      reason: 'Duplicate ticket',
    });
    expect(cancelled.status).toBe(200);
    await page.getByRole('radio', { name: 'Approve', exact: true }).check();
    await page.getByRole('button', { name: 'Submit decision' }).click();
    expect(await outcome(page)).toBe('This request was cancelled; nothing was sent.');
    await page.getByText(/^Cancelled .*: every undecided ask was rejected\.$/).waitFor();

    const other = await approvalPause();
    await open(page, other);
    await page.getByText('Cancel this request…').click();
    await page.getByLabel('Reason for cancelling (optional)').fill('Handled by phone');
    await page.getByRole('button', { name: 'Cancel the request' }).click();
    expect(await outcome(page)).toBe('Cancelled. Every undecided ask was rejected and the agent has been told.');
    await page.getByText(/^Cancelled .*: every undecided ask was rejected\.$/).waitFor();
    expect(await shown(other)).toMatchObject({ status: 'cancelled', outcome: 'cancelled' });
    await context.close();
  });

  it('shows the whole transcript a click away, fetched 50 messages at a time', async () => {
    const history = Array.from({ length: 60 }, (_, i) => [
      { role: 'user', content: `Question ${i}` },
      { role: 'assistant', content: `Answer ${i}` },
    ]).flat();
    const [system, ...rest] = turn([refundCall]);
    const pause = await createPause(service.url, {
      messages: [system, ...history, ...rest],
      asks: [{ toolCallId: refundCall.id, kind: 'approval' }],
    });
    const { context, page } = await newPage(browser);
    const slices: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('include=messages')) slices.push(new URL(r.url()).search);
    });
    await open(page, pause);
    await page.getByRole('button', { name: 'Show the whole transcript' }).click();
    await page.getByText('Showing 50 of 123 messages.').waitFor();
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByText('Showing 100 of 123 messages.').waitFor();
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByText('Showing 123 of 123 messages.').waitFor();
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(await page.locator('ol.transcript > li').count()).toBe(123);
    expect(await page.locator('ol.transcript > li').nth(1).textContent()).toContain('"Question 0"');
    expect(slices).toEqual([
      '?include=messages&from=0&limit=50',
      '?include=messages&from=50&limit=50',
      '?include=messages&from=100&limit=50',
    ]);
    await page.getByRole('button', { name: 'Hide the transcript' }).click();
    expect(await page.locator('ol.transcript').count()).toBe(0);
    await context.close();
  });

  it('decides with the keyboard alone, every focused control visibly outlined', async () => {
    const pause = await createPause(service.url, {
      messages: turn([{ ...refundCall, name: 'keyboard_refund' }]),
      asks: [{ toolCallId: refundCall.id, kind: 'approval', prompt: 'Approve with the keyboard?' }],
    });
    const { context, page } = await newPage(browser);
    await page.goto(`${service.url}/inbox`);
    await page.locator('li.card', { hasText: pause.runId }).waitFor();
    const path = await tabTo(page, (f) => f.tag === 'a' && f.name === 'keyboard_refund: Approve with the keyboard?');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: `Request from ${pause.runId}` }).waitFor();
    path.push(...(await tabTo(page, (f) => f.tag === 'input' && f.name === 'Approve')));
    await page.keyboard.press('Space');
    path.push(...(await tabTo(page, (f) => f.tag === 'button' && f.name === 'Submit decision')));
    await page.keyboard.press('Enter');
    expect(await outcome(page)).toBe('Resumed: the agent will now run keyboard_refund.');
    expect(path.filter((f) => !f.outline)).toEqual([]);
    await context.close();
  });

  it('fits 375 px wide without horizontal scrolling, with long ids, prompts and arguments', async () => {
    const long = 'x'.repeat(300);
    const pause = await createPause(
      service.url,
      {
        messages: turn(
          [{ id: 'call_long', name: `tool_${'n'.repeat(60)}`, args: { blob: long, nested: { deeper: [long] } } }],
          long,
        ),
        asks: [{ toolCallId: 'call_long', prompt: `Decide ${long}`, answerSchema: { type: 'array' } }],
      },
      {},
      `run-${'r'.repeat(120)}`,
    );
    const { context, page } = await newPage(browser, {
      viewport: { width: 375, height: 740 },
      isMobile: true,
      hasTouch: true,
    });
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth);
    await page.goto(`${service.url}/inbox`);
    await page.locator('li.card', { hasText: pause.runId }).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(375);
    await open(page, pause);
    await page.getByRole('button', { name: 'Show the whole transcript' }).click();
    await page.getByText('Showing 3 of 3 messages.').waitFor();
    await page.getByRole('button', { name: /^Submit/ }).click();
    await page.getByText('Enter a JSON value.').waitFor();
    expect(await overflow()).toBeLessThanOrEqual(375);
    await context.close();
  });

  it('meets the WCAG 2.1 A and AA rules axe-core checks: the list, a pause with errors, and its transcript', async () => {
    await approvalPause();
    const pause = await answerPause();
    const { context, page } = await newPage(browser);
    await page.goto(`${service.url}/inbox`);
    await page.locator('li.card').first().waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await open(page, pause);
    await page.getByLabel('Days to wait').fill('many');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    await page.getByText('Enter a whole number, like 12.').waitFor();
    await page.getByRole('button', { name: 'Show the whole transcript' }).click();
    await page.getByText('Showing 3 of 3 messages.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it('enforces its policy in the browser — no inline script, no code from strings — while the validator worker runs', async () => {
    const pause = await answerPause();
    const { context, page } = await newPage(browser);
    await open(page, pause);
    const attempts = await page.evaluate(async () => {
      const seen: string[] = [];
      document.addEventListener('securitypolicyviolation', (e) => seen.push(e.effectiveDirective));
      const tries: Record<string, string> = {};
      const attempt = (name: string, run: () => void) => {
        try {
          run();
          tries[name] = 'no error';
        } catch (error) {
          tries[name] = (error as Error).name;
        }
      };
      const w = window as unknown as Record<string, unknown>;
      attempt('inline script', () => {
        const script = document.createElement('script');
        script.textContent = 'window.ranInline = true';
        document.body.append(script);
      });
      attempt('timer from a string', () => setTimeout('window.ranTimer = true' as unknown as () => void, 0));
      attempt('markup from a string', () => {
        document.body.insertAdjacentHTML('beforeend', '<img src=x onerror="window.ranMarkup = true">');
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { tries, ran: [w.ranInline, w.ranTimer, w.ranMarkup], seen };
    });
    expect(attempts.ran).toEqual([undefined, undefined, undefined]);
    // Trusted Types refuse each sink outright, and report it.
    expect(attempts.tries).toEqual({
      'inline script': 'TypeError',
      'timer from a string': 'TypeError',
      'markup from a string': 'TypeError',
    });
    expect(attempts.seen).toContain('require-trusted-types-for');
    // The validator worker still checks answers, under its own policy.
    await page.getByLabel('Account (required)').fill('lower case');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    await page.getByText('Must match pattern "^[A-Z0-9 -]+$".').waitFor();
    await context.close();
  });

  it('names each list row by what it asks, so five refunds read as five different links', async () => {
    const orders = ['A-2001', 'A-2002', 'A-2003', 'A-2004', 'A-2005'];
    for (const order of orders) {
      await createPause(service.url, {
        messages: turn([{ ...refundCall, args: { orderId: order, amount: 10 } }]),
        asks: [{ toolCallId: refundCall.id, kind: 'approval', prompt: `Refund 10.00 EUR for order ${order}?` }],
      });
    }
    const unprompted = await createPause(service.url, {
      messages: turn([refundCall]),
      asks: [{ toolCallId: refundCall.id, kind: 'approval' }],
    });
    const { context, page } = await newPage(browser);
    await page.goto(`${service.url}/inbox`);
    await page.locator('li.card', { hasText: unprompted.runId }).waitFor();
    for (const order of orders) {
      const name = `refund_order: Refund 10.00 EUR for order ${order}?`;
      expect(await page.getByRole('link', { name, exact: true }).count()).toBe(1);
    }
    expect(await page.getByRole('link', { name: `refund_order, run ${unprompted.runId}`, exact: true }).count()).toBe(
      1,
    );
    // The visible text starts the name (WCAG 2.5.3, label in name), so "refund_order" still finds each row.
    expect(await page.getByRole('link', { name: 'refund_order' }).count()).toBeGreaterThanOrEqual(6);
    expect(await axeViolations(page)).toEqual([]);

    // "Waiting for me" asks the API for the requester's own pauses only (§13).
    const asked = page.waitForRequest((r) => r.url().includes('/pauses?') && r.url().includes('mine=true'));
    await page.getByRole('button', { name: 'Waiting for me' }).click();
    await asked;
    expect(await page.getByRole('button', { name: 'Waiting for me' }).getAttribute('aria-pressed')).toBe('true');
    await context.close();
  });

  it('says “escalated to … at …” of an ask an escalation level reached (§21)', async () => {
    const pause = await approvalPause();
    const { context, page } = await newPage(browser);
    const at = '2026-12-07T15:00:00.000Z';
    // Without auth no pause names approvers, so no ladder adds any: the test adds to the real answer what a service
    // with a ladder sends once its first level was reached.
    await page.route(`**/runs/${pause.runId}/pauses/${pause.interruptId}`, async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      body.asks[0] = {
        ...body.asks[0],
        escalation: { level: 1, last: { at, approvers: { groups: ['leads'], emails: ['cfo@example.com'] } } },
      };
      await route.fulfill({ response, json: body });
    });
    await open(page, pause);
    const said = page.locator('p.escalated');
    await said.waitFor();
    const shown = await page.evaluate((iso) => new Date(iso).toLocaleString('en'), at);
    expect(await said.textContent()).toBe(`Escalated to group leads and cfo@example.com at ${shown} (level 1).`);
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it('shows a pause the person may not decide as read-only, saying who may, with the votes so far and who paused it', async () => {
    const pause = await approvalPause();
    const { context, page } = await newPage(browser);
    // Without auth no pause may name approvers or a quorum (§16): the test adds to the real answer what a service with
    // auth sends for a person outside the approvers — the refusal and the tally the page shows as they are.
    await page.route(`**/runs/${pause.runId}/pauses/${pause.interruptId}`, async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      body.pausedBy = { kind: 'agent', subject: 'agent-1', name: 'Refund bot', via: 'api' };
      body.asks[0] = {
        ...body.asks[0],
        mayDecide: false,
        refusal: 'not_an_approver',
        tally: { have: 1, need: 2 },
        approvers: { groups: ['finance'] },
        approvals: 2,
        votes: [
          {
            decision: 'approve',
            by: { kind: 'person', subject: 'u-ann', name: 'Ann', via: 'api' },
            at: body.createdAt,
          },
        ],
      };
      await route.fulfill({ response, json: body });
    });
    await open(page, pause);
    await page.getByText('You may not decide this request. Only the group finance may decide it.').waitFor();
    expect(await page.getByText('1 of 2 approvals: Ann approved', { exact: true }).count()).toBe(1);
    expect(await page.getByRole('radio').count()).toBe(0);
    const submit = page.getByRole('button', { name: 'Submit decision' });
    expect(await submit.isDisabled()).toBe(true);
    expect(await submit.getAttribute('aria-describedby')).toBe('submit-why');
    expect(await page.locator('#submit-why').textContent()).toMatch(/^Nothing here is yours to decide/);
    expect(await page.locator('p.meta').first().textContent()).toContain('paused by Refund bot');
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it('shows how decisions are going (§21): a chart and the same numbers as tables, at 375 px, meeting axe’s WCAG rules', async () => {
    const tool = `stats_tool_${Date.now()}`;
    const call: Call = { id: 'call_stats', name: tool, args: { orderId: 'A-7' } };
    const ask = { toolCallId: call.id, kind: 'approval' };
    const approved = await createPause(service.url, { messages: turn([call]), asks: [ask] });
    await createPause(service.url, { messages: turn([call]), asks: [ask] });
    const decided = await request(`${service.url}/runs/${approved.runId}/resume`, 'POST', {
      interruptId: approved.interruptId,
      decisions: [{ toolCallId: call.id, decision: 'approve' }],
    });
    expect(decided.status).toBe(200);
    const { context, page } = await newPage(browser, { viewport: { width: 375, height: 740 }, isMobile: true });
    await page.goto(`${service.url}/inbox`);
    await page.getByRole('link', { name: 'How decisions are going' }).click();
    await page.getByRole('heading', { level: 1, name: 'How decisions are going' }).waitFor();
    expect(page.url()).toMatch(/\?view=stats$/);
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toMatch(/ asks? of \d+ tools? in the last 7 days\./);
    expect(await page.getByRole('button', { name: '7 days' }).getAttribute('aria-pressed')).toBe('true');
    // The numbers as text: the tool's row of each table, in the order of its columns.
    const times = page.getByRole('table', { name: 'Time from the request to a person’s decision' });
    const timesRow = await times
      .getByRole('row', { name: new RegExp(`^${tool}`) })
      .locator('th, td')
      .allTextContents();
    expect(timesRow).toHaveLength(5);
    expect(timesRow[0]).toBe(tool);
    expect(timesRow[1]).toMatch(/^\d+ (ms|s)$/);
    expect(timesRow[4]).toBe('1');
    const outcomes = page.getByRole('table', { name: 'What became of the asks, and what still waits' });
    const outcomesRow = await outcomes
      .getByRole('row', { name: new RegExp(`^${tool}`) })
      .locator('th, td')
      .allTextContents();
    expect(outcomesRow.slice(0, 8)).toEqual([tool, '1', '0', '0', '0', '0', '0', '1']);
    expect(outcomesRow[8]).toMatch(/^\d+ (ms|s)$/);
    // The chart draws the tool, hidden from screen readers, which read the tables.
    const chart = page.locator('figure.chart svg');
    expect(await chart.getAttribute('aria-hidden')).toBe('true');
    expect(await chart.locator('text', { hasText: tool }).count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Last day' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/in the last day\.$/);
    await page.goBack();
    await page.locator('li.card').first().waitFor();
    await context.close();
  });
});
