import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { policyTranscript } from '../../functions/testing/index.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { request } from './service.ts';

/**
 * Issue 37's edits, black-box over HTTP (§19): the local service (what `npm start` runs) with a policy file, HS256
 * bearer tokens carrying groups, on the test table. An edit past a forbid, an edit by someone in no group to an
 * amount only finance may approve, an edit the policies cannot judge — each refused through the API and through an
 * answer link beside its control, each refused attempt read back unchanged; and `GET /policies`. The rules behind them
 * are `policyEditSpec`'s (on memory and DynamoDB).
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
    HANDBACK_RECIPIENT_DOMAINS: 'example.com',
    HANDBACK_POLICIES: 'test/fixtures/policies/edits.cedar',
    HANDBACK_POLICY_SCHEMA: 'test/fixtures/policies/edits.cedarschema',
    HANDBACK_POLICY_VERSION: 'refunds-7',
  });
  const finance = { 'cognito:groups': ['finance'], scope: 'handback/decide' };
  tokens.ann = await sign({ sub: 'u-ann', ...finance });
  tokens.bob = await sign({ sub: 'u-bob', ...finance });
  tokens.sue = await sign({ sub: 'u-sue', 'cognito:groups': ['support'], scope: 'handback/decide' });
  tokens.dan = await sign({ sub: 'u-dan', scope: 'handback/decide' });
  tokens.agent = await sign({ sub: 'refund-bot', scope: 'handback/agent' });
});
afterAll(() => service?.close());

const as = (who: string) => ({ authorization: `Bearer ${tokens[who]}` });

interface Key {
  runId: string;
  interruptId: string;
}

let runs = 0;
/** A refund of `args`, paused by the agent. */
async function pause(args: Record<string, unknown>): Promise<Key> {
  const runId = `edits-${++runs}`;
  const created = await request(
    `${service.url}/runs/${runId}/pauses`,
    'POST',
    {
      format: 'openai-chat',
      messages: policyTranscript([['call_1', 'refund_order', args]]),
      asks: [{ toolCallId: 'call_1', kind: 'approval' }],
    },
    as('agent'),
  );
  expect([created.status, created.body.code]).toEqual([201, undefined]);
  return { runId, interruptId: created.body.interruptId };
}

const edit = (args: object) => ({ toolCallId: 'call_1', decision: 'edit', args });
const approve = { toolCallId: 'call_1', decision: 'approve' };
const decide = (who: string, key: Key, decision: object) =>
  request(
    `${service.url}/runs/${key.runId}/resume`,
    'POST',
    { interruptId: key.interruptId, decisions: [decision] },
    as(who),
  );
// biome-ignore lint/suspicious/noExplicitAny: views are read as loose JSON in the tests
const read = async (key: Key): Promise<any> =>
  (await request(`${service.url}/runs/${key.runId}/pauses/${key.interruptId}`, 'GET', undefined, as('ann'))).body;
/** What a refused edit must leave as it was. */
const state = async (key: Key) => {
  const { status, decided, asks } = await read(key);
  const [ask] = asks;
  return { status, decided, args: ask.args, votes: ask.votes, tally: ask.tally, policyNow: ask.policyNow };
};

describe('npm start with a policy file: edits judged (§19)', () => {
  it('refuses an edit past a forbid with 403 policy_forbids naming the policy and its reason; the control is a vote', async () => {
    const key = await pause({ orderId: 'A-1', amount: 500 });
    const before = await state(key);
    for (const amount of [40_000, 900_000]) {
      const refused = await decide('ann', key, edit({ orderId: 'A-1', amount }));
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        code: 'policy_forbids',
        toolCallId: 'call_1',
        policyIds: ['never-over-10000'],
      });
      expect(refused.body.detail).toContain('Refunds over 10,000 go through the bank');
    }
    expect(await state(key)).toEqual(before);
    // The control: within the policies, the edit is the first of the two finance votes it needs.
    const voted = await decide('ann', key, edit({ orderId: 'A-1', amount: 900 }));
    expect(voted).toMatchObject({ status: 202, body: { votes: { call_1: { have: 1, need: 2 } } } });
    const closed = await decide('bob', key, approve);
    expect(closed).toMatchObject({
      status: 200,
      body: { dispatch: [{ toolCallId: 'call_1', args: { orderId: 'A-1', amount: 900 } }] },
    });
    const [ask] = (await read(key)).asks;
    expect(ask.votes[0]).toMatchObject({
      decision: 'edit',
      by: { subject: 'u-ann', groups: ['finance'] },
      policy: { outcome: 'ask', policyIds: ['finance-over-100'], version: 'refunds-7' },
    });
  });

  it('refuses an editor in no group an amount only finance may approve (403 not_an_approver); finance takes two votes', async () => {
    // No amount: no policy applies, anyone may decide it.
    const key = await pause({ orderId: 'A-2' });
    expect((await read(key)).asks[0]).toMatchObject({ policy: { outcome: 'ask', basis: 'default' }, mayDecide: true });
    const before = await state(key);
    for (const who of ['dan', 'sue']) {
      const refused = await decide(who, key, edit({ orderId: 'A-2', amount: 5000 }));
      expect(refused).toMatchObject({ status: 403, body: { code: 'not_an_approver', toolCallId: 'call_1' } });
    }
    expect(await state(key)).toEqual(before);
    // The control: a finance person's edit raises the need to two of finance, and the tally says so.
    expect(await decide('ann', key, edit({ orderId: 'A-2', amount: 5000 }))).toMatchObject({ status: 202 });
    expect((await read(key)).asks[0]).toMatchObject({
      approvers: { groups: ['finance'] },
      tally: { have: 1, need: 2 },
      policy: { outcome: 'ask', basis: 'default' },
      policyNow: { outcome: 'ask', policyIds: ['finance-over-100'], version: 'refunds-7' },
    });
    // Dan could have approved the call as asked; not any more.
    expect(await decide('dan', key, approve)).toMatchObject({ status: 403, body: { code: 'not_an_approver' } });
    expect(await decide('bob', key, approve)).toMatchObject({
      status: 200,
      body: { dispatch: [{ args: { orderId: 'A-2', amount: 5000 } }] },
    });
  });

  it("refuses arguments the policies cannot judge with 422 policy_error in Cedar's words; the control is judged", async () => {
    const key = await pause({ orderId: 'A-3', amount: 500 });
    const before = await state(key);
    const refused = await decide('ann', key, edit({ orderId: 'A-3', amount: 12.5 }));
    expect(refused).toMatchObject({ status: 422, body: { code: 'policy_error', toolCallId: 'call_1' } });
    expect(refused.body.detail).toContain('does not fit a Long');
    const tags = Array.from({ length: 1001 }, (_, i) => `t${i}`);
    const past = await decide('ann', key, edit({ orderId: 'A-3', amount: 500, tags }));
    expect(past).toMatchObject({ status: 422, body: { code: 'policy_error' } });
    expect(past.body.detail).toContain('1000');
    expect(await state(key)).toEqual(before);
    expect(await decide('ann', key, edit({ orderId: 'A-3', amount: 500, tags: tags.slice(1) }))).toMatchObject({
      status: 202,
    });
  });

  it('judges an edit through an answer link as through the API', async () => {
    const key = await pause({ orderId: 'A-4', amount: 500 });
    const granted = await request(
      `${service.url}/runs/${key.runId}/pauses/${key.interruptId}/links`,
      'POST',
      { email: 'clerk@example.com' },
      as('ann'),
    );
    expect(granted.status).toBe(201);
    const token = String(granted.body.answerUrl).slice(String(granted.body.answerUrl).indexOf('#') + 1);
    const throughLink = (decision: object) =>
      request(`${service.url}/links/resume`, 'POST', { decisions: [decision] }, { 'x-handback-link': token });
    const before = await state(key);
    expect(await throughLink(edit({ orderId: 'A-4', amount: 40_000 }))).toMatchObject({
      status: 403,
      body: { code: 'policy_forbids', policyIds: ['never-over-10000'] },
    });
    expect(await state(key)).toEqual(before);
    expect(await throughLink(edit({ orderId: 'A-4', amount: 700 }))).toMatchObject({
      status: 202,
      body: { votes: { call_1: { have: 1, need: 2 } } },
    });
    expect((await read(key)).asks[0].votes[0]).toMatchObject({
      by: { subject: 'u-ann', via: 'link', groups: ['finance'] },
      policy: { outcome: 'ask', version: 'refunds-7' },
    });
  });
});

describe('GET /policies (§19)', () => {
  it('shows anyone who may decide the set in force: version, mode, default, time zone and each policy', async () => {
    const shown = await request(`${service.url}/policies`, 'GET', undefined, as('dan'));
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(shown.body).toMatchObject({ version: 'refunds-7', mode: 'enforce', default: 'ask', timeZone: 'UTC' });
    expect(shown.body.policies.map((policy: { id: string }) => policy.id)).toEqual([
      'finance-over-100',
      'never-over-10000',
      'no-deletes',
    ]);
    expect(shown.body.policies[1]).toMatchObject({
      effect: 'forbid',
      annotations: { id: 'never-over-10000', reason: 'Refunds over 10,000 go through the bank' },
      text: expect.stringContaining('context.args.amount > 10000'),
    });
  });

  it('refuses an agent (403) and a request without a token (401)', async () => {
    expect(await request(`${service.url}/policies`, 'GET', undefined, as('agent'))).toMatchObject({
      status: 403,
      body: { code: 'forbidden', scope: 'handback/decide' },
    });
    expect(await request(`${service.url}/policies`, 'GET')).toMatchObject({ status: 401 });
  });
});
