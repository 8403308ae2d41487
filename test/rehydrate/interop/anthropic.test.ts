import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { checkTranscript, NOT_DISPATCHED, rehydrate } from '../../../functions/index.ts';

/** A client whose fetch records the request body and answers with a minimal Message. */
function recordingClient(): { client: Anthropic; sent: () => { messages: unknown } } {
  let body: { messages: unknown } | undefined;
  const client = new Anthropic({
    apiKey: 'test-key',
    maxRetries: 0,
    fetch: async (_url, init) => {
      body = JSON.parse(String(init?.body));
      const reply = {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [{ type: 'text', text: 'Refunded.', citations: null }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      };
      return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  return { client, sent: () => body ?? { messages: undefined } };
}

describe('anthropic interop with @anthropic-ai/sdk', () => {
  const paused: MessageParam[] = [
    { role: 'user', content: 'Refund order 42, please.' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Needs approval.', signature: 'sig' },
        { type: 'text', text: 'I will ask.' },
        { type: 'tool_use', id: 'toolu_lookup', name: 'lookup_order', input: { orderId: '42' } },
        { type: 'tool_use', id: 'toolu_ask', name: 'ask_human', input: { question: 'Approve?' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_lookup', content: '{"status":"shipped"}' },
        { type: 'text', text: 'Be quick.' },
      ],
    },
  ];

  it('sends a rebuilt transcript, typed as MessageParam[], through messages.create unchanged', async () => {
    const rebuilt = rehydrate({ format: 'anthropic', messages: paused, toolCallId: 'toolu_ask' }, 'Approved.');
    expect(checkTranscript('anthropic', rebuilt)).toEqual([]);
    // The static proof that these shapes are MessageParam is anthropic.test-d.ts; this feeds the object to the SDK.
    const messages = rebuilt as MessageParam[];
    const { client, sent } = recordingClient();
    const reply = await client.messages.create({ model: 'claude-test', max_tokens: 64, messages });
    expect(reply.content).toEqual([{ type: 'text', text: 'Refunded.', citations: null }]);
    expect(sent().messages).toEqual(messages);
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_lookup', content: '{"status":"shipped"}' },
        { type: 'tool_result', tool_use_id: 'toolu_ask', content: 'Approved.' },
        { type: 'text', text: 'Be quick.' },
      ],
    });
  });

  it('marks the not-dispatched results is_error in what the SDK sends', async () => {
    const rebuilt = rehydrate(
      { format: 'anthropic', messages: paused.slice(0, 2), toolCallId: 'toolu_ask' },
      { ok: 1 },
    );
    const { client, sent } = recordingClient();
    await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: rebuilt as MessageParam[] });
    expect((sent().messages as MessageParam[])[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_lookup', content: NOT_DISPATCHED, is_error: true },
        { type: 'tool_result', tool_use_id: 'toolu_ask', content: '{"ok":1}' },
      ],
    });
  });
});
