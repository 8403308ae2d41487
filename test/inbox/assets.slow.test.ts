import { describe, expect, it } from 'vitest';
import { inboxSignIn } from '../../functions/handlers/config.ts';
import { createInboxHandler } from '../../functions/handlers/inbox-http.ts';
import {
  DEFAULT_SCOPES,
  inboxAsset,
  inboxSettings,
  PAGE_CSP,
  pageCsp,
  WORKER_CSP,
} from '../../functions/inbox/assets.ts';
import { type BuiltFile, buildInboxFiles } from '../../functions/inbox/build.ts';
import { INBOX_FILES } from '../../functions/inbox/generated.ts';
import { httpEvent, lambdaContext } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';
import { inProcessApi } from './api.ts';

const files = await buildInboxFiles();
const byPrefix = (prefix: string) => files.find((f) => f.name.startsWith(prefix)) as BuiltFile;

describe('the inbox build', () => {
  it('names the script, the style sheet, the validator, the sign-in and the stats chunks by their content hash', () => {
    expect(files.map((f) => f.name)).toEqual([
      '',
      expect.stringMatching(/^app-[\w-]{10}\.js$/),
      expect.stringMatching(/^app-[\w-]{10}\.css$/),
      expect.stringMatching(/^validator-[\w-]{10}\.js$/),
      expect.stringMatching(/^signin-[\w-]{10}\.js$/),
      expect.stringMatching(/^stats-[\w-]{10}\.js$/),
    ]);
  });

  it('is the build the served module holds (the global setup rebuilt it)', () => {
    expect(Object.keys(INBOX_FILES)).toEqual(files.map((f) => f.name));
  });

  it('writes a page with a language, a viewport, and only external script and style, by relative URL', () => {
    const html = byPrefix('').body;
    expect(html).toMatch(/<html lang="en">/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain(`<script defer src="inbox/${byPrefix('app-').name}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="inbox/${files[2]?.name}">`);
    expect(html.match(/<script\b[^>]*>/g)).toEqual([`<script defer src="inbox/${byPrefix('app-').name}">`]);
    expect(html).not.toMatch(/\sstyle=|\son\w+=/);
  });

  // 20 KB until part five; §19's execution words, §20's unknown person and §21's link to the stats took it to 20.2 KB,
  // §20's person and delegation (the header, votes for a delegator) to 20.5 KB.
  it('keeps the page small: script ≤ 21 KB, style ≤ 3 KB gzipped (the validator loads apart, on first use)', () => {
    const app = byPrefix('app-');
    expect(app.gzipBytes).toBeLessThanOrEqual(21 * 1024);
    expect((files[2] as BuiltFile).gzipBytes).toBeLessThanOrEqual(3 * 1024);
    // ajv and the server's schema module; room for its linear-time pattern engine.
    expect(byPrefix('validator-').gzipBytes).toBeLessThanOrEqual(160 * 1024);
    // oauth4webapi and the code flow, loaded only when the inbox serves an issuer (§13).
    expect(byPrefix('signin-').gzipBytes).toBeLessThanOrEqual(10 * 1024);
    // How decisions are going (§21): plain DOM, loaded only when that view is opened.
    expect(byPrefix('stats-').gzipBytes).toBeLessThanOrEqual(4 * 1024);
  });

  it('keeps the stats view out of the page script, which imports its chunk by name only when it is opened', () => {
    const app = byPrefix('app-').body;
    expect(app).toContain(byPrefix('stats-').name);
    expect(app).not.toContain('90th percentile');
    expect(byPrefix('stats-').body).toContain('90th percentile');
  });

  it('keeps oauth4webapi out of the page script, which imports the sign-in chunk by name only when needed', () => {
    const app = byPrefix('app-').body;
    expect(app).toContain(byPrefix('signin-').name);
    expect(app).not.toContain('code_verifier');
    expect(byPrefix('signin-').body).toContain('code_verifier');
  });

  it('leaves eval and Function out of the page script, and starts the validator it was built with', () => {
    const app = byPrefix('app-').body;
    expect(app).not.toMatch(/\beval\(|new Function\(/);
    expect(app).toContain(byPrefix('validator-').name);
  });
});

describe('inboxAsset', () => {
  it('serves the page with a strict policy: own-origin script, no eval, no framing, no base, Trusted Types', () => {
    const page = inboxAsset('');
    expect(page?.contentType).toBe('text/html; charset=utf-8');
    expect(page?.headers).toMatchObject({
      'Content-Security-Policy': PAGE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
    const directives = Object.fromEntries(PAGE_CSP.split('; ').map((d) => [d.split(' ')[0], d]));
    expect(directives).toMatchObject({
      'default-src': "default-src 'none'",
      'script-src': "script-src 'self'",
      'frame-ancestors': "frame-ancestors 'none'",
      'base-uri': "base-uri 'none'",
      'require-trusted-types-for': "require-trusted-types-for 'script'",
    });
    expect(PAGE_CSP).not.toMatch(/unsafe/);
  });

  it('caches hashed files for good, and gives the validator worker its own policy with eval', () => {
    const script = inboxAsset(byPrefix('app-').name);
    expect(script).toMatchObject({
      contentType: 'text/javascript; charset=utf-8',
      headers: { 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' },
    });
    const worker = inboxAsset(byPrefix('validator-').name);
    expect(worker?.headers['Content-Security-Policy']).toBe(WORKER_CSP);
    expect(WORKER_CSP).toBe("default-src 'none'; script-src 'self' 'unsafe-eval'");
  });

  it.each(['nope.js', '__proto__', 'constructor', 'app.js'])('has no file %s', (name) => {
    expect(inboxAsset(name)).toBeUndefined();
  });
});

describe('GET /inbox through the API handler', () => {
  const api = inProcessApi();

  it('serves the page and its files without a token', async () => {
    const page = await api.call(httpEvent('GET', '/inbox', { claims: null }));
    expect(page.status).toBe(200);
    expect(page.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(page.headers['Content-Security-Policy']).toBe(PAGE_CSP);
    const script = await api.call(httpEvent('GET', `/inbox/${byPrefix('app-').name}`, { claims: null }));
    expect(script).toMatchObject({ status: 200, body: byPrefix('app-').body });
  });

  it('gzips its files for a client that takes gzip, and names the encoding', async () => {
    const { gunzipSync } = await import('node:zlib');
    const validator = byPrefix('validator-');
    const plain = await api.call(httpEvent('GET', `/inbox/${validator.name}`, { claims: null }));
    expect(plain.headers['Content-Encoding']).toBeUndefined();
    const handler = api.raw;
    const event = httpEvent('GET', `/inbox/${validator.name}`, {
      claims: null,
      headers: { 'accept-encoding': 'gzip, br' },
    });
    const result = await handler(event);
    expect(result.headers?.['Content-Encoding']).toBe('gzip');
    expect(result.headers?.Vary).toBe('Accept-Encoding');
    expect(result.isBase64Encoded).toBe(true);
    const bytes = Buffer.from(String(result.body), 'base64');
    expect(bytes.length).toBeLessThan(validator.body.length / 2);
    expect(gunzipSync(bytes).toString('utf8')).toBe(validator.body);
  });

  it('answers 404 for a file it does not have, and still wants a token for the data', async () => {
    const missing = await api.call(httpEvent('GET', '/inbox/nope.js', { claims: null }));
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 'not_found' });
    const list = await api.call(httpEvent('GET', '/pauses', { claims: null }));
    expect(list.status).toBe(401);
  });
});

describe('the inbox function', () => {
  const handler = createInboxHandler(testTelemetry().logger);
  const call = (event: ReturnType<typeof httpEvent>) => handler(event, lambdaContext());

  it('serves the page with its policy, and its files gzipped for a client that takes gzip', async () => {
    const page = await call(httpEvent('GET', '/inbox', { claims: null }));
    expect(page).toMatchObject({ statusCode: 200 });
    expect(page.headers?.['Content-Security-Policy']).toBe(PAGE_CSP);
    const validator = byPrefix('validator-');
    const zipped = await call(
      httpEvent('GET', `/inbox/${validator.name}`, { claims: null, headers: { 'accept-encoding': 'gzip' } }),
    );
    expect(zipped.headers?.['Content-Encoding']).toBe('gzip');
    expect(zipped.headers?.['Content-Security-Policy']).toBe(WORKER_CSP);
  });

  it('answers any other path with a 404 problem', async () => {
    const missing = await call(httpEvent('GET', '/pauses', { claims: null }));
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(String(missing.body))).toMatchObject({ code: 'not_found' });
  });
});

describe('inboxSettings', () => {
  it.each([
    [{}, {}, []],
    [{ HANDBACK_JWT_ISSUER: 'http://127.0.0.1:4000' }, {}, []],
    [
      { HANDBACK_JWT_ISSUER: 'http://127.0.0.1:4000', HANDBACK_OIDC_CLIENT_ID: 'inbox' },
      { issuer: 'http://127.0.0.1:4000', clientId: 'inbox', scopes: DEFAULT_SCOPES },
      ['http://127.0.0.1:4000'],
    ],
    [
      {
        HANDBACK_JWT_ISSUER: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc',
        HANDBACK_OIDC_CLIENT_ID: 'client',
        HANDBACK_OIDC_SCOPES: 'openid email handback/decide',
        HANDBACK_OIDC_ENDPOINT_ORIGINS: 'https://login.example.auth.eu-west-1.amazoncognito.com/',
      },
      {
        issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc',
        clientId: 'client',
        scopes: 'openid email handback/decide',
      },
      ['https://cognito-idp.eu-west-1.amazonaws.com', 'https://login.example.auth.eu-west-1.amazoncognito.com'],
    ],
  ])('reads %j as the config %j, calling %j', (env, config, origins) => {
    expect(inboxSettings(inboxSignIn(env))).toEqual({ config, connectOrigins: origins });
  });

  it('refuses an issuer that is not a URL, naming it', () => {
    expect(() => inboxSettings({ issuer: 'not a url', clientId: 'c' })).toThrow(/"not a url" is not a URL/);
  });

  it("adds only the issuer's origins to connect-src", () => {
    const csp = pageCsp(['https://idp.example.com']);
    expect(csp).toBe(PAGE_CSP.replace("connect-src 'self'", "connect-src 'self' https://idp.example.com"));
  });
});

describe('GET /inbox/config.json', () => {
  it('says there is no sign-in when no issuer is configured', async () => {
    const handler = createInboxHandler(testTelemetry().logger);
    const config = await handler(httpEvent('GET', '/inbox/config.json', { claims: null }), lambdaContext());
    expect(config).toMatchObject({ statusCode: 200, headers: { 'Content-Type': 'application/json' } });
    expect(JSON.parse(String(config.body))).toEqual({});
  });
});
