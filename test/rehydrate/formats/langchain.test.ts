import { describe, expect, it } from 'vitest';
import { checkTranscript, InvalidTranscriptError, NOT_DISPATCHED, rehydrate } from '../../../functions/index.ts';
import { validatePause } from '../../../functions/rehydrate/rehydrate.ts';

const kw = { additional_kwargs: {}, response_metadata: {} };
const human = { type: 'human', data: { content: 'Refund order 42?', ...kw } };
const system = { type: 'system', data: { content: 'You are a support agent.', ...kw } };
const call = (id: string, name = 'ask_human') => ({ id, name, args: {}, type: 'tool_call' });
const ai = (...ids: string[]) => ({
  type: 'ai',
  data: { content: '', tool_calls: ids.map((id) => call(id)), invalid_tool_calls: [], ...kw },
});
const aiText = (content: string) => ({ type: 'ai', data: { content, tool_calls: [], invalid_tool_calls: [], ...kw } });
const tool = (id: string, content = 'done') => ({
  type: 'tool',
  data: { content, tool_call_id: id, name: 'ask_human', status: 'success', ...kw },
});
const result = (id: string, content: string, status: 'success' | 'error') => ({
  type: 'tool',
  data: { content, tool_call_id: id, name: 'ask_human', status, additional_kwargs: {}, response_metadata: {} },
});

function thrown(fn: () => unknown): InvalidTranscriptError {
  try {
    fn();
  } catch (error) {
    return error as InvalidTranscriptError;
  }
  throw new Error('expected a throw');
}

describe('langchain placement (§3.7)', () => {
  it('adds one tool message per result right after the round, in call order among the results it already has', () => {
    const messages = [human, ai('a', 'b', 'c'), tool('b', 'looked up')];
    const rebuilt = rehydrate({ format: 'langchain', messages, toolCallId: 'c' }, 'yes');
    expect(rebuilt).toEqual([
      human,
      messages[1],
      result('a', NOT_DISPATCHED, 'error'),
      tool('b', 'looked up'),
      result('c', 'yes', 'success'),
    ]);
    expect(rebuilt[3]).toBe(messages[2]);
  });

  it('appends after the results a round already has when they answer its first calls', () => {
    const messages = [human, ai('a', 'b', 'c'), tool('a', 'looked up')];
    const rebuilt = rehydrate({ format: 'langchain', messages, toolCallId: 'c' }, 'yes');
    expect(rebuilt).toEqual([...messages, result('b', NOT_DISPATCHED, 'error'), result('c', 'yes', 'success')]);
  });

  it('keeps every original message object by reference', () => {
    const messages = [system, human, ai('a', 'b')];
    const rebuilt = rehydrate({ format: 'langchain', messages, toolCallId: 'a' }, { ok: true });
    messages.forEach((message, i) => {
      expect(rebuilt[i]).toBe(message);
    });
  });
});

describe('langchain failure marks (§3.8)', () => {
  it('marks the answered result status "success" and the not-dispatched ones status "error"', () => {
    const rebuilt = rehydrate({ format: 'langchain', messages: [human, ai('a', 'b')], toolCallId: 'b' }, 'ok');
    expect(rebuilt.slice(2).map((m) => (m as ReturnType<typeof tool>).data.status)).toEqual(['error', 'success']);
  });
});

describe('langchain pause-time check (§4)', () => {
  it.each([
    ['no ai message at all', [system, human], /has no ai message/],
    ['a last ai message without tool calls', [human, ai('a'), tool('a'), aiText('Done.')], /made no tool calls/],
    ['a human message after the round', [human, ai('a'), human], /follows the paused round/],
    ['a tool message of another call after the round', [human, ai('a'), tool('z')], /follows the paused round/],
  ])('refuses %s', (_label, messages, message) => {
    const error = thrown(() => validatePause({ format: 'langchain', messages, toolCallId: 'a' }));
    expect(error).toBeInstanceOf(InvalidTranscriptError);
    expect(error.message).toMatch(message);
    expect(error.violations[0]?.rule).toBe('paused-round');
  });

  it('accepts a round with some results and names the answered call', () => {
    const check = validatePause({ format: 'langchain', messages: [human, ai('a', 'b'), tool('a')], toolCallId: 'b' });
    expect(check.toolCall).toEqual({ id: 'b', name: 'ask_human', args: {} });
    expect([...check.round.answered]).toEqual(['a']);
  });
});

describe('langchain strict check (§4)', () => {
  it.each([
    ['a complete round', [system, human, ai('a', 'b'), tool('b'), tool('a'), aiText('ok')]],
    ['no tool calls at all', [system, human, aiText('hi')]],
    ['two rounds reusing an id', [human, ai('a'), tool('a'), ai('a'), tool('a')]],
    [
      'function and generic messages',
      [
        { type: 'function', data: { content: '1', name: 'f' } },
        { type: 'generic', data: { content: 'x', role: 'critic' } },
        { type: 'human', data: { content: [{ type: 'text', text: 'hi' }] } },
      ],
    ],
    ['an ai message with no content field', [human, { type: 'ai', data: { tool_calls: [call('a')] } }, tool('a')]],
  ])('accepts %s', (_label, messages) => {
    expect(checkTranscript('langchain', messages)).toEqual([]);
  });

  it.each([
    [
      'a call without a result',
      [human, ai('a', 'b'), tool('a')],
      'missing-result',
      1,
      /did not have response messages: b$/,
    ],
    ['a result without a call', [human, tool('x')], 'orphan-result', 1, /no preceding AIMessage with tool calls/],
    ['a result for another round', [human, ai('a'), tool('a'), tool('z')], 'orphan-result', 3, /tool_call_id z/],
    [
      'two results for one call',
      [human, ai('a'), tool('a'), tool('a')],
      'orphan-result',
      3,
      /answers no open tool call/,
    ],
    [
      'a duplicate call id',
      [human, ai('a', 'a'), tool('a'), tool('a')],
      'duplicate-call-id',
      1,
      /duplicate tool call id a/,
    ],
    ['a message between the round and its results', [human, ai('a'), human, tool('a')], 'missing-result', 1, /: a$/],
    [
      'a tool message without tool_call_id',
      [human, { type: 'tool', data: { content: 'x' } }],
      'message-shape',
      1,
      /messages\[1\]\.data\.tool_call_id/,
    ],
    [
      'a tool call without an id',
      [human, { type: 'ai', data: { content: '', tool_calls: [{ name: 'f', args: {} }] } }],
      'message-shape',
      1,
      /tool_calls\[0\]\.id/,
    ],
    ['an unknown type', [{ type: 'developer', data: { content: 'x' } }], 'message-shape', 0, /messages\[0\]\.type/],
    [
      'content that is neither string nor array',
      [{ type: 'human', data: { content: 7 } }],
      'message-shape',
      0,
      /expected a string or an array of content blocks/,
    ],
    ['a message without data', [{ type: 'human', content: 'x' }], 'message-shape', 0, /messages\[0\]\.data/],
  ])('reports %s', (_label, messages, rule, index, message) => {
    expect(checkTranscript('langchain', messages)).toContainEqual({
      rule,
      index,
      message: expect.stringMatching(message),
    });
  });

  it("words a missing result after LangChain's INVALID_TOOL_RESULTS text", () => {
    expect(checkTranscript('langchain', [human, ai('a', 'b')])).toEqual([
      {
        rule: 'missing-result',
        index: 1,
        message:
          "INVALID_TOOL_RESULTS: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: a, b",
      },
    ]);
  });
});
