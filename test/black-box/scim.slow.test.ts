import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../functions/vocabulary.ts';
import { OKTA_DEACTIVATE, RFC7643_FULL_ENTERPRISE_USER, removeMember } from '../directory/scim-rfc-examples.ts';
import { type RunningService, request, startService, stopAll } from './service.ts';

/**
 * SCIM 2.0 provisioning (§20), black-box against the service `npm start` runs: the sequence an identity provider
 * makes — create, filter by userName, group create and membership, manager, deactivate, delete — over real HTTP with
 * the SCIM secret, and what it does to decisions at once: a person deactivated is 403 `unknown_person` on their next
 * vote. Every refused SCIM request changes nothing.
 */

const JWT_SECRET = 'a-jwt-secret-for-the-scim-black-box-test';
const SCIM_TOKEN = 'a-scim-secret-of-at-least-thirty-two-bytes';
const SCIM = { authorization: `Bearer ${SCIM_TOKEN}`, 'content-type': 'application/scim+json' };
const BOTH = `${SCOPES.agent} ${SCOPES.decide}`;

let service: RunningService;
let base: string;

beforeAll(async () => {
  service = await startService({
    HANDBACK_JWT_SECRET: JWT_SECRET,
    HANDBACK_SCIM_TOKEN: SCIM_TOKEN,
    HANDBACK_SCIM_TENANT: 'acme',
  });
  base = `${service.url}/scim/v2`;
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await stopAll();
});

const token = (claims: Record<string, unknown>) =>
  new SignJWT({ tenant: 'acme', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(JWT_SECRET));
const as = async (claims: Record<string, unknown>) => ({ authorization: `Bearer ${await token(claims)}` });
const AGENT = { sub: 'agent-1', client_id: 'agent', scope: SCOPES.agent };

let runs = 0;
/** A pause of one plain approval, by the agent. */
async function pause(): Promise<{ runId: string; interruptId: string }> {
  const runId = `scim-${Date.now()}-${++runs}`;
  const created = await request(
    `${service.url}/runs/${runId}/pauses`,
    'POST',
    {
      format: 'openai-chat',
      messages: [
        { role: 'user', content: 'Refund order-42.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_refund', type: 'function', function: { name: 'refund', arguments: '{}' } }],
        },
      ],
      asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
    },
    await as(AGENT),
  );
  expect(created.status).toBe(201);
  return { runId, interruptId: created.body.interruptId };
}

async function approve(claims: Record<string, unknown>, key: { runId: string; interruptId: string }) {
  return request(
    `${service.url}/runs/${key.runId}/resume`,
    'POST',
    { interruptId: key.interruptId, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] },
    await as(claims),
  );
}

async function pauseState(key: { runId: string; interruptId: string }) {
  return (
    await request(`${service.url}/runs/${key.runId}/pauses/${key.interruptId}`, 'GET', undefined, await as(AGENT))
  ).body;
}

const scim = (method: string, path: string, body?: unknown, headers: Record<string, string> = SCIM) =>
  request(`${base}${path}`, method, body, headers);

describe('SCIM provisioning against npm start (§20)', () => {
  it('refuses every request without the SCIM secret — none, another, a user’s token — as a SCIM Error, changing nothing', async () => {
    const userToken = await token({ sub: 'u-ann', scope: BOTH });
    for (const authorization of [undefined, 'Bearer not-the-scim-secret-but-long-enough-too', `Bearer ${userToken}`]) {
      const headers: Record<string, string> = {
        'content-type': 'application/scim+json',
        ...(authorization === undefined ? {} : { authorization }),
      };
      const refused = await scim('POST', '/Users', RFC7643_FULL_ENTERPRISE_USER, headers);
      expect(refused).toMatchObject({
        status: 401,
        body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' },
      });
      expect(refused.headers.get('content-type')).toBe('application/scim+json');
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await scim('GET', '/Users', undefined, headers)).status).toBe(401);
    }
    // Nothing was created; the control, with the secret, lists no one.
    const listed = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "bjensen@example.com"')}`);
    expect(listed).toMatchObject({ status: 200, body: { totalResults: 0 } });
  });

  it('runs an identity provider’s sequence, and a deactivation refuses that person’s next vote at once', async () => {
    // Create, as RFC 7643's example and a colleague.
    const created = await scim('POST', '/Users', RFC7643_FULL_ENTERPRISE_USER);
    expect(created).toMatchObject({ status: 201, body: { userName: 'bjensen@example.com', active: true } });
    expect(created.headers.get('content-type')).toBe('application/scim+json');
    const babs = created.body.id as string;
    const kim = (
      await scim('POST', '/Users', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: 'kim@example.com',
        externalId: 'u-kim',
        name: { givenName: 'Kim', familyName: 'Lee' },
        emails: [{ value: 'kim@example.com', type: 'work', primary: true }],
      })
    ).body.id as string;
    // The same userName again, any case: 409, nothing created.
    const again = await scim('POST', '/Users', { ...RFC7643_FULL_ENTERPRISE_USER, userName: 'BJensen@example.com' });
    expect(again).toMatchObject({ status: 409, body: { scimType: 'uniqueness' } });
    // Filter by userName, as an IdP does before it creates.
    const found = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "BJENSEN@example.com"')}`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id: babs }] });
    // A group, its members added and removed.
    const group = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Tour Guides',
      members: [{ value: babs }],
    });
    expect(group.status).toBe(201);
    const added = await scim('PATCH', `/Groups/${group.body.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'add', path: 'members', value: [{ value: kim }] }],
    });
    expect(added.body.members.map((member: { value: string }) => member.value).sort()).toEqual([babs, kim].sort());
    await scim('PATCH', `/Groups/${group.body.id}`, removeMember(kim));
    expect((await scim('GET', `/Users/${kim}`)).body.groups).toEqual([]);
    expect((await scim('GET', `/Users/${babs}`)).body.groups).toMatchObject([{ value: group.body.id }]);
    // The manager.
    const managed = await scim('PATCH', `/Users/${babs}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [
        {
          op: 'add',
          path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager',
          value: { value: kim },
        },
      ],
    });
    expect(managed.body['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User']).toMatchObject({
      manager: { value: kim },
    });

    // Babs (externalId 701984 is her issuer subject) decides while active: the control.
    const babsToken = { sub: '701984', scope: BOTH };
    expect((await approve(babsToken, await pause())).status).toBe(200);
    // Deactivated (Okta's form): her next vote is refused at once, and changes nothing.
    const key = await pause();
    expect((await scim('PATCH', `/Users/${babs}`, OKTA_DEACTIVATE)).body.active).toBe(false);
    const before = await pauseState(key);
    expect(await approve(babsToken, key)).toMatchObject({ status: 403, body: { code: 'unknown_person' } });
    expect(await pauseState(key)).toEqual(before);
    // Kim, active, may.
    expect((await approve({ sub: 'u-kim', scope: BOTH }, key)).status).toBe(200);

    // Deleted: gone from SCIM, and no longer a person.
    expect((await scim('DELETE', `/Users/${babs}`)).status).toBe(204);
    expect((await scim('GET', `/Users/${babs}`)).status).toBe(404);
    expect((await scim('GET', `/Groups/${group.body.id}`)).body.members).toEqual([]);
  });

  it('refuses a body that is not SCIM JSON, and a media type that is none, changing nothing', async () => {
    const bad = await scim('POST', '/Users', '{not json', SCIM);
    expect(bad).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    const media = await scim('POST', '/Users', RFC7643_FULL_ENTERPRISE_USER, { ...SCIM, 'content-type': 'text/plain' });
    expect(media).toMatchObject({ status: 415, body: { status: '415' } });
    const listed = await scim('GET', '/Users');
    expect(listed.body.Resources.map((user: { userName: string }) => user.userName)).toEqual(['kim@example.com']);
  });
});
