import {
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  ToolMessage,
} from '@langchain/core/messages';
import { checkTranscript, NOT_DISPATCHED, REJECTED } from 'handback';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../examples/langgraph.ts';

describe('examples/langgraph.ts', () => {
  let result: Awaited<ReturnType<typeof main>>;
  beforeAll(async () => {
    result = await main();
  });

  it('runs nothing the lead rejected, and the model reads the rejection with its reason', () => {
    expect(result.outcome).toBe('resumed');
    expect(result.dispatched).toEqual([]);
    const refund = result.messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === 'call_refund');
    expect(refund).toMatchObject({
      status: 'error',
      content: `${REJECTED}\nReason: Refunds over 100 need a photo of the damage.`,
    });
    expect(result.text).toBe(
      'refund_order: Reason: Refunds over 100 need a photo of the damage. | lookup_order: {"orderId":"A-1042","status":"delivered","total":120} | ask_human: yes',
    );
  });

  it("calls lookup_order again after its NOT_DISPATCHED result, and the graph's ToolNode runs it", () => {
    const lookups = result.messages.filter((m) => ToolMessage.isInstance(m) && m.name === 'lookup_order');
    expect(lookups).toMatchObject([
      { tool_call_id: 'call_lookup', status: 'error', content: NOT_DISPATCHED },
      {
        tool_call_id: 'call_lookup_2',
        status: 'success',
        content: '{"orderId":"A-1042","status":"delivered","total":120}',
      },
    ]);
  });

  it("hands the graph messages that pass Handback's strict check and LangChain's own round trip", () => {
    expect(checkTranscript('langchain', result.stored)).toEqual([]);
    expect(mapChatMessagesToStoredMessages(mapStoredMessagesToChatMessages(result.stored))).toEqual(result.stored);
    // What the graph added after them is a valid transcript too, in LangChain's own stored form.
    expect(checkTranscript('langchain', mapChatMessagesToStoredMessages(result.messages))).toEqual([]);
  });
});
