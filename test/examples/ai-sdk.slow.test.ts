import { modelMessageSchema } from 'ai';
import { checkTranscript } from 'handback';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { main } from '../../examples/ai-sdk.ts';

describe('examples/ai-sdk.ts', () => {
  let result: Awaited<ReturnType<typeof main>>;
  beforeAll(async () => {
    result = await main();
  });

  it("runs refund_order once, with the lead's edited args", () => {
    expect(result.dispatched).toEqual([
      { toolCallId: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 80 } },
    ]);
    const refund = result.messages.at(-1);
    expect(refund).toMatchObject({
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approved: true },
        { toolCallId: 'call_lookup' },
        { toolCallId: 'call_ask' },
        {
          toolCallId: 'call_refund',
          output: { type: 'json', value: { refundId: 'rf_1', orderId: 'A-1042', amount: 80 } },
        },
      ],
    });
  });

  it('ends the turn with the final text the model wrote from the results', () => {
    expect(result.text).toBe('Refunded: {"refundId":"rf_1","orderId":"A-1042","amount":80}. Replacement wanted: yes.');
  });

  it("hands generateText messages that pass Handback's strict check and the AI SDK's own schema", () => {
    expect(checkTranscript('ai-sdk', result.messages)).toEqual([]);
    expect(z.array(modelMessageSchema).safeParse(result.messages).success).toBe(true);
  });

  it("keeps the SDK's approval request and lookup result, and carries the edit in the transcript's tool-call part", () => {
    const [, assistant, tool] = result.messages;
    expect(assistant).toMatchObject({
      role: 'assistant',
      content: expect.arrayContaining([
        {
          type: 'tool-call',
          toolCallId: 'call_refund',
          toolName: 'refund_order',
          input: { orderId: 'A-1042', amount: 80 },
        },
        expect.objectContaining({ type: 'tool-approval-request', toolCallId: 'call_refund' }),
      ]),
    });
    expect(tool).toMatchObject({
      role: 'tool',
      content: expect.arrayContaining([
        {
          type: 'tool-result',
          toolCallId: 'call_lookup',
          toolName: 'lookup_order',
          output: { type: 'json', value: { orderId: 'A-1042', status: 'delivered', total: 120 } },
        },
        { type: 'tool-result', toolCallId: 'call_ask', toolName: 'ask_human', output: { type: 'text', value: 'yes' } },
      ]),
    });
  });

  it('prints a trace of the pause, the two decisions and the resumed turn', () => {
    expect(result.trace).toHaveLength(5);
    expect(result.trace[0]).toBe('paused ticket-1042: asks call_ask, call_refund (lookup_order already ran)');
  });
});
