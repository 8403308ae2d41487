import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../functions/cli/policies.ts';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { policyTranscript } from '../../functions/testing/index.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { request } from './service.ts';

/**
 * `GET /policies/shadow` (§19), black-box over HTTP: the local service (what `npm start` runs) with a policy file in
 * shadow mode, on the test table. People decide refunds as they see fit; the listing says, per ask and per policy,
 * what the policies would have done and whether people did the same. Each refusal beside its control.
 */

const JWT_SECRET = 'a-jwt-secret-of-at-least-thirty-two-bytes';
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
    HANDBACK_POLICIES: 'test/fixtures/policies/policies.cedar',
    HANDBACK_POLICY_SCHEMA: 'test/fixtures/policies/args.cedarschema',
    HANDBACK_POLICY_MODE: 'shadow',
  });
  tokens.ann = await sign({ sub: 'u-ann', 'cognito:groups': ['finance'], scope: 'handback/decide' });
  tokens.agent = await sign({ sub: 'refund-bot', scope: 'handback/agent' });
});
afterAll(() => service?.close());

const as = (who: string) => ({ authorization: `Bearer ${tokens[who]}` });

/** Pauses one call by the agent; its key. */
async function pause(runId: string, tool: string, args: object) {
  const created = await request(
    `${service.url}/runs/${runId}/pauses`,
    'POST',
    {
      format: 'openai-chat',
      messages: policyTranscript([['call_1', tool, args]]),
      asks: [{ toolCallId: 'call_1', kind: 'approval' }],
    },
    as('agent'),
  );
  expect([created.status, created.body.code]).toEqual([201, undefined]);
  return { runId, interruptId: created.body.interruptId as string };
}
const decide = (key: { runId: string; interruptId: string }, decision: object) =>
  request(
    `${service.url}/runs/${key.runId}/resume`,
    'POST',
    { interruptId: key.interruptId, decisions: [{ toolCallId: 'call_1', ...decision }] },
    as('ann'),
  );

describe('GET /policies/shadow', () => {
  it('lists what shadow mode would have decided beside what people did, per ask and per policy', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    // Would approve (refunds-up-to-100); a person approves: they agree.
    await decide(await pause('shadow-1', 'refund_order', { orderId: 'A-1', amount: 20 }), { decision: 'approve' });
    // Would approve; a person rejects: they disagree.
    await decide(await pause('shadow-2', 'refund_order', { orderId: 'A-2', amount: 30 }), {
      decision: 'reject',
      reason: 'Fraud.',
    });
    // Would reject (no-agent-deletes); a person approves: they disagree.
    await decide(await pause('shadow-3', 'delete_customer', {}), { decision: 'approve' });
    // Would ask finance; still waiting: nothing to compare.
    await pause('shadow-4', 'refund_order', { orderId: 'A-4', amount: 500 });

    const listed = await request(`${service.url}/policies/shadow?since=${since}`, 'GET', undefined, as('ann'));
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(listed.body.since).toBe(since);
    expect(listed.body.cursor).toBeUndefined();
    expect(
      listed.body.items.map((item: { runId: string; people: string; agreed: boolean | null; would: object }) => [
        item.runId,
        item.would,
        item.people,
        item.agreed,
      ]),
    ).toEqual([
      ['shadow-4', expect.objectContaining({ outcome: 'ask', policyIds: ['finance-over-100'] }), 'waiting', null],
      ['shadow-3', expect.objectContaining({ outcome: 'reject', policyIds: ['no-agent-deletes'] }), 'approved', false],
      ['shadow-2', expect.objectContaining({ outcome: 'approve', shadow: true }), 'rejected', false],
      ['shadow-1', expect.objectContaining({ outcome: 'approve', shadow: true }), 'approved', true],
    ]);
    expect(listed.body.policies).toEqual([
      {
        policyId: 'finance-over-100',
        asks: 1,
        agreed: 0,
        disagreed: 0,
        would: { ask: 1 },
        people: { waiting: 1 },
      },
      {
        policyId: 'no-agent-deletes',
        asks: 1,
        agreed: 0,
        disagreed: 1,
        would: { reject: 1 },
        people: { approved: 1 },
      },
      {
        policyId: 'refunds-up-to-100',
        asks: 2,
        agreed: 1,
        disagreed: 1,
        would: { approve: 2 },
        people: { rejected: 1, approved: 1 },
      },
    ]);
  });

  it('pages through the listing with a cursor, and leaves out pauses before since', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    await pause('shadow-page-1', 'refund_order', { orderId: 'P-1', amount: 10 });
    await pause('shadow-page-2', 'refund_order', { orderId: 'P-2', amount: 10 });
    const first = await request(`${service.url}/policies/shadow?since=${since}&limit=1`, 'GET', undefined, as('ann'));
    expect(first.body.items.map((item: { runId: string }) => item.runId)).toEqual(['shadow-page-2']);
    expect(first.body.cursor).toEqual(expect.any(String));
    const second = await request(
      `${service.url}/policies/shadow?since=${since}&limit=1&cursor=${encodeURIComponent(first.body.cursor)}`,
      'GET',
      undefined,
      as('ann'),
    );
    expect(second.body.items.map((item: { runId: string }) => item.runId)).toEqual(['shadow-page-1']);
    const future = new Date(Date.now() + 60_000).toISOString();
    const none = await request(`${service.url}/policies/shadow?since=${future}`, 'GET', undefined, as('ann'));
    expect(none.body).toEqual({ since: future, policies: [], items: [] });
  });

  it('refuses a query without a since, or with one that is no date (400), and an agent (403)', async () => {
    expect(await request(`${service.url}/policies/shadow`, 'GET', undefined, as('ann'))).toMatchObject({
      status: 400,
      body: { code: 'bad_request' },
    });
    expect(await request(`${service.url}/policies/shadow?since=yesterday`, 'GET', undefined, as('ann'))).toMatchObject({
      status: 400,
      body: { code: 'bad_request' },
    });
    expect(
      await request(`${service.url}/policies/shadow?since=2026-01-01T00:00:00Z`, 'GET', undefined, as('agent')),
    ).toMatchObject({ status: 403, body: { code: 'forbidden', scope: 'handback/decide' } });
  });

  it('is what handback policies shadow --url prints, per policy over every page; a refused token exits 1', async () => {
    // Only this test's pauses: the listing's since is when it starts.
    const since = new Date().toISOString();
    await decide(await pause('shadow-cli-1', 'refund_order', { orderId: 'C-1', amount: 5 }), { decision: 'approve' });
    await pause('shadow-cli-2', 'delete_customer', {});
    const printed: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => printed.push(String(chunk)) > 0);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => printed.push(String(chunk)) > 0);
    try {
      vi.stubEnv('HANDBACK_TOKEN', tokens.ann);
      expect(await run(['shadow', '--url', service.url, '--since', since])).toBe(0);
      expect(printed.join('')).toBe(
        [
          `Shadow mode since ${since}: 2 asks`,
          'no-agent-deletes: 1 asks, 0 agreed, 0 disagreed; would reject 1; people waiting 1',
          'refunds-up-to-100: 1 asks, 1 agreed, 0 disagreed; would approve 1; people approved 1',
          '',
        ].join('\n'),
      );
      printed.length = 0;
      vi.stubEnv('HANDBACK_TOKEN', tokens.agent);
      expect(await run(['shadow', '--url', service.url, '--since', since])).toBe(1);
      expect(printed.join('')).toContain('answered 403');
    } finally {
      out.mockRestore();
      err.mockRestore();
      vi.unstubAllEnvs();
    }
  });
});
