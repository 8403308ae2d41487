import type { Server } from 'node:http';
import Provider from 'oidc-provider';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type RunningService, request, startService, stopAll } from '../black-box/service.ts';
import { axeViolations, type Call, createPause, launchChromium, newPage, turn } from './browser.ts';

/**
 * Signing in to the inbox (§13) in headless Chromium against a real OpenID provider (`oidc-provider`, its dev
 * login form) on a free port: the authorization-code flow with PKCE, as a public client, and the bearer token on
 * the page's API calls. The local service here validates no tokens (auth off): the test asserts the header the page
 * sends, and that the service's config document and CSP name the issuer.
 */

const CLIENT_ID = 'handback-inbox';
let issuer: string;
let provider: Server;
let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  const [providerPort, servicePort] = await Promise.all([freePort(), freePort()]);
  issuer = `http://127.0.0.1:${providerPort}`;
  const inboxUrl = `http://127.0.0.1:${servicePort}/inbox`;
  const oidc = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        redirect_uris: [inboxUrl],
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email'], profile: ['name'] },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, name: 'Ann Example', email: 'ann@example.com' }),
    }),
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['handback-test-cookie-key'] },
  });
  provider = oidc.listen(providerPort);
  [service, browser] = await Promise.all([
    startService({
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      // The page's sign-in settings alone (as the inbox function reads them on AWS): the service itself checks no
      // tokens here, since this provider's access tokens are opaque (HANDBACK_JWT_ISSUER would make it check them).
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_SCOPES: 'openid email profile',
    }),
    launchChromium(),
  ]);
  expect(service.url).toBe(`http://127.0.0.1:${servicePort}`);
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await new Promise((resolve) => provider?.close(resolve));
});

const refundCall: Call = { id: 'call_refund', name: 'refund_order', args: { orderId: 'A-3001', amount: 12 } };

describe('signing in to the inbox with an OIDC provider', () => {
  it('serves the issuer and client in its config document, and lets the page call the issuer and nothing more', async () => {
    const config = await request(`${service.url}/inbox/config.json`, 'GET');
    expect(config.body).toEqual({ issuer, clientId: CLIENT_ID, scopes: 'openid email profile' });
    const page = await fetch(`${service.url}/inbox`);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp.split('; ').find((d) => d.startsWith('connect-src'))).toBe(`connect-src 'self' ${issuer}`);
  });

  it('signs in with the code flow and PKCE, shows who is signed in, sends the bearer token, decides, and signs out', async () => {
    const pause = await createPause(service.url, {
      messages: turn([refundCall]),
      asks: [{ toolCallId: refundCall.id, kind: 'approval', prompt: 'Refund 12.00 EUR for order A-3001?' }],
    });
    const { context, page } = await newPage(browser);
    const authorizations: URL[] = [];
    const tokenRequests: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${issuer}/auth`)) authorizations.push(new URL(r.url()));
      if (r.url().startsWith(`${issuer}/token`)) tokenRequests.push(r.postData() ?? '');
    });
    const bearers: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(service.url) && !r.url().includes('/inbox')) {
        bearers.push(r.headers().authorization ?? '');
      }
    });

    await page.goto(`${service.url}/inbox?run=${pause.runId}&pause=${pause.interruptId}`);
    await page.getByRole('heading', { level: 1, name: `Request from ${pause.runId}` }).waitFor();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    // The provider's own login form, then its consent.
    await page.locator('input[name="login"]').waitFor();
    expect(page.url().startsWith(issuer)).toBe(true);
    await page.locator('input[name="login"]').fill('ann');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();

    // Back at the same pause, signed in.
    await page.getByRole('heading', { level: 1, name: `Request from ${pause.runId}` }).waitFor();
    await page.getByText('Signed in as Ann Example').waitFor();
    expect(new URL(page.url()).search).toBe(`?run=${pause.runId}&pause=${pause.interruptId}`);
    const authorization = authorizations[0];
    expect(authorization?.searchParams.get('response_type')).toBe('code');
    expect(authorization?.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(authorization?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization?.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorization?.searchParams.get('state')).toBeTruthy();
    expect(authorization?.searchParams.get('redirect_uri')).toBe(`${service.url}/inbox`);
    // A public client: the verifier goes to the token endpoint, no secret does.
    expect(tokenRequests).toHaveLength(1);
    const exchange = new URLSearchParams(tokenRequests[0]);
    expect(exchange.get('code_verifier')).toMatch(/^[\w-]{43,128}$/);
    expect(exchange.get('client_secret')).toBeNull();

    const stored = await page.evaluate(() => ({ ...sessionStorage }));
    const token = stored['handback.token'];
    expect(token).toBeTruthy();
    expect(JSON.parse(stored['handback.identity'] ?? '{}')).toEqual({ name: 'Ann Example', email: 'ann@example.com' });
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    // The page's API calls carry the access token; decide the pause with it.
    const decided = page.waitForRequest((r) => r.url().includes(`/runs/${pause.runId}/resume`));
    await page.getByLabel('Approve', { exact: true }).check();
    await page.getByRole('button', { name: 'Submit decision' }).click();
    expect((await decided).headers().authorization).toBe(`Bearer ${token}`);
    await page.getByText('Resumed: the agent will now run refund_order.').waitFor();
    expect(bearers.filter((b) => b !== '').every((b) => b === `Bearer ${token}`)).toBe(true);
    expect(bearers.at(-1)).toBe(`Bearer ${token}`);
    expect(await axeViolations(page)).toEqual([]);

    // Signing out forgets the session.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.getByText('Signed in as').count()).toBe(0);
    await page.getByRole('button', { name: 'Sign in with your account' }).waitFor();
    await context.close();
  });

  it('keeps the pasted token for development beside the sign-in button', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(`${service.url}/inbox`);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await page.evaluate(() => sessionStorage.setItem('handback.token', 'not-a-real-token'));
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Access token').fill('pasted-token');
    const listed = page.waitForRequest((r) => r.url().includes('/pauses?'));
    await page.getByRole('button', { name: 'Use this token' }).click();
    expect((await listed).headers().authorization).toBe('Bearer pasted-token');
    await context.close();
  });
});
