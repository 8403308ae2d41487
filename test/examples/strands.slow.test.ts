import { checkTranscript } from 'handback';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../examples/strands.ts';

describe('examples/strands.ts', () => {
  let result: Awaited<ReturnType<typeof main>>;
  beforeAll(async () => {
    result = await main();
  });

  it("runs refund_order once, with the lead's edited args, through the agent's hook", () => {
    expect(result.continuation.dispatch).toEqual([
      { toolCallId: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 80 } },
    ]);
    expect(result.refunds).toEqual([{ orderId: 'A-1042', amount: 80 }]);
    expect(result.responses.map(({ response }) => response.decision)).toEqual(['answer', 'approve']);
  });

  it('goes on by invoking the agent: the model reads the lookup, the answer and the refund, and ends the turn', () => {
    expect(result.result.stopReason).toBe('endTurn');
    expect(result.text).toBe(
      'call_lookup: {"json":{"orderId":"A-1042","status":"delivered","total":120}} | call_ask: yes | call_refund: {"json":{"refundId":"rf_1","orderId":"A-1042","amount":80}}',
    );
  });

  it("keeps a continuation that passes Handback's strict check but for the refund the agent ran", () => {
    const rules = checkTranscript('bedrock-converse', result.continuation.messages).map((v) => v.rule);
    expect(rules).toEqual(['missing-result']);
  });

  it('prints a trace of the pause, the decisions and the invocation that went on', () => {
    expect(result.trace).toHaveLength(5);
    expect(result.trace[0]).toBe('paused ticket-1042: asks call_ask, call_refund (lookup_order already ran)');
  });
});
