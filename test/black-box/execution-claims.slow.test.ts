import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startService, stopAll } from './service.ts';

/**
 * The execution claim (§19) against `npm start`, black-box: calls approved before a restart, claimed after it with a
 * policy file that now forbids one of them — the forbidden one refused (403 `policy_forbids`, recorded on its ask and
 * answered again), the other claimed once (the control), its second claim 409.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handback-data-'));
});
afterAll(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

const CALLS: Array<[string, string, unknown]> = [
  ['call_delete', 'delete_customer', { customerId: 'C-1' }],
  ['call_refund', 'refund_order', { orderId: 'A-1', amount: 20 }],
];

describe('an execution claimed after a restart with a forbidding policy file', () => {
  it('is refused and recorded, and answered so again; the call no policy forbids is claimed once', async () => {
    const first = await startService({ HANDBACK_DATA_DIR: dir });
    const runId = 'run-claim-after-restart';
    const paused = await request(`${first.url}/runs/${runId}/pauses`, 'POST', {
      format: 'openai-chat',
      messages: [
        { role: 'user', content: 'Close the account and refund the last order.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: CALLS.map(([id, name, args]) => ({
            id,
            type: 'function',
            function: { name, arguments: JSON.stringify(args) },
          })),
        },
      ],
      asks: CALLS.map(([toolCallId]) => ({ toolCallId, kind: 'approval' })),
    });
    expect(paused.status).toBe(201);
    const resumed = await request(`${first.url}/runs/${runId}/resume`, 'POST', {
      interruptId: paused.body.interruptId,
      decisions: CALLS.map(([toolCallId]) => ({ toolCallId, decision: 'approve' })),
    });
    expect(resumed.status).toBe(200);
    const { continuationId } = resumed.body;
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = await startService({
      HANDBACK_DATA_DIR: dir,
      HANDBACK_POLICIES: 'test/fixtures/policies/freeze-deletes.cedar',
    });
    const pauseUrl = `${second.url}/runs/${runId}/pauses/${paused.body.interruptId}`;
    const claimUrl = `${second.url}/runs/${runId}/continuations/${continuationId}/executions`;
    const before = await request(pauseUrl, 'GET');
    expect(before.body.asks.map((ask: { execution?: unknown }) => ask.execution)).toEqual([
      expect.objectContaining({ status: 'waiting' }),
      expect.objectContaining({ status: 'waiting' }),
    ]);

    const refused = await request(claimUrl, 'POST', { toolCallId: 'call_delete' });
    expect(refused).toMatchObject({
      status: 403,
      body: { code: 'policy_forbids', policyIds: ['freeze-deletes'], reason: 'Deletes are frozen during the audit' },
    });
    const recorded = await request(pauseUrl, 'GET');
    expect(recorded.body.asks[0].execution).toMatchObject({ status: 'refused', code: 'policy_forbids' });
    expect(recorded.body.asks[1]).toEqual(before.body.asks[1]);
    const again = await request(claimUrl, 'POST', { toolCallId: 'call_delete' });
    expect(again).toMatchObject({ status: 403, body: { code: 'policy_forbids' } });
    expect((await request(pauseUrl, 'GET')).body).toEqual(recorded.body);

    // The control: the refund no policy forbids is claimed, once.
    const claimed = await request(claimUrl, 'POST', { toolCallId: 'call_refund' });
    expect(claimed).toMatchObject({
      status: 200,
      body: {
        toolCallId: 'call_refund',
        name: 'refund_order',
        args: { orderId: 'A-1', amount: 20 },
        argsHash: expect.any(String),
        claimedAt: expect.any(String),
      },
    });
    const later = await request(claimUrl, 'POST', { toolCallId: 'call_refund' });
    expect(later).toMatchObject({
      status: 409,
      body: { code: 'already_claimed', claimedAt: claimed.body.claimedAt },
    });
    expect((await request(pauseUrl, 'GET')).body.asks[1].execution).toMatchObject({ status: 'claimed' });
    expect(await second.stop('SIGTERM')).toBe(0);
  });
});
