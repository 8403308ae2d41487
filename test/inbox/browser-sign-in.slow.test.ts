import type { Server } from 'node:http';
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../functions/vocabulary.ts';
import { freePort, type RunningService, request, startService, stopAll } from '../black-box/service.ts';
import { axeViolations, type Call, createPause, launchChromium, newPage, turn } from './browser.ts';

/**
 * Signing in to the inbox (§13) in headless Chromium against a real OpenID provider (`oidc-provider`, its dev
 * login form) on a free port: the authorization-code flow with PKCE, as a public client, and the bearer token on
 * the page's API calls. The provider issues its access tokens for the API as RS256 JWTs (a resource server, found by
 * resource indicators, whose audience is the API's), and the local service checks them as API Gateway would
 * (`HANDBACK_JWT_ISSUER`, `HANDBACK_JWT_AUDIENCE`: discovery, the JWKS, iss, aud, exp, scopes): the agent pauses with
 * a client-credentials token, the person signs in and decides, and GET pause names that person as the decider.
 */

const CLIENT_ID = 'handback-inbox';
const AGENT_ID = 'refund-agent';
const AGENT_SECRET = 'an-agent-client-secret-for-this-test';
/** The API as a resource server: what a token must name in `aud` (HANDBACK_JWT_AUDIENCE). */
const AUDIENCE = 'handback-api';
const RESOURCE = 'urn:handback:api';
const SIGN_IN_SCOPES = `openid email profile ${SCOPES.decide}`;
let issuer: string;
let provider: Server;
let service: RunningService;
let browser: Browser;
let agentToken: string;

beforeAll(async () => {
  const [providerPort, servicePort] = await Promise.all([freePort(), freePort()]);
  issuer = `http://127.0.0.1:${providerPort}`;
  const inboxUrl = `http://127.0.0.1:${servicePort}/inbox`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const oidc = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'rs256', alg: 'RS256', use: 'sig' }] },
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        redirect_uris: [inboxUrl],
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
      {
        client_id: AGENT_ID,
        client_secret: AGENT_SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email'], profile: ['name'] },
    // The page reads who signed in from the ID token: the API's access token is no good at userinfo.
    conformIdTokenClaims: false,
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, name: 'Ann Example', email: 'ann@example.com' }),
    }),
    // The API's claims on its access tokens: the tenant, and who the person is (an agent has neither email nor name).
    extraTokenClaims: async (_ctx: unknown, token: { accountId?: string }) =>
      token.accountId === undefined
        ? { tenant: 'acme' }
        : { tenant: 'acme', name: 'Ann Example', email: 'ann@example.com' },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // The page asks for no resource: every token is for the API, a JWT signed RS256 with the audience it checks.
        defaultResource: async () => RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => {
          if (resource !== RESOURCE) throw new Error(`unknown resource ${resource}`);
          return {
            scope: `${SCOPES.agent} ${SCOPES.decide}`,
            audience: AUDIENCE,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    cookies: { keys: ['handback-test-cookie-key'] },
  });
  provider = oidc.listen(providerPort);
  [service, browser] = await Promise.all([
    startService({
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      HANDBACK_JWT_ISSUER: issuer,
      HANDBACK_JWT_AUDIENCE: AUDIENCE,
      HANDBACK_OIDC_CLIENT_ID: CLIENT_ID,
      HANDBACK_OIDC_SCOPES: SIGN_IN_SCOPES,
    }),
    launchChromium(),
  ]);
  expect(service.url).toBe(`http://127.0.0.1:${servicePort}`);
  // The agent's token, from the same provider: the client-credentials grant, scope handback/agent.
  const granted = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${AGENT_ID}:${AGENT_SECRET}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: SCOPES.agent }),
  });
  const body = (await granted.json()) as { access_token?: string };
  expect([granted.status, typeof body.access_token]).toEqual([200, 'string']);
  agentToken = body.access_token as string;
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await new Promise((resolve) => provider?.close(resolve));
});

const asAgent = () => ({ authorization: `Bearer ${agentToken}` });

const refundCall: Call = { id: 'call_refund', name: 'refund_order', args: { orderId: 'A-3001', amount: 12 } };

describe('signing in to the inbox with an OIDC provider', () => {
  it('serves the issuer and client in its config document, and lets the page call the issuer and nothing more', async () => {
    const config = await request(`${service.url}/inbox/config.json`, 'GET');
    expect(config.body).toEqual({ issuer, clientId: CLIENT_ID, scopes: SIGN_IN_SCOPES });
    const page = await fetch(`${service.url}/inbox`);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp.split('; ').find((d) => d.startsWith('connect-src'))).toBe(`connect-src 'self' ${issuer}`);
  });

  it('signs in with the code flow and PKCE, shows who is signed in, sends the JWT, decides as that person, and signs out', async () => {
    const pause = await createPause(
      service.url,
      {
        messages: turn([refundCall]),
        asks: [{ toolCallId: refundCall.id, kind: 'approval', prompt: 'Refund 12.00 EUR for order A-3001?' }],
      },
      asAgent(),
    );
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

    // Not signed in, the service refuses the page's call (401), and the page offers to sign in.
    await page.goto(`${service.url}/inbox?run=${pause.runId}&pause=${pause.interruptId}`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByRole('button', { name: 'Sign in with your account' }).click();

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

    // The token the page holds is the provider's RS256 JWT for the API, and the service took it as Ann's: the pause
    // names her (the subject the provider signed her in as) as the one who decided.
    expect(decodeJwt(token as string)).toMatchObject({ iss: issuer, aud: AUDIENCE, sub: 'ann', scope: SCOPES.decide });
    const seen = await request(
      `${service.url}/runs/${pause.runId}/pauses/${pause.interruptId}`,
      'GET',
      undefined,
      asAgent(),
    );
    expect(seen.status).toBe(200);
    expect(seen.body.pausedBy).toMatchObject({ kind: 'agent', subject: AGENT_ID });
    expect(seen.body.asks[0].decision).toMatchObject({
      decision: 'approve',
      by: { kind: 'person', subject: 'ann', email: 'ann@example.com', name: 'Ann Example', via: 'api' },
    });

    // Signing out forgets the session.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.getByText('Signed in as').count()).toBe(0);
    await page.getByRole('button', { name: 'Sign in with your account' }).waitFor();
    await context.close();
  });

  it('keeps the pasted token for development beside the sign-in button, and the service checks it too', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(`${service.url}/inbox`);
    await page.getByRole('button', { name: 'Sign in with your account' }).waitFor();
    await page.getByLabel('Access token').fill('pasted-token');
    const listed = page.waitForRequest((r) => r.url().includes('/pauses?'));
    await page.getByRole('button', { name: 'Use this token' }).click();
    expect((await listed).headers().authorization).toBe('Bearer pasted-token');
    await page.getByText('The service did not accept your access token.').waitFor();
    await context.close();
  });
});
