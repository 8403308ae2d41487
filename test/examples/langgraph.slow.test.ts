import {
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  ToolMessage,
} from '@langchain/core/messages';
import { checkTranscript } from 'handback';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../examples/langgraph.ts';

describe('examples/langgraph.ts', () => {
  let result: Awaited<ReturnType<typeof main>>;
  beforeAll(async () => {
    result = await main();
  });

  it("resumes the thread in the middleware's terms: the lead's edit and support's approval", () => {
    expect(result.continuation.outcome).toBe('resumed');
    expect(Object.values(result.resume)).toEqual([
      {
        decisions: [
          { type: 'edit', editedAction: { name: 'refund_order', args: { orderId: 'A-1042', amount: 80 } } },
          { type: 'approve' },
        ],
      },
    ]);
  });

  it('runs the refund once with the edited args, and the tools the middleware does not ask about', () => {
    expect(result.refunds).toEqual([{ orderId: 'A-1042', amount: 80 }]);
    const results = result.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => (m as ToolMessage).name);
    expect(results).toEqual(['lookup_order', 'refund_order', 'email_customer']);
    expect(result.text).toBe(
      'lookup_order: {"orderId":"A-1042","status":"delivered","total":120} | refund_order: {"refundId":"rf_1","orderId":"A-1042","amount":80} | email_customer: sent: Your refund is on its way.',
    );
  });

  it("keeps a continuation LangChain reads back, and a thread that passes Handback's strict check", () => {
    const stored = result.continuation.messages as ReturnType<typeof mapChatMessagesToStoredMessages>;
    expect(mapChatMessagesToStoredMessages(mapStoredMessagesToChatMessages(stored))).toEqual(stored);
    expect(checkTranscript('langchain', mapChatMessagesToStoredMessages(result.messages))).toEqual([]);
  });

  it('prints a trace of the pause, the decisions and the resumed thread', () => {
    expect(result.trace).toHaveLength(4);
    expect(result.trace[0]).toBe('paused ticket-1042: asks call_refund, call_email; lookup_order not asked');
  });
});
