import { checkTranscript, REJECTED } from 'handback';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../examples/openai.ts';

describe('examples/openai.ts', () => {
  let result: Awaited<ReturnType<typeof main>>;
  beforeAll(async () => {
    result = await main();
  });

  describe('run 1, decided by two people', () => {
    it("runs refund_order once, with the lead's edited args, and ends with the model's text", () => {
      const { approved } = result;
      expect(approved.outcome).toBe('resumed');
      expect(approved.dispatched).toEqual([
        { toolCallId: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 80 } },
      ]);
      expect(approved.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'call_refund',
        content: '{"refundId":"rf_1","orderId":"A-1042","amount":80}',
      });
      expect(approved.text).toBe(
        'call_lookup: {"orderId":"A-1042","status":"delivered","total":120} | call_ask: no | call_refund: {"refundId":"rf_1","orderId":"A-1042","amount":80}',
      );
    });

    it('carries the edit into the assistant message the model sees again', () => {
      const assistant = result.approved.messages[1] as {
        tool_calls: Array<{ id: string; function: { arguments: string } }>;
      };
      const refund = assistant.tool_calls.find((call) => call.id === 'call_refund');
      expect(JSON.parse(refund?.function.arguments ?? '')).toEqual({ orderId: 'A-1042', amount: 80 });
    });

    it("hands the loop messages that pass Handback's strict check", () => {
      expect(checkTranscript('openai-chat', result.approved.messages)).toEqual([]);
    });
  });

  describe('run 2, decided by no one', () => {
    it('is closed by the sweep with outcome expired, nothing to run, and both asks rejected', () => {
      const { expired } = result;
      expect(expired.outcome).toBe('expired');
      expect(expired.dispatched).toEqual([]);
      const rejected = expired.messages.filter(
        (m) => m.role === 'tool' && String(m.content).startsWith(`${REJECTED}\nReason: No one decided before `),
      );
      expect(rejected.map((m) => (m.role === 'tool' ? m.tool_call_id : ''))).toEqual(['call_ask', 'call_refund']);
      expect(checkTranscript('openai-chat', expired.messages)).toEqual([]);
    });

    it('lets the model tell the customer, from the rejections', () => {
      expect(result.expired.text).toMatch(/^call_lookup: \{.*"A-2077".*\} \| call_ask: Reason: No one decided before /);
    });
  });
});
