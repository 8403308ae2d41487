import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { SCOPES } from '../../functions/vocabulary.ts';
import { pauseBody } from '../handlers/events.ts';
import { freePort, request } from './service.ts';

/**
 * The local service checking tokens of a real OIDC issuer (oidc-provider, on a free port) as API Gateway's JWT
 * authorizer does: its keys found through discovery and the JWKS, RSA only, iss, aud or client_id, exp, nbf; and the
 * route table's scopes on top (§13).
 */

const AUDIENCE = 'handback-api';
let issuer: string;
let closeIssuer: () => Promise<void>;
type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let rsa: PrivateKey;
let ec: PrivateKey;
let service: LocalService;
let strict: LocalService;

beforeAll(async () => {
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  const rsaPair = await generateKeyPair('RS256', { extractable: true });
  const ecPair = await generateKeyPair('ES256', { extractable: true });
  rsa = rsaPair.privateKey;
  ec = ecPair.privateKey;
  const keys: JWK[] = [
    { ...(await exportJWK(rsaPair.privateKey)), kid: 'rsa', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(ecPair.privateKey)), kid: 'ec', alg: 'ES256', use: 'sig' },
  ];
  const provider = new Provider(issuer, {
    jwks: { keys },
    clients: [
      {
        client_id: 'agent',
        client_secret: 'agent-secret',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
    features: { clientCredentials: { enabled: true } },
  });
  const server = provider.listen(port);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  closeIssuer = () => new Promise((resolve) => server.close(() => resolve()));
  const env = {
    PORT: '0',
    LOG_LEVEL: 'ERROR',
    HANDBACK_SWEEP_INTERVAL_MS: '60000',
    HANDBACK_JWT_ISSUER: issuer,
    HANDBACK_JWT_AUDIENCE: `other-api, ${AUDIENCE}`,
  };
  service = await startLocalService(env);
  strict = await startLocalService({ ...env, HANDBACK_REQUIRE_SCOPES: 'true' });
}, 60_000);

afterAll(async () => {
  await service?.close();
  await strict?.close();
  await closeIssuer?.();
});

const now = () => Math.floor(Date.now() / 1000);

/** A token signed with one of the issuer's own keys. */
function token(claims: Record<string, unknown>, options: { key?: 'rsa' | 'ec'; alg?: string; header?: object } = {}) {
  const key = options.key ?? 'rsa';
  return new SignJWT({ iss: issuer, aud: AUDIENCE, tenant: 'acme', iat: now(), exp: now() + 300, ...claims })
    .setProtectedHeader({ alg: options.alg ?? (key === 'rsa' ? 'RS256' : 'ES256'), kid: key, ...options.header })
    .sign(key === 'rsa' ? rsa : ec);
}
const bearer = async (value: string | Promise<string>) => ({ authorization: `Bearer ${await value}` });
const agent = () => bearer(token({ sub: 'agent', client_id: 'agent', scope: SCOPES.agent }));
const person = () => bearer(token({ sub: 'person-1', email: 'ana@example.com', scope: `openid ${SCOPES.decide}` }));

let runSeq = 0;
async function pause(url: string, headers: Record<string, string>) {
  const runId = `jwks.${Date.now()}.${++runSeq}`;
  const created = await request(`${url}/runs/${runId}/pauses`, 'POST', pauseBody(), headers);
  expect(created.status).toBe(201);
  return { runId, interruptId: created.body.interruptId as string };
}

describe('the local service with HANDBACK_JWT_ISSUER', () => {
  it("serves the issuer's discovery document the service reads", async () => {
    const discovery = await request(`${issuer}/.well-known/openid-configuration`, 'GET');
    expect(discovery.body).toMatchObject({ issuer, jwks_uri: expect.any(String) });
  });

  it('lets an agent token pause, read and cancel, and refuses it 403 forbidden on every decide route', async () => {
    const headers = await agent();
    const { runId, interruptId } = await pause(service.url, headers);
    const path = `${service.url}/runs/${runId}/pauses/${interruptId}`;
    const before = await request(path, 'GET', undefined, headers);
    expect(before.status).toBe(200);
    for (const [method, url, body] of [
      ['POST', `${service.url}/runs/${runId}/resume`, { interruptId, answer: 'yes' }],
      ['GET', `${service.url}/pauses`, undefined],
      ['POST', `${path}/links`, { email: 'ana@example.com' }],
    ] as const) {
      expect(await request(url, method, body, headers)).toMatchObject({
        status: 403,
        body: { code: 'forbidden', scope: SCOPES.decide },
      });
    }
    expect((await request(path, 'GET', undefined, headers)).body).toEqual(before.body);
    expect(await request(`${path}/cancel`, 'POST', {}, headers)).toMatchObject({ status: 200 });
  });

  it('lets a person token list and resume', async () => {
    const { runId, interruptId } = await pause(service.url, await agent());
    const headers = await person();
    expect((await request(`${service.url}/pauses`, 'GET', undefined, headers)).status).toBe(200);
    const resumed = await request(
      `${service.url}/runs/${runId}/resume`,
      'POST',
      { interruptId, answer: 'yes' },
      headers,
    );
    expect(resumed.status).toBe(200);
  });

  it.each([
    [
      'alg none',
      async () =>
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: 'x', aud: AUDIENCE, tenant: 'acme', sub: 's', exp: now() + 300 })).toString('base64url')}.`,
      /signed none/,
    ],
    [
      'HS256',
      () =>
        new SignJWT({ iss: issuer, aud: AUDIENCE, tenant: 'acme', sub: 's' })
          .setProtectedHeader({ alg: 'HS256' })
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode('a-secret-that-is-long-enough-for-hs256')),
      /signed HS256/,
    ],
    ["ES256 by the issuer's own key", () => token({ sub: 's' }, { key: 'ec' }), /signed ES256/],
    ['expired', () => token({ sub: 's', iat: now() - 600, exp: now() - 300 }), /expired/],
    ['for another audience', () => token({ sub: 's', aud: 'someone-else' }), /another audience/],
    ['from another issuer', () => token({ sub: 's', iss: 'https://evil.example.net' }), /another issuer/],
    ['not valid yet (nbf)', () => token({ sub: 's', nbf: now() + 600 }), /not valid yet/],
  ])('refuses a token %s with 401 and changes nothing', async (_name, make, reason) => {
    const { runId, interruptId } = await pause(service.url, await agent());
    const path = `${service.url}/runs/${runId}/pauses/${interruptId}`;
    const before = await request(path, 'GET', undefined, await agent());
    const bad = await bearer(make());
    for (const [method, url, body] of [
      ['POST', `${service.url}/runs/${runId}/resume`, { interruptId, answer: 'yes' }],
      ['POST', `${path}/cancel`, {}],
      ['GET', path, undefined],
    ] as const) {
      const response = await request(url, method, body, bad);
      expect(response).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
      expect(response.body.detail).toMatch(reason);
    }
    expect((await request(path, 'GET', undefined, await agent())).body).toEqual(before.body);
  });

  it('takes a token whose client_id, not aud, is an audience', async () => {
    const headers = await bearer(token({ sub: 'agent', aud: undefined, client_id: AUDIENCE, scope: SCOPES.agent }));
    await pause(service.url, headers);
  });
});

describe('the local service with HANDBACK_REQUIRE_SCOPES=true', () => {
  it('refuses a person token pause creation, and an unscoped token every bearer route', async () => {
    const refused = await request(`${strict.url}/runs/r-strict/pauses`, 'POST', pauseBody(), await person());
    expect(refused).toMatchObject({ status: 403, body: { code: 'forbidden', scope: SCOPES.agent } });
    const unscoped = await bearer(token({ sub: 'person-2' }));
    expect(await request(`${strict.url}/pauses`, 'GET', undefined, unscoped)).toMatchObject({
      status: 403,
      body: { code: 'forbidden' },
    });
    await pause(strict.url, await agent());
  });
});
