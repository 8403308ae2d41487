import { checkTranscript } from 'handback';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../examples/openai-agents.ts';

describe('examples/openai-agents.ts', () => {
  let result: Awaited<ReturnType<typeof main>>;
  beforeAll(async () => {
    result = await main();
  });

  it("runs refund_order once, with the lead's edited args, by the agent's own tool", () => {
    expect(result.continuation.dispatch).toEqual([
      { toolCallId: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 80 } },
    ]);
    expect(result.refunds).toEqual([{ orderId: 'A-1042', amount: 80 }]);
    expect(result.ran).toEqual([
      { toolCallId: 'call_refund', output: '{"refundId":"rf_1","orderId":"A-1042","amount":80}' },
    ]);
  });

  it('goes on with run(): the model reads the lookup, the answer and the refund, and ends the turn', () => {
    expect(result.text).toBe(
      'lookup_order: {"orderId":"A-1042","status":"delivered","total":120} | ask_human: yes | refund_order: {"refundId":"rf_1","orderId":"A-1042","amount":80}',
    );
  });

  it("keeps a continuation that passes Handback's strict check but for the refund it ran", () => {
    const rules = checkTranscript('openai-responses', result.continuation.messages).map((v) => v.rule);
    expect(rules).toEqual(['missing-result']);
  });

  it('prints a trace of the pause, the decisions and the run that went on', () => {
    expect(result.trace).toHaveLength(4);
    expect(result.trace[0]).toBe('paused ticket-1042: asks call_ask, call_refund (lookup_order already ran)');
  });
});
