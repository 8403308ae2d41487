import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalTranscript } from '../../functions/testing/service-spec.ts';
import { type RunningService, request, startService, stopAll } from '../black-box/service.ts';

/**
 * The link routes through `npm start` with bearer auth and answer links on: a link opens and decides its one pause
 * and no other (§11 amendment), a person makes a link for a recipient (§13), and an agent is never given one.
 */

const JWT_SECRET = 'links-test-jwt-secret-of-at-least-32-bytes';
const LINK_SECRET = 'links-test-link-secret-of-at-least-32-bytes';

let service: RunningService;
beforeAll(async () => {
  service = await startService({ HANDBACK_JWT_SECRET: JWT_SECRET, HANDBACK_LINK_SECRET: LINK_SECRET });
});
afterAll(stopAll);

async function bearer(claims: Record<string, unknown>): Promise<Record<string, string>> {
  const token = await new SignJWT({ tenant: 'acme', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  return { authorization: `Bearer ${token}` };
}

// A person who both pauses (an agent's scope) and decides, so one token can make the pauses these cases need (§13).
const person = () =>
  bearer({ sub: 'person-1', email: 'lead@example.com', scope: 'openid handback/agent handback/decide' });
const agent = () => bearer({ sub: 'agent-1', scope: 'handback/agent' });

let runSeq = 0;
async function pause(auth: Record<string, string>) {
  const runId = `links-${Date.now()}-${++runSeq}`;
  const created = await request(
    `${service.url}/runs/${runId}/pauses`,
    'POST',
    {
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: [{ toolCallId: 'call_ask', kind: 'answer', prompt: 'Full or partial?' }],
    },
    auth,
  );
  expect(created.status).toBe(201);
  return { runId, interruptId: created.body.interruptId as string, body: created.body };
}

const tokenOf = (url: unknown) => String(url).split('#')[1] as string;

async function shown(auth: Record<string, string>, p: { runId: string; interruptId: string }) {
  const got = await request(`${service.url}/runs/${p.runId}/pauses/${p.interruptId}`, 'GET', undefined, auth);
  return { status: got.body.status, decided: got.body.decided, pending: got.body.pending };
}

describe('a link request that names another pause', () => {
  it.each([
    [
      'the other pause’s interruptId in the body',
      (p5: { interruptId: string }) => ({ body: { interruptId: p5.interruptId } }),
    ],
    ['the other pause’s runId in the body', (p5: { runId: string }) => ({ body: { runId: p5.runId } })],
    [
      'the other pause’s interruptId in the query',
      (p5: { interruptId: string }) => ({ query: `?interruptId=${p5.interruptId}` }),
    ],
  ])('is 403 forbidden with %s, and neither pause changes', async (_, naming) => {
    const auth = await person();
    const p4 = await pause(auth);
    const p5 = await pause(auth);
    const token = tokenOf(p4.body.answerUrl);
    const { body = {}, query = '' } = naming(p5) as { body?: Record<string, unknown>; query?: string };
    const refused = await request(
      `${service.url}/links/resume${query}`,
      'POST',
      { answer: 'full', ...body },
      { 'x-handback-link': token },
    );
    expect(refused).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    const waiting = { status: 'paused', decided: [], pending: ['call_ask'] };
    expect(await shown(auth, p4)).toEqual(waiting);
    expect(await shown(auth, p5)).toEqual(waiting);
  });

  it('is 403 forbidden on GET /links/pause too, and its own ids pass', async () => {
    const auth = await person();
    const p4 = await pause(auth);
    const p5 = await pause(auth);
    const link = { 'x-handback-link': tokenOf(p4.body.answerUrl) };
    const other = await request(`${service.url}/links/pause?runId=${p5.runId}`, 'GET', undefined, link);
    expect(other).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    const own = await request(`${service.url}/links/pause?runId=${p4.runId}`, 'GET', undefined, link);
    expect(own).toMatchObject({ status: 200, body: { interruptId: p4.interruptId } });
    const decided = await request(
      `${service.url}/links/resume`,
      'POST',
      { interruptId: p4.interruptId, answer: 'full' },
      link,
    );
    expect(decided).toMatchObject({ status: 200, body: { interruptId: p4.interruptId, outcome: 'resumed' } });
    expect((await shown(auth, p5)).status).toBe('paused');
  });
});

describe('a link for a recipient', () => {
  it('is made by a person for an email, opens the pause, and decides it', async () => {
    const auth = await person();
    const p = await pause(auth);
    const made = await request(
      `${service.url}/runs/${p.runId}/pauses/${p.interruptId}/links`,
      'POST',
      { email: 'Ada@Example.com', name: 'Ada' },
      auth,
    );
    expect(made).toMatchObject({
      status: 201,
      body: { answerUrl: expect.stringMatching(/\/inbox#/), recipient: { email: 'Ada@Example.com', name: 'Ada' } },
    });
    expect(made.headers.get('cache-control')).toBe('no-store');
    const link = { 'x-handback-link': tokenOf(made.body.answerUrl) };
    expect(await request(`${service.url}/links/pause`, 'GET', undefined, link)).toMatchObject({
      status: 200,
      body: { interruptId: p.interruptId },
    });
    const decided = await request(`${service.url}/links/resume`, 'POST', { answer: 'partial' }, link);
    expect(decided).toMatchObject({ status: 200, body: { outcome: 'resumed' } });
  });

  it.each([
    ['no email', {}],
    ['an email that is no address', { email: 'not an address' }],
    ['an email over 256 characters', { email: `${'a'.repeat(250)}@example.com` }],
    ['a name over 256 characters', { email: 'ada@example.com', name: 'n'.repeat(257) }],
    ['an empty name', { email: 'ada@example.com', name: '' }],
  ])('is 400 bad_request with %s', async (_, body) => {
    const auth = await person();
    const p = await pause(auth);
    const refused = await request(`${service.url}/runs/${p.runId}/pauses/${p.interruptId}/links`, 'POST', body, auth);
    expect(refused).toMatchObject({ status: 400, body: { code: 'bad_request' } });
  });

  it('is 404 for a pause of another tenant', async () => {
    const p = await pause(await person());
    const globex = await bearer({ tenant: 'globex', sub: 'someone' });
    const refused = await request(
      `${service.url}/runs/${p.runId}/pauses/${p.interruptId}/links`,
      'POST',
      { email: 'ada@example.com' },
      globex,
    );
    expect(refused).toMatchObject({ status: 404, body: { code: 'pause_not_found' } });
  });
});

describe('an agent', () => {
  it('is given no answer link with its pause, and cannot make one (403 forbidden)', async () => {
    const auth = await agent();
    const p = await pause(auth);
    expect(p.body).not.toHaveProperty('answerUrl');
    const refused = await request(
      `${service.url}/runs/${p.runId}/pauses/${p.interruptId}/links`,
      'POST',
      { email: 'ada@example.com' },
      auth,
    );
    expect(refused).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    // A person's pause still carries its own link, and so does one whose scopes also open deciding.
    expect((await pause(await person())).body.answerUrl).toMatch(/\/inbox#/);
    const both = await bearer({ sub: 'both', scope: 'handback/agent handback/decide' });
    expect((await pause(both)).body.answerUrl).toMatch(/\/inbox#/);
  });
});
