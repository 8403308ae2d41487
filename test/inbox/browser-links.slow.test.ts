import { SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, request, startService, stopAll } from '../black-box/service.ts';
import { axeViolations, type Call, createPause, launchChromium, newPage, turn } from './browser.ts';

/**
 * The inbox page in headless Chromium against `npm start` with bearer auth on (`HANDBACK_JWT_SECRET`) and answer
 * links (`HANDBACK_LINK_SECRET`): the token pasted once and kept for the session, one tenant's pauses, paging, and
 * a link that opens its one pause and nothing else.
 */

const JWT_SECRET = 'inbox-test-jwt-secret-of-at-least-32-bytes';
const LINK_SECRET = 'inbox-test-link-secret-of-at-least-32-bytes';

let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  [service, browser] = await Promise.all([
    startService({ HANDBACK_JWT_SECRET: JWT_SECRET, HANDBACK_LINK_SECRET: LINK_SECRET }),
    launchChromium(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
});

function tokenFor(tenant: string): Promise<string> {
  return new SignJWT({ tenant, sub: `${tenant}-person` })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

const refund: Call = { id: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 42.5 } };

async function pauseFor(tenant: string, name = refund.name) {
  const auth = { Authorization: `Bearer ${await tokenFor(tenant)}` };
  return createPause(
    service.url,
    {
      messages: turn([{ ...refund, name }]),
      asks: [{ toolCallId: refund.id, kind: 'approval', prompt: `${name} for ${tenant}?` }],
    },
    auth,
  );
}

/** Every request the page makes to the API, with the credentials it carried. */
function watchRequests(page: Page) {
  const seen: Array<{ method: string; path: string; authorization?: string; link?: string }> = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/inbox')) return;
    const headers = r.headers();
    seen.push({
      method: r.method(),
      path: url.pathname,
      ...(headers.authorization === undefined ? {} : { authorization: headers.authorization }),
      ...(headers['x-handback-link'] === undefined ? {} : { link: headers['x-handback-link'] }),
    });
  });
  return seen;
}

describe('the inbox with bearer auth on', () => {
  it('asks for a token, says when it is refused, keeps a good one for the session, and shows that tenant only', async () => {
    const mine = await pauseFor('acme', 'acme_refund');
    const theirs = await pauseFor('globex', 'globex_refund');
    const { context, page } = await newPage(browser);
    const requests = watchRequests(page);
    await page.goto(`${service.url}/inbox`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel('Access token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The service did not accept your access token.').waitFor();
    expect(await page.getByLabel('Access token').getAttribute('aria-invalid')).toBe('true');

    const token = await tokenFor('acme');
    const signedIn = requests.length;
    await page.getByLabel('Access token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('li.card', { hasText: mine.runId }).waitFor();
    expect(await page.locator('li.card', { hasText: theirs.runId }).count()).toBe(0);
    // Every request after the sign-in carries the token: the listing, and who is signed in (§20's GET /people/me).
    const after = requests.slice(signedIn);
    expect(after).toContainEqual({ method: 'GET', path: '/pauses', authorization: `Bearer ${token}` });
    expect(after.filter((r) => r.authorization !== `Bearer ${token}`)).toEqual([]);

    // Kept in this tab's session storage: a reload needs no new sign-in; another browser does.
    await page.reload();
    await page.locator('li.card', { hasText: mine.runId }).waitFor();
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual(['handback.token']);
    expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
    const other = await newPage(browser);
    await other.page.goto(`${service.url}/inbox`);
    await other.page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await other.context.close();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await context.close();
  });

  it('pages through more than 20 pauses, 20 at a time, with Older and Newer', async () => {
    const tenant = `paging-${Date.now()}`;
    for (let i = 0; i < 23; i++) await pauseFor(tenant, `tool_${String(i).padStart(2, '0')}`);
    const { context, page } = await newPage(browser);
    await page.goto(`${service.url}/inbox`);
    await page.getByLabel('Access token').fill(await tokenFor(tenant));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('20 requests, newest first.').waitFor();
    const names = () => page.locator('li.card h2').allTextContents();
    expect((await names())[0]).toBe('tool_22');
    expect((await names()).at(-1)).toBe('tool_03');
    await page.getByRole('button', { name: 'Older' }).click();
    await page.getByText('3 requests (page 2), newest first.').waitFor();
    expect(await names()).toEqual(['tool_02', 'tool_01', 'tool_00']);
    expect(await page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Newer' }).click();
    await page.getByText('20 requests, newest first.').waitFor();
    expect((await names())[0]).toBe('tool_22');
    await context.close();
  });
});

describe('the inbox from an answer link', () => {
  it('opens only its pause, takes the token out of the address bar, sends it only in its header, and decides', async () => {
    const pause = await pauseFor('acme', 'linked_refund');
    expect(pause.answerUrl).toMatch(new RegExp(`^${service.url}/inbox#[\\w-]+\\.[\\w-]+\\.[\\w-]+$`));
    const token = (pause.answerUrl as string).split('#')[1];
    const { context, page } = await newPage(browser);
    const requests = watchRequests(page);
    await page.goto(pause.answerUrl as string);
    await page.getByRole('heading', { level: 1, name: `Request from ${pause.runId}` }).waitFor();
    expect(page.url()).toBe(`${service.url}/inbox`);
    expect(await page.getByRole('link', { name: /All waiting requests/ }).count()).toBe(0);
    expect(await page.getByText('Cancel this request…').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Show the whole transcript' }).click();
    await page.getByText('Showing 3 of 3 messages.').waitFor();
    await page.getByRole('radio', { name: 'Approve', exact: true }).check();
    await page.getByRole('button', { name: 'Submit decision' }).click();
    await page.locator('.outcome').getByText('Resumed: the agent will now run linked_refund.').waitFor();
    // Who and when: this page decided it, a moment ago — never "Approved in 2 seconds".
    expect(await page.locator('.decided').textContent()).toBe('Approved by you just now');
    expect(requests).toEqual([
      { method: 'GET', path: '/links/pause', link: token },
      { method: 'GET', path: '/links/pause', link: token },
      { method: 'POST', path: '/links/resume', link: token },
    ]);

    // The pause is closed: the link now says so and the server tells nothing more (§11); the page says what this
    // person decided on it, from its own memory of the tab.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'This request is closed' }).waitFor();
    await page
      .getByText('You decided it just now: linked_refund approved. It is closed now, and this link opens it no more.')
      .waitFor();
    await context.close();

    // Another tab of the same link remembers nothing: it says only that the request is closed.
    const { context: fresh, page: again } = await newPage(browser);
    await again.goto(pause.answerUrl as string);
    await again.getByRole('heading', { level: 1, name: 'This request is closed' }).waitFor();
    await again.getByText('Whatever it asked has been settled, has expired or was cancelled.').waitFor();
    await fresh.close();
  });

  it('says the request is closed when it is cancelled while the link is open', async () => {
    const pause = await pauseFor('acme');
    const { context, page } = await newPage(browser);
    await page.goto(pause.answerUrl as string);
    await page.getByRole('heading', { level: 1, name: `Request from ${pause.runId}` }).waitFor();
    const auth = { Authorization: `Bearer ${await tokenFor('acme')}` };
    const cancelled = await request(
      `${service.url}/runs/${pause.runId}/pauses/${pause.interruptId}/cancel`,
      'POST',
      {},
      auth,
    );
    expect(cancelled.status).toBe(200);
    await page.getByRole('radio', { name: 'Reject' }).check();
    await page.getByRole('button', { name: 'Submit decision' }).click();
    await page
      .locator('.outcome')
      .getByText('This request closed before your decision arrived; nothing was sent.')
      .waitFor();
    expect(await page.locator('.banner').textContent()).toBe('This request is closed.');
    expect(await page.getByRole('button', { name: 'Submit decision' }).count()).toBe(0);
    await context.close();
  });

  it('says a tampered link is not valid, and shows nothing', async () => {
    const pause = await pauseFor('acme');
    const [head, body] = (pause.answerUrl as string).split('#')[1]?.split('.') ?? [];
    const { context, page } = await newPage(browser);
    await page.goto(`${service.url}/inbox#${head}.${body}.c2lnbmF0dXJl`);
    await page.getByText('This link is not valid. Ask whoever sent it for a new one.').waitFor();
    expect(await page.locator('.ask').count()).toBe(0);
    await context.close();
  });
});
