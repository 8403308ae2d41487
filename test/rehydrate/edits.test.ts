import { describe, expect, it } from 'vitest';
import { applyDecisions, checkTranscript } from '../../functions/index.ts';
import { deepFreeze } from '../fixtures/freeze.ts';

/** An edit of call `b`: the new args as the person typed them. */
const args = { amount: 20, note: 'half, as agreed' };
const edit = [{ toolCallId: 'b', decision: 'edit' as const, args }];

describe('edits keep the call’s name and id and every other field, in the format’s own encoding (§9)', () => {
  it('openai-chat: function.arguments as JSON text, only the edited call and its message copied', () => {
    const a = { id: 'a', type: 'function', function: { name: 'lookup', arguments: '{"id":1}' } };
    const b = { id: 'b', type: 'function', function: { name: 'refund', arguments: '{"amount":40}' }, extra: 1 };
    const assistant = { role: 'assistant', content: 'On it.', tool_calls: [a, b], refusal: null };
    const messages = deepFreeze([{ role: 'user', content: 'Refund.' }, assistant]);
    const { messages: rebuilt, dispatch } = applyDecisions({ format: 'openai-chat', messages }, edit);
    const edited = rebuilt[1] as typeof assistant;
    expect(edited).toEqual({
      ...assistant,
      tool_calls: [a, { ...b, function: { name: 'refund', arguments: JSON.stringify(args) } }],
    });
    expect(edited.tool_calls[0]).toBe(a);
    expect(rebuilt[0]).toBe(messages[0]);
    expect(dispatch).toEqual([{ toolCallId: 'b', name: 'refund', args }]);
  });

  it('openai-responses: the function_call item’s arguments as JSON text, its id and status kept', () => {
    const a = { type: 'function_call', id: 'fc_1', call_id: 'a', name: 'lookup', arguments: '{}', status: 'completed' };
    const b = { type: 'function_call', id: 'fc_2', call_id: 'b', name: 'refund', arguments: '{}', status: 'completed' };
    const messages = deepFreeze([{ role: 'user', content: 'Refund.' }, a, b]);
    const { messages: rebuilt } = applyDecisions({ format: 'openai-responses', messages }, edit);
    expect(rebuilt[1]).toBe(a);
    expect(rebuilt[2]).toEqual({ ...b, arguments: JSON.stringify(args) });
  });

  it('anthropic: the tool_use block’s input, the other blocks kept by reference', () => {
    const thinking = { type: 'thinking', thinking: 'hmm', signature: 'sig' };
    const b = {
      type: 'tool_use',
      id: 'b',
      name: 'refund',
      input: { amount: 40 },
      cache_control: { type: 'ephemeral' },
    };
    const messages = deepFreeze([
      { role: 'user', content: 'Refund.' },
      { role: 'assistant', content: [thinking, b] },
    ]);
    const { messages: rebuilt } = applyDecisions({ format: 'anthropic', messages }, edit);
    const content = (rebuilt[1] as { content: unknown[] }).content;
    expect(content[0]).toBe(thinking);
    expect(content[1]).toEqual({ ...b, input: args });
    expect(checkTranscript('anthropic', rebuilt).map((v) => v.rule)).toEqual(['missing-result']);
  });

  it('bedrock-converse: toolUse.input', () => {
    const b = { toolUse: { toolUseId: 'b', name: 'refund', input: { amount: 40 } } };
    const messages = deepFreeze([
      { role: 'user', content: [{ text: 'Refund.' }] },
      { role: 'assistant', content: [{ text: 'On it.' }, b] },
    ]);
    const { messages: rebuilt } = applyDecisions({ format: 'bedrock-converse', messages }, edit);
    expect((rebuilt[1] as { content: unknown[] }).content[1]).toEqual({
      toolUse: { toolUseId: 'b', name: 'refund', input: args },
    });
  });

  it('gemini: functionCall.args, the thought signature kept; an id-less call edited by its address', () => {
    const a = { functionCall: { name: 'lookup', args: {} }, thoughtSignature: 'c2ln' };
    const b = { functionCall: { id: 'b', name: 'refund', args: { amount: 40 } } };
    const messages = deepFreeze([
      { role: 'user', parts: [{ text: 'Refund.' }] },
      { role: 'model', parts: [a, b] },
    ]);
    const { messages: rebuilt } = applyDecisions({ format: 'gemini', messages }, [
      ...edit,
      { toolCallId: '#0', decision: 'edit', args: { id: 7 } },
    ]);
    expect((rebuilt[1] as { parts: unknown[] }).parts).toEqual([
      { functionCall: { name: 'lookup', args: { id: 7 } }, thoughtSignature: 'c2ln' },
      { functionCall: { id: 'b', name: 'refund', args } },
    ]);
  });

  it('langchain: tool_calls args, and the raw copies in additional_kwargs and tool_call_chunks agree', () => {
    const ai = {
      type: 'ai',
      data: {
        content: '',
        tool_calls: [
          { id: 'a', name: 'lookup', args: {}, type: 'tool_call' },
          { id: 'b', name: 'refund', args: { amount: 40 }, type: 'tool_call' },
        ],
        additional_kwargs: {
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'lookup', arguments: '{}' } },
            { id: 'b', type: 'function', function: { name: 'refund', arguments: '{"amount":40}' } },
            'not a call',
            { id: 'b' },
          ],
          refusal: null,
        },
        tool_call_chunks: [
          { id: 'a', name: 'lookup', args: '{}', index: 0, type: 'tool_call_chunk' },
          { id: 'b', name: 'refund', args: '{"amount":40}', index: 1, type: 'tool_call_chunk' },
          { args: '"tail"', index: 1, type: 'tool_call_chunk' },
          null,
        ],
        invalid_tool_calls: [],
        response_metadata: { model: 'x' },
      },
    };
    const messages = deepFreeze([{ type: 'human', data: { content: 'Refund.' } }, ai]);
    const { messages: rebuilt } = applyDecisions({ format: 'langchain', messages }, edit);
    const data = (rebuilt[1] as typeof ai).data;
    const text = JSON.stringify(args);
    expect(data.tool_calls).toEqual([ai.data.tool_calls[0], { id: 'b', name: 'refund', args, type: 'tool_call' }]);
    expect(data.additional_kwargs).toEqual({
      tool_calls: [
        ai.data.additional_kwargs.tool_calls[0],
        { id: 'b', type: 'function', function: { name: 'refund', arguments: text } },
        'not a call',
        { id: 'b' },
      ],
      refusal: null,
    });
    expect(data.tool_call_chunks).toEqual([
      ai.data.tool_call_chunks[0],
      { ...ai.data.tool_call_chunks[1], args: text },
      ai.data.tool_call_chunks[2],
      null,
    ]);
    expect(data.response_metadata).toBe(ai.data.response_metadata);
  });

  it('langchain: a message without raw copies gets none', () => {
    const ai = { type: 'ai', data: { content: '', tool_calls: [{ id: 'b', name: 'refund', args: {} }] } };
    const { messages: rebuilt } = applyDecisions(
      { format: 'langchain', messages: [{ type: 'human', data: { content: 'x' } }, ai] },
      edit,
    );
    expect((rebuilt[1] as typeof ai).data).toEqual({ content: '', tool_calls: [{ id: 'b', name: 'refund', args }] });
  });

  it('ai-sdk: the tool-call part’s input, providerOptions kept; provider-executed calls are not the client’s', () => {
    const b = {
      type: 'tool-call',
      toolCallId: 'b',
      toolName: 'refund',
      input: { amount: 40 },
      providerOptions: { x: { y: 1 } },
    };
    const served = { type: 'tool-call', toolCallId: 'srv', toolName: 'web_search', input: {}, providerExecuted: true };
    const messages = deepFreeze([
      { role: 'user', content: 'Refund.' },
      {
        role: 'assistant',
        content: [
          served,
          { type: 'tool-result', toolCallId: 'srv', toolName: 'web_search', output: { type: 'json', value: [] } },
          b,
        ],
      },
    ]);
    const { messages: rebuilt } = applyDecisions({ format: 'ai-sdk', messages }, edit);
    const content = (rebuilt[1] as { content: unknown[] }).content;
    expect(content[0]).toBe(served);
    expect(content[2]).toEqual({ ...b, input: args });
    expect(() => applyDecisions({ format: 'ai-sdk', messages }, [{ toolCallId: 'srv', decision: 'approve' }])).toThrow(
      /"srv" is not a reserved call/,
    );
  });
});
