import {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendResults,
  applyDecisions,
  checkTranscript,
  NOT_DISPATCHED,
  REJECTED,
  rehydrate,
} from '../../../functions/index.ts';
import { validatePause } from '../../../functions/rehydrate/rehydrate.ts';
import { langchainFixture } from '../../fixtures/formats/langchain.ts';
import { addressOf, answers, threeCallSpec, transcriptSpecs } from '../../fixtures/transcript-spec.ts';

/** A paused turn as a LangChain agent holds it: real message objects, stored with LangChain's own serializer. */
function pausedTurn() {
  return mapChatMessagesToStoredMessages([
    new SystemMessage('You are a support agent.'),
    new HumanMessage('Refund order 42, please.'),
    new AIMessage({
      content: 'I will look it up and ask a person.',
      tool_calls: [
        { id: 'call_lookup', name: 'lookup_order', args: { orderId: '42' }, type: 'tool_call' },
        { id: 'call_ask', name: 'ask_human', args: { question: 'Approve the refund?' }, type: 'tool_call' },
        { id: 'call_notify', name: 'notify', args: { channel: 'email' }, type: 'tool_call' },
      ],
    }),
    new ToolMessage({ content: '{"status":"shipped"}', tool_call_id: 'call_lookup', name: 'lookup_order' }),
  ]);
}

describe('langchain interop with @langchain/core', () => {
  it('accepts a transcript written by mapChatMessagesToStoredMessages as a pause and rehydrates it', () => {
    const messages = pausedTurn();
    const check = validatePause({ format: 'langchain', messages, toolCallId: 'call_ask' });
    expect(check.toolCall).toEqual({ id: 'call_ask', name: 'ask_human', args: { question: 'Approve the refund?' } });
    expect([...check.round.answered]).toEqual(['call_lookup']);

    const rebuilt = rehydrate({ format: 'langchain', messages, toolCallId: 'call_ask' }, { approved: true });
    expect(checkTranscript('langchain', rebuilt)).toEqual([]);
    const chat = mapStoredMessagesToChatMessages(rebuilt as ReturnType<typeof pausedTurn>);
    const [answered, notify] = chat.slice(4);
    expect(ToolMessage.isInstance(answered)).toBe(true);
    expect(answered).toBeInstanceOf(ToolMessage);
    expect(answered).toMatchObject({
      tool_call_id: 'call_ask',
      name: 'ask_human',
      status: 'success',
      content: '{"approved":true}',
    });
    expect(notify).toBeInstanceOf(ToolMessage);
    expect(notify).toMatchObject({
      tool_call_id: 'call_notify',
      name: 'notify',
      status: 'error',
      content: NOT_DISPATCHED,
    });
  });

  it('writes tool messages exactly as ToolMessage.toDict() would', () => {
    const messages = pausedTurn();
    const rebuilt = rehydrate({ format: 'langchain', messages, toolCallId: 'call_ask' }, 'yes');
    const roundTripped = mapChatMessagesToStoredMessages(mapStoredMessagesToChatMessages(rebuilt as typeof messages));
    expect(roundTripped.slice(4)).toEqual(rebuilt.slice(4));
  });

  it('turns every rebuilt transcript of generated specs into LangChain messages with a ToolMessage per result', () => {
    fc.assert(
      fc.property(transcriptSpecs(langchainFixture.callId), answers, fc.nat(), (spec, answer, pick) => {
        const messages = langchainFixture.render(spec);
        const reserved = spec.paused.calls.map((_, k) => k).filter((k) => !spec.paused.answered.includes(k));
        const toolCallId = addressOf(spec, reserved[pick % reserved.length] ?? 0);
        const rebuilt = rehydrate({ format: 'langchain', messages, toolCallId }, answer);
        const chat = mapStoredMessagesToChatMessages(rebuilt as ReturnType<typeof pausedTurn>);
        // The round's tool messages, in call order: the new ones among those it already had.
        const results = chat.slice(messages.length - spec.paused.answered.length);
        expect(results).toHaveLength(spec.paused.calls.length);
        results.forEach((message, k) => {
          expect(ToolMessage.isInstance(message)).toBe(true);
          const toolMessage = message as ToolMessage;
          expect(toolMessage.tool_call_id).toBe(addressOf(spec, k));
          if (reserved.includes(k)) {
            expect(toolMessage.status).toBe(toolMessage.tool_call_id === toolCallId ? 'success' : 'error');
          }
        });
      }),
      { numRuns: 60 },
    );
  });

  it('reads back the hand-written fixture transcript as LangChain messages', () => {
    const chat = mapStoredMessagesToChatMessages(
      langchainFixture.render(threeCallSpec()) as ReturnType<typeof pausedTurn>,
    );
    expect(chat.map((message) => message.type)).toEqual(['system', 'human', 'ai', 'tool', 'human', 'ai']);
    expect(AIMessage.isInstance(chat[5]) && chat[5].tool_calls?.map((call) => call.id)).toEqual([
      'call_lookup',
      'call_ask',
      'call_notify',
    ]);
  });

  it('shows edited args on the AIMessage’s tool_calls, with additional_kwargs agreeing, and completes with appendResults', () => {
    const stored = mapChatMessagesToStoredMessages([
      new HumanMessage('Refund order 42, please.'),
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'call_refund', name: 'refund_order', args: { orderId: '42', amount: 40 }, type: 'tool_call' },
          { id: 'call_notify', name: 'notify', args: { channel: 'email' }, type: 'tool_call' },
        ],
        additional_kwargs: {
          tool_calls: [
            {
              id: 'call_refund',
              type: 'function',
              function: { name: 'refund_order', arguments: '{"orderId":"42","amount":40}' },
            },
            { id: 'call_notify', type: 'function', function: { name: 'notify', arguments: '{"channel":"email"}' } },
          ],
        },
      }),
    ]);
    const { messages, dispatch } = applyDecisions({ format: 'langchain', messages: stored }, [
      { toolCallId: 'call_refund', decision: 'edit', args: { orderId: '42', amount: 20 } },
      { toolCallId: 'call_notify', decision: 'reject', reason: 'No emails today.' },
    ]);
    const [, ai] = mapStoredMessagesToChatMessages(messages as typeof stored);
    expect(AIMessage.isInstance(ai)).toBe(true);
    const message = ai as AIMessage;
    expect(message.tool_calls).toEqual([
      { id: 'call_refund', name: 'refund_order', args: { orderId: '42', amount: 20 }, type: 'tool_call' },
      { id: 'call_notify', name: 'notify', args: { channel: 'email' }, type: 'tool_call' },
    ]);
    const raw = message.additional_kwargs.tool_calls ?? [];
    expect(raw.map((call) => [call.id, JSON.parse(call.function.arguments)])).toEqual(
      message.tool_calls?.map((call) => [call.id, call.args]),
    );
    expect(dispatch).toEqual([
      { toolCallId: 'call_refund', name: 'refund_order', args: { orderId: '42', amount: 20 } },
    ]);

    const completed = appendResults('langchain', messages, [{ toolCallId: 'call_refund', output: { refunded: 20 } }]);
    expect(checkTranscript('langchain', completed)).toEqual([]);
    const [refund, notify] = mapStoredMessagesToChatMessages(completed as typeof stored).slice(2);
    expect(refund).toMatchObject({ tool_call_id: 'call_refund', status: 'success', content: '{"refunded":20}' });
    expect(notify).toMatchObject({
      tool_call_id: 'call_notify',
      status: 'error',
      content: `${REJECTED}\nReason: No emails today.`,
    });
  });

  it('keeps an AIMessageChunk’s tool_call_chunks in step with an edit: a chunk rebuilt from them reads the new args', () => {
    const stored = mapChatMessagesToStoredMessages([
      new HumanMessage('Refund order 42.'),
      new AIMessageChunk({
        content: '',
        tool_call_chunks: [
          { id: 'call_refund', name: 'refund_order', args: '{"amount":40}', index: 0, type: 'tool_call_chunk' },
        ],
      }),
    ]);
    const { messages } = applyDecisions({ format: 'langchain', messages: stored }, [
      { toolCallId: 'call_refund', decision: 'edit', args: { amount: 20 } },
    ]);
    const [, ai] = mapStoredMessagesToChatMessages(messages as typeof stored);
    expect((ai as AIMessage).tool_calls?.[0]?.args).toEqual({ amount: 20 });
    // AIMessageChunk derives its tool_calls from tool_call_chunks: a stale chunk would bring the old args back.
    const chunk = new AIMessageChunk((messages[1] as (typeof stored)[number]).data as never);
    expect(chunk.tool_calls?.[0]?.args).toEqual({ amount: 20 });
  });
});
