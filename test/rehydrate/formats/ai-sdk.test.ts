import { describe, expect, it } from 'vitest';
import { checkTranscript, InvalidTranscriptError, NOT_DISPATCHED, rehydrate } from '../../../functions/index.ts';
import { validatePause } from '../../../functions/rehydrate/rehydrate.ts';

const system = { role: 'system', content: 'You are a support agent.' };
const user = { role: 'user', content: 'Refund order 42?' };
const callPart = (id: string, name = 'ask_human') => ({ type: 'tool-call', toolCallId: id, toolName: name, input: {} });
const assistant = (...ids: string[]) => ({
  role: 'assistant',
  content: [{ type: 'text', text: 'Checking.' }, ...ids.map((id) => callPart(id))],
});
const resultPart = (id: string, value = 'done', type = 'text') => ({
  type: 'tool-result',
  toolCallId: id,
  toolName: 'ask_human',
  output: { type, value },
});
const tool = (...ids: string[]) => ({ role: 'tool', content: ids.map((id) => resultPart(id)) });
const approvalResponse = { type: 'tool-approval-response', approvalId: 'ap1', approved: true };

function thrown(fn: () => unknown): InvalidTranscriptError {
  try {
    fn();
  } catch (error) {
    return error as InvalidTranscriptError;
  }
  throw new Error('expected a throw');
}

describe('ai-sdk placement (§3.7)', () => {
  it('puts all new results in one role "tool" message after the assistant message, in call order', () => {
    const messages = [user, assistant('a', 'b', 'c')];
    expect(rehydrate({ format: 'ai-sdk', messages, toolCallId: 'b' }, 'yes')).toEqual([
      ...messages,
      {
        role: 'tool',
        content: [
          resultPart('a', NOT_DISPATCHED, 'error-text'),
          resultPart('b', 'yes'),
          resultPart('c', NOT_DISPATCHED, 'error-text'),
        ],
      },
    ]);
  });

  it("extends the round's existing tool message with a copy, in call order among its results, and keeps the rest by reference", () => {
    const existing = {
      role: 'tool',
      content: [resultPart('b', 'looked up'), approvalResponse],
      providerOptions: { x: { y: 1 } },
    };
    const messages = [user, assistant('a', 'b', 'c'), existing];
    const before = JSON.stringify(messages);
    const rebuilt = rehydrate({ format: 'ai-sdk', messages, toolCallId: 'c' }, 'yes');
    expect(rebuilt).toEqual([
      user,
      messages[1],
      {
        role: 'tool',
        content: [
          resultPart('a', NOT_DISPATCHED, 'error-text'),
          resultPart('b', 'looked up'),
          approvalResponse,
          resultPart('c', 'yes'),
        ],
        providerOptions: { x: { y: 1 } },
      },
    ]);
    expect(JSON.stringify(messages)).toBe(before);
    expect(rebuilt[0]).toBe(user);
    expect(rebuilt[1]).toBe(messages[1]);
    expect(rebuilt[2]).not.toBe(existing);
  });

  it('extends only the last of several tool messages of the round', () => {
    const first = tool('a');
    const messages = [user, assistant('a', 'b', 'c'), first, tool('b')];
    const rebuilt = rehydrate({ format: 'ai-sdk', messages, toolCallId: 'c' }, 'yes');
    expect(rebuilt).toHaveLength(4);
    expect(rebuilt[2]).toBe(first);
    expect(rebuilt[3]).toEqual({ role: 'tool', content: [resultPart('b'), resultPart('c', 'yes')] });
  });

  it('adds a new tool message when the only message after the round has only approval responses', () => {
    const approvals = { role: 'tool', content: [approvalResponse] };
    const messages = [user, assistant('a'), approvals];
    const rebuilt = rehydrate({ format: 'ai-sdk', messages, toolCallId: 'a' }, 'ok');
    expect(rebuilt[2]).toEqual({ role: 'tool', content: [approvalResponse, resultPart('a', 'ok')] });
  });

  it('leaves provider-executed calls alone: they are not reserved and get no result', () => {
    const round = {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'srv', toolName: 'web_search', input: {}, providerExecuted: true },
        { type: 'tool-result', toolCallId: 'srv', toolName: 'web_search', output: { type: 'json', value: [] } },
        callPart('a'),
      ],
    };
    const rebuilt = rehydrate({ format: 'ai-sdk', messages: [user, round], toolCallId: 'a' }, 'ok');
    expect(rebuilt[2]).toEqual({ role: 'tool', content: [resultPart('a', 'ok')] });
    expect(() => rehydrate({ format: 'ai-sdk', messages: [user, round], toolCallId: 'srv' }, 'ok')).toThrow(
      /not a reserved call/,
    );
  });
});

describe('ai-sdk failure marks (§3.8)', () => {
  it('gives the answer output type "text" and the not-dispatched results "error-text"', () => {
    const rebuilt = rehydrate({ format: 'ai-sdk', messages: [user, assistant('a', 'b')], toolCallId: 'a' }, '');
    const parts = (rebuilt[2] as { content: { output: unknown }[] }).content;
    expect(parts.map((part) => part.output)).toEqual([
      { type: 'text', value: '' },
      { type: 'error-text', value: NOT_DISPATCHED },
    ]);
  });
});

describe('ai-sdk pause-time check (§4)', () => {
  it.each([
    ['no assistant message at all', [system, user], /has no assistant message/],
    [
      'a last assistant message of text only',
      [user, assistant('a'), tool('a'), { role: 'assistant', content: 'Done.' }],
      /made no tool calls/,
    ],
    [
      'a last assistant message with provider-executed calls only',
      [user, { role: 'assistant', content: [{ ...callPart('a'), providerExecuted: true }] }],
      /made no tool calls that are not provider-executed/,
    ],
    ['a user message after the round', [user, assistant('a'), user], /follows the paused round/],
    ['a tool message with a result of another call', [user, assistant('a'), tool('z')], /follows the paused round/],
  ])('refuses %s', (_label, messages, message) => {
    const error = thrown(() => validatePause({ format: 'ai-sdk', messages, toolCallId: 'a' }));
    expect(error).toBeInstanceOf(InvalidTranscriptError);
    expect(error.message).toMatch(message);
    expect(error.violations[0]?.rule).toBe('paused-round');
  });

  it('accepts a round with some results and names the answered call', () => {
    const check = validatePause({
      format: 'ai-sdk',
      messages: [user, assistant('a', 'b'), tool('a')],
      toolCallId: 'b',
    });
    expect(check.toolCall).toEqual({ id: 'b', name: 'ask_human', args: {} });
    expect([...check.round.answered]).toEqual(['a']);
  });
});

describe('ai-sdk strict check (§4)', () => {
  it.each([
    ['a complete round', [system, user, assistant('a', 'b'), tool('b', 'a'), { role: 'assistant', content: 'ok' }]],
    ['results split over consecutive tool messages', [user, assistant('a', 'b'), tool('b'), tool('a')]],
    ['no tool calls at all', [system, user, { role: 'assistant', content: [{ type: 'reasoning', text: 'hm' }] }]],
    ['two rounds reusing an id', [user, assistant('a'), tool('a'), assistant('a'), tool('a')]],
    [
      'a provider-executed call answered in the assistant message',
      [
        user,
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 's', toolName: 'search', input: {}, providerExecuted: true },
            { type: 'tool-result', toolCallId: 's', toolName: 'search', output: { type: 'text', value: 'r' } },
          ],
        },
      ],
    ],
    ['a stray tool message of approval responses only', [user, { role: 'tool', content: [approvalResponse] }]],
    [
      'user parts of every kind',
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image', image: 'https://example.com/a.png' },
            { type: 'file', data: 'aGk=', mediaType: 'text/plain' },
          ],
        },
      ],
    ],
  ])('accepts %s', (_label, messages) => {
    expect(checkTranscript('ai-sdk', messages)).toEqual([]);
  });

  it.each([
    [
      'a call without a result',
      [user, assistant('a', 'b'), tool('a')],
      'missing-result',
      1,
      /^AI_MissingToolResultsError: Tool result is missing for tool call b\.$/,
    ],
    [
      'calls without results',
      [user, assistant('a', 'b')],
      'missing-result',
      1,
      /^AI_MissingToolResultsError: Tool results are missing for tool calls a, b\.$/,
    ],
    [
      'a result without a call',
      [user, tool('x')],
      'orphan-result',
      1,
      /tool call x in messages\[1\]: no assistant message/,
    ],
    [
      'a result for another round',
      [user, assistant('a'), tool('a'), tool('z')],
      'orphan-result',
      3,
      /tool call z in messages\[3\]: it answers no open tool call of messages\[1\]/,
    ],
    ['two results for one call', [user, assistant('a'), tool('a', 'a')], 'orphan-result', 2, /tool call a/],
    [
      'a duplicate call id',
      [user, assistant('a', 'a'), tool('a', 'a')],
      'duplicate-call-id',
      1,
      /Duplicate tool call id a in messages\[1\]/,
    ],
    [
      'a message between the round and its results',
      [user, assistant('a'), user, tool('a')],
      'missing-result',
      1,
      /tool call a\.$/,
    ],
    [
      'a tool-call part without toolCallId',
      [user, { role: 'assistant', content: [{ type: 'tool-call', toolName: 'f', input: {} }] }],
      'message-shape',
      1,
      /messages\[1\]\.content: at \[0\]\.toolCallId/,
    ],
    [
      'a user part of an unknown type',
      [{ role: 'user', content: [{ type: 'tool-call' }] }],
      'message-shape',
      0,
      /at \[0\]\.type/,
    ],
    [
      'content that is neither string nor array',
      [{ role: 'assistant', content: 7 }],
      'message-shape',
      0,
      /expected a string or an array of parts/,
    ],
    [
      'a tool-result part without output',
      [user, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'f' }] }],
      'message-shape',
      1,
      /messages\[1\]\.content\[0\]\.output/,
    ],
    ['an unknown role', [{ role: 'developer', content: 'x' }], 'message-shape', 0, /messages\[0\]\.role/],
  ])('reports %s', (_label, messages, rule, index, message) => {
    expect(checkTranscript('ai-sdk', messages)).toContainEqual({
      rule,
      index,
      message: expect.stringMatching(message),
    });
  });
});
