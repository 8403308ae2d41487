import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, request, startService, stopAll } from '../black-box/service.ts';
import { type Call, createPause, launchChromium, newPage, pauseUrl, turn } from './browser.ts';

/**
 * An edit made in the inbox page is judged by the policies (§19): headless Chromium against `npm start` (auth off)
 * with a policy file. An edit past a forbid is refused with the policy's reason on the page and records nothing; the
 * control, an edit the policies leave to anyone, resumes the run with the edited arguments; an edit that raises the
 * ask's need leaves it waiting, and the page says what the policies make of the edited arguments (`policyNow`).
 */

let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  [service, browser] = await Promise.all([
    startService({
      HANDBACK_POLICIES: 'test/fixtures/policies/edit-quorum.cedar',
      HANDBACK_POLICY_SCHEMA: 'test/fixtures/policies/edits.cedarschema',
    }),
    launchChromium(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
});

// No amount: no policy applies, so anyone (here the anonymous person) may decide it.
const refund: Call = { id: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042' } };

describe('the inbox with a policy file', () => {
  it('shows a forbidden edit refused with the policy’s reason and records nothing; the control resumes', async () => {
    const pause = await createPause(service.url, {
      messages: turn([refund]),
      asks: [{ toolCallId: refund.id, kind: 'approval', prompt: 'Refund order A-1042?' }],
    });
    const read = async () =>
      (await request(`${service.url}/runs/${pause.runId}/pauses/${pause.interruptId}`, 'GET')).body;
    const before = await read();
    const { context, page } = await newPage(browser);
    await page.goto(pauseUrl(service.url, pause));
    await page.getByRole('heading', { level: 1, name: `Request from ${pause.runId}` }).waitFor();
    await page.getByRole('radio', { name: 'Edit the arguments, then approve' }).check();
    const editor = page.getByLabel('Arguments to run the tool with (a JSON object)');

    await editor.fill('{"orderId": "A-1042", "amount": 40000}');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    const alert = page.locator('#form-error');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('forbidden by policy never-over-10000');
    expect(await alert.textContent()).toContain('Refunds over 10,000 go through the bank');
    expect(await read()).toEqual(before);

    await editor.fill('{"orderId": "A-1043"}');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    const status = page.locator('.outcome');
    await expect
      .poll(() => status.textContent(), { timeout: 15_000 })
      .toBe('Resumed: the agent will now run refund_order.');
    expect((await read()).asks[0]).toMatchObject({
      decision: { decision: 'edit', args: { orderId: 'A-1043' }, policy: { outcome: 'ask', basis: 'default' } },
    });
    await context.close();
  });

  it('after an edit that raises the need, says what the policies make of the edited arguments', async () => {
    const pause = await createPause(service.url, {
      messages: turn([refund]),
      asks: [{ toolCallId: refund.id, kind: 'approval', prompt: 'Refund order A-1042?' }],
    });
    const { context, page } = await newPage(browser);
    await page.goto(pauseUrl(service.url, pause));
    await page.getByRole('heading', { level: 1, name: `Request from ${pause.runId}` }).waitFor();
    // Before the edit the policies said only what they made of the model's arguments.
    await expect.poll(() => page.locator('.note.policy').textContent()).toContain('Waits for people');
    expect(await page.locator('.note.policy-now').count()).toBe(0);

    await page.getByRole('radio', { name: 'Edit the arguments, then approve' }).check();
    await page
      .getByLabel('Arguments to run the tool with (a JSON object)')
      .fill('{"orderId": "A-1042", "amount": 500}');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    const now = page.locator('.note.policy-now');
    await now.waitFor({ timeout: 15_000 });
    expect(await now.textContent()).toBe('After the edit: policy two-over-100 requires 2 approvals.');
    const [ask] = (await request(`${service.url}/runs/${pause.runId}/pauses/${pause.interruptId}`, 'GET')).body.asks;
    expect(ask).toMatchObject({
      tally: { have: 1, need: 2 },
      policyNow: { outcome: 'ask', policyIds: ['two-over-100'], requires: { approvals: 2 } },
    });
    await context.close();
  });
});
