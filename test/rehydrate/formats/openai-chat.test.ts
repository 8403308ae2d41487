import { describe, expect, it } from 'vitest';
import { applyDecisions, checkTranscript, NOT_DISPATCHED, rehydrate } from '../../../functions/index.ts';
import { validatePause } from '../../../functions/rehydrate/rehydrate.ts';

const user = { role: 'user', content: 'Refund order 42?' };
const call = (id: string, name = 'ask_human') => ({ id, type: 'function', function: { name, arguments: '{}' } });
const assistant = (...ids: string[]) => ({ role: 'assistant', content: null, tool_calls: ids.map((id) => call(id)) });
const tool = (id: string, content = 'done') => ({ role: 'tool', tool_call_id: id, content });

describe('openai-chat placement (§3.7)', () => {
  it('adds one tool message per result right after the round, in call order among the results it already has', () => {
    const messages = [user, assistant('a', 'b', 'c'), tool('b', 'looked up')];
    expect(rehydrate({ format: 'openai-chat', messages, toolCallId: 'c' }, 'yes')).toEqual([
      user,
      messages[1],
      { role: 'tool', tool_call_id: 'a', content: NOT_DISPATCHED },
      tool('b', 'looked up'),
      { role: 'tool', tool_call_id: 'c', content: 'yes' },
    ]);
  });

  it('appends after the results a round already has when they answer its first calls', () => {
    const messages = [user, assistant('a', 'b', 'c'), tool('a', 'looked up')];
    expect(rehydrate({ format: 'openai-chat', messages, toolCallId: 'b' }, 'yes')).toEqual([
      ...messages,
      { role: 'tool', tool_call_id: 'b', content: 'yes' },
      { role: 'tool', tool_call_id: 'c', content: NOT_DISPATCHED },
    ]);
  });
});

describe('openai-chat pause-time check (§4)', () => {
  it('reads arguments that are not JSON as the raw string, and dispatches them so', () => {
    const broken = {
      role: 'assistant',
      content: null,
      tool_calls: [{ ...call('a'), function: { name: 'f', arguments: '{oops' } }],
    };
    const check = validatePause({ format: 'openai-chat', messages: [user, broken], toolCallId: 'a' });
    expect(check.toolCall.args).toBe('{oops');
    const { dispatch } = applyDecisions({ format: 'openai-chat', messages: [user, broken] }, [
      { toolCallId: 'a', decision: 'approve' },
    ]);
    expect(dispatch).toEqual([{ toolCallId: 'a', name: 'f', args: '{oops' }]);
  });

  it('refuses a transcript whose last assistant message made no tool calls', () => {
    expect(() =>
      validatePause({ format: 'openai-chat', messages: [user, { role: 'assistant', content: 'hi' }], toolCallId: 'a' }),
    ).toThrow(/made no tool calls/);
  });

  it('refuses a message after the round that is not one of its results', () => {
    expect(() =>
      validatePause({ format: 'openai-chat', messages: [user, assistant('a'), user], toolCallId: 'a' }),
    ).toThrow(/follows the paused round/);
  });

  it('accepts a round with some results and names the answered call', () => {
    const check = validatePause({
      format: 'openai-chat',
      messages: [user, assistant('a', 'b'), tool('a')],
      toolCallId: 'b',
    });
    expect(check.toolCall).toEqual({ id: 'b', name: 'ask_human', args: {} });
  });
});

describe('openai-chat strict check (§4)', () => {
  it.each([
    ['a complete round', [user, assistant('a', 'b'), tool('b'), tool('a'), { role: 'assistant', content: 'ok' }]],
    ['no tool calls at all', [{ role: 'system', content: 's' }, user, { role: 'assistant', content: 'hi' }]],
    ['two rounds', [user, assistant('a'), tool('a'), assistant('a'), tool('a')]],
  ])('accepts %s', (_label, messages) => {
    expect(checkTranscript('openai-chat', messages)).toEqual([]);
  });

  it.each([
    [
      'a call without a result',
      [user, assistant('a', 'b'), tool('a')],
      'missing-result',
      1,
      /did not have response messages: b/,
    ],
    ['a result without a call', [user, tool('x')], 'orphan-result', 1, /must be a response to a preceding message/],
    ['a result for another round', [user, assistant('a'), tool('a'), tool('z')], 'orphan-result', 3, /tool_call_id z/],
    [
      'a duplicate call id',
      [user, assistant('a', 'a'), tool('a'), tool('a')],
      'duplicate-call-id',
      1,
      /Duplicate tool_call id a/,
    ],
    ['a message between the round and its results', [user, assistant('a'), user, tool('a')], 'missing-result', 1, /a/],
    [
      'an ill-shaped message',
      [user, { role: 'tool', content: 'x' }],
      'message-shape',
      1,
      /messages\[1\]\.tool_call_id/,
    ],
  ])('reports %s', (_label, messages, rule, index, message) => {
    const violations = checkTranscript('openai-chat', messages);
    expect(violations).toContainEqual({ rule, index, message: expect.stringMatching(message) });
  });
});
