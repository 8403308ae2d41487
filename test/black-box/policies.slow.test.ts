import { afterAll, describe, expect, it } from 'vitest';
import { request, startFailing, startService, stopAll } from './service.ts';

/**
 * `npm start` with a policy file (§17), black-box: a pause the policies decide whole is answered 200 with its
 * continuation and reads back resumed, with the policies' decisions on the audit trail; a file that does not parse
 * stops the service with the file, line and column and Cedar's words.
 */

afterAll(stopAll);

const POLICIES = {
  HANDBACK_POLICIES: 'test/fixtures/policies/policies.cedar',
  HANDBACK_POLICY_SCHEMA: 'test/fixtures/policies/args.cedarschema',
};

const round = (calls: Array<[string, string, unknown]>) => ({
  format: 'openai-chat',
  messages: [
    { role: 'user', content: 'Sort out my orders.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map(([id, name, args]) => ({
        id,
        type: 'function',
        function: { name, arguments: JSON.stringify(args) },
      })),
    },
  ],
  asks: calls.map(([toolCallId]) => ({ toolCallId, kind: 'approval' })),
});

describe('npm start with a policy file', () => {
  it('answers 200 for a pause the policies decide whole, and keeps their decisions on the audit trail', async () => {
    const service = await startService(POLICIES);
    const closed = await request(
      `${service.url}/runs/run-auto/pauses`,
      'POST',
      round([['call_1', 'refund_order', { orderId: 'A-1', amount: 20 }]]),
    );
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({
      status: 'resumed',
      dispatch: [{ toolCallId: 'call_1', name: 'refund_order' }],
    });
    const view = await request(`${service.url}/runs/run-auto/pauses/${closed.body.interruptId}`, 'GET');
    expect(view.body).toMatchObject({
      status: 'resumed',
      asks: [
        {
          decision: {
            decision: 'approve',
            by: { kind: 'service', subject: 'policy:refunds-up-to-100', via: 'policy' },
          },
          policy: { outcome: 'approve', policyIds: ['refunds-up-to-100'] },
        },
      ],
    });
    await service.stop();
  });

  it("refuses a file that does not parse: exit 1, the file, its line and column, and Cedar's words", async () => {
    const { code, output } = await startFailing({ ...POLICIES, HANDBACK_POLICIES: 'test/fixtures/policies/bad.cedar' });
    expect(code).toBe(1);
    expect(output.trim()).toContain(
      'test/fixtures/policies/bad.cedar:3:58: failed to parse policies from string: unexpected token `}`',
    );
  });
});
