import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { approvalTranscript } from '../../functions/testing/index.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { request } from './service.ts';

/**
 * Who decides (§13), black-box over HTTP with HS256 bearer tokens: the local service (what `npm start` runs; its
 * start and its settings are `local-service.slow.test.ts`'s) on the test table. One case per door and principal:
 * approvers by subject, email and group through the API, who paused and decided on GET, an agent token that may not
 * decide, the pause's own link deciding as the pauser, a 2-of-3 quorum raced through the API, a veto, an edit that
 * resets the count and `already_voted` over HTTP, `mine=true`. The rules behind them are the service's spec suite
 * (`test/checkpoints/who-decides-spec.ts`, on memory and DynamoDB); four eyes and links at every door are
 * `one-person.store.test.ts`'s.
 */

const JWT_SECRET = 'a-jwt-secret-of-at-least-thirty-two-bytes';
const LINK_SECRET = 'a-local-answer-link-key-of-at-least-32-bytes';

const table = useTestTable();
let service: LocalService;
const tokens: Record<string, string> = {};

const sign = (claims: Record<string, unknown>) =>
  new SignJWT({ tenant: 'acme', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));

beforeAll(async () => {
  service = await startLocalService({
    PORT: '0',
    DYNAMODB_ENDPOINT: table.endpoint,
    TABLE_NAME: table.tableName,
    LOG_LEVEL: 'ERROR',
    HANDBACK_JWT_SECRET: JWT_SECRET,
    HANDBACK_LINK_SECRET: LINK_SECRET,
    // The agent names approvers by email (§16): inside the deployment's recipient domains.
    HANDBACK_RECIPIENT_DOMAINS: 'example.com',
  });
  // Their IdP vouches for their emails (§16: only a verified email matches approvers).
  const verified = { email_verified: true };
  tokens.ann = await sign({
    sub: 'u-ann',
    email: 'ann@example.com',
    ...verified,
    name: 'Ann',
    scope: 'handback/decide',
  });
  tokens.bob = await sign({ sub: 'u-bob', email: 'bob@example.com', ...verified, 'cognito:groups': ['finance'] });
  tokens.cyd = await sign({ sub: 'u-cyd', email: 'cyd@example.com', ...verified, 'cognito:groups': 'support ops' });
  tokens.agent = await sign({ sub: 'agent-1', scope: 'handback/agent' });
});
afterAll(() => service?.close());

const as = (who: string) => ({ authorization: `Bearer ${tokens[who]}` });

let runs = 0;
/** A pause of refund_order and send_email by `who`; the refund's ask gets `refund` on top of its kind. */
async function pause(who: string, refund: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const runId = `who-${++runs}`;
  const created = await request(
    `${service.url}/runs/${runId}/pauses`,
    'POST',
    {
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: [
        { toolCallId: 'call_refund', kind: 'approval', ...refund },
        { toolCallId: 'call_email', kind: 'approval' },
      ],
      ...extra,
    },
    as(who),
  );
  expect([created.status, created.body.code]).toEqual([201, undefined]);
  return { runId, interruptId: created.body.interruptId as string, created: created.body };
}

const decide = (who: string, key: { runId: string; interruptId: string }, decisions: unknown[]) =>
  request(`${service.url}/runs/${key.runId}/resume`, 'POST', { interruptId: key.interruptId, decisions }, as(who));
const approve = (toolCallId: string) => ({ toolCallId, decision: 'approve' });
const show = (who: string, key: { runId: string; interruptId: string }) =>
  request(`${service.url}/runs/${key.runId}/pauses/${key.interruptId}`, 'GET', undefined, as(who));

describe('the local service: who decides (§13)', () => {
  it('lets approvers named by subject, email or group decide, and refuses anyone else without recording anything', async () => {
    // Ann's token holds handback/decide alone: it cannot pause (§13), so the agent does.
    const key = await pause('agent', {
      approvers: { subjects: ['u-zed'], emails: ['ANN@example.com'], groups: ['finance'] },
    });
    const refused = await decide('cyd', key, [approve('call_email'), approve('call_refund')]);
    expect(refused).toMatchObject({ status: 403, body: { code: 'not_an_approver', toolCallId: 'call_refund' } });
    const seen = await show('cyd', key);
    expect(seen.body.decided).toEqual([]);
    expect(seen.body.asks.map((ask: { mayDecide: boolean }) => ask.mayDecide)).toEqual([false, true]);
    expect(await decide('bob', key, [approve('call_refund')])).toMatchObject({ status: 202 });
    const byEmail = await pause('bob', { approvers: { emails: ['ann@example.com'] } });
    expect(await decide('ann', byEmail, [approve('call_refund')])).toMatchObject({ status: 202 });
  });

  it('records who paused and who decided, with the groups they had then (§19), and shows them on GET', async () => {
    const key = await pause('bob');
    await decide('ann', key, [approve('call_refund')]);
    const seen = await show('bob', key);
    expect(seen.body.pausedBy).toEqual({
      kind: 'person',
      subject: 'u-bob',
      email: 'bob@example.com',
      emailVerified: true,
      via: 'api',
      groups: ['finance'],
    });
    expect(seen.body.asks[0].decision).toEqual({
      decision: 'approve',
      by: {
        kind: 'person',
        subject: 'u-ann',
        email: 'ann@example.com',
        emailVerified: true,
        name: 'Ann',
        via: 'api',
        groups: [],
      },
    });
  });

  it('never lets an agent token decide, gives it no answer link, and refuses it one', async () => {
    const key = await pause('agent');
    expect(key.created).not.toHaveProperty('answerUrl');
    expect(await decide('agent', key, [approve('call_email')])).toMatchObject({
      status: 403,
      body: { code: 'forbidden' },
    });
    const link = await request(
      `${service.url}/runs/${key.runId}/pauses/${key.interruptId}/links`,
      'POST',
      { email: 'ann@example.com' },
      as('agent'),
    );
    expect(link).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect((await show('ann', key)).body.decided).toEqual([]);
  });

  it('decides the pause’s own link as the pauser (§16), who is no approver of an ask that names others', async () => {
    const key = await pause('bob', { approvers: { emails: ['cyd@example.com'] } });
    // The 201's answerUrl is granted to Bob, who paused: it may do only what Bob may, and Bob is no approver.
    const own = String(key.created.answerUrl).split('#')[1] as string;
    const refused = await request(
      `${service.url}/links/resume`,
      'POST',
      { decisions: [approve('call_refund')] },
      { 'x-handback-link': own },
    );
    expect(refused).toMatchObject({ status: 403, body: { code: 'not_an_approver' } });
    expect((await show('cyd', key)).body.decided).toEqual([]);
    expect(await decide('cyd', key, [approve('call_refund')])).toMatchObject({ status: 202 });
  });

  // The race itself is the spec suite's, on DynamoDB; here, that the API answers it: 200, 202 or 409, one continuation.
  it('counts a 2-of-3 quorum with three people racing through the API, 10 rounds: two votes, one continuation', async () => {
    for (let round = 0; round < 10; round++) {
      const key = await pause('agent', { approvals: 2 });
      const answers = await Promise.all(['ann', 'bob', 'cyd'].map((who) => decide(who, key, [approve('call_refund')])));
      for (const answer of answers) expect([200, 202, 409]).toContain(answer.status);
      const seen = await show('ann', key);
      expect(seen.body.asks[0].votes).toHaveLength(2);
      expect(seen.body.asks[0].decision).toMatchObject({ decision: 'approve' });
      const continuations = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.continuationId));
      expect(continuations.size).toBeLessThanOrEqual(1);
    }
  });

  it('takes a veto after votes, resets the count on an edit, and refuses a second vote by the same person', async () => {
    const vetoed = await pause('agent', { approvals: 3 });
    expect(await decide('ann', vetoed, [approve('call_refund')])).toMatchObject({
      status: 202,
      body: { votes: { call_refund: { have: 1, need: 3 } } },
    });
    expect(await decide('ann', vetoed, [{ toolCallId: 'call_refund', decision: 'reject' }])).toMatchObject({
      status: 409,
      body: { code: 'already_voted' },
    });
    const veto = await decide('bob', vetoed, [{ toolCallId: 'call_refund', decision: 'reject', reason: 'No.' }]);
    expect(veto.status).toBe(202);
    expect((await show('ann', vetoed)).body.asks[0].decision).toMatchObject({ decision: 'reject', reason: 'No.' });

    const edited = await pause('agent', { approvals: 2 });
    await decide('ann', edited, [approve('call_refund')]);
    const args = { orderId: 'A-1042', amount: 60 };
    expect(await decide('bob', edited, [{ toolCallId: 'call_refund', decision: 'edit', args }])).toMatchObject({
      status: 202,
      body: { votes: { call_refund: { have: 1, need: 2 } } },
    });
    await decide('cyd', edited, [approve('call_refund')]);
    const seen = await show('ann', edited);
    expect(seen.body.asks[0].decision).toMatchObject({ decision: 'edit', args });
    expect(seen.body.asks[0].votes.map((vote: { by: { subject: string } }) => vote.by.subject)).toEqual([
      'u-ann',
      'u-bob',
      'u-cyd',
    ]);
  });

  it('lists with mine=true only the pauses waiting for the requester', async () => {
    const forCyd = await pause('agent', { approvers: { groups: ['ops'] } });
    const mine = await request(`${service.url}/pauses?status=paused&mine=true&limit=100`, 'GET', undefined, as('cyd'));
    expect(mine.status).toBe(200);
    const ids = mine.body.items.map((item: { interruptId: string }) => item.interruptId);
    expect(ids).toContain(forCyd.interruptId);
    await decide('cyd', forCyd, [approve('call_refund'), approve('call_email')]);
    const after = await request(`${service.url}/pauses?status=paused&mine=true&limit=100`, 'GET', undefined, as('cyd'));
    expect(after.body.items.map((item: { interruptId: string }) => item.interruptId)).not.toContain(forCyd.interruptId);
  });
});
