import { describe, expect, it } from 'vitest';
import { BadRequestError, checkTranscript, InvalidTranscriptError, rehydrate } from '../../functions/index.ts';
import { validatePauseAsks } from '../../functions/rehydrate/rehydrate.ts';

const call = (id: string, name = 'f') => ({ id, type: 'function', function: { name, arguments: `{"id":"${id}"}` } });
const user = { role: 'user', content: 'Go.' };
const wide = (n: number) => [
  user,
  { role: 'assistant', content: null, tool_calls: Array.from({ length: n }, (_, k) => call(`c${k}`)) },
];

describe('validatePauseAsks', () => {
  it('returns the round and the call of each id, in the order given', () => {
    const { round, calls } = validatePauseAsks({ format: 'openai-chat', messages: wide(3) }, ['c2', 'c0']);
    expect(round.calls).toHaveLength(3);
    expect(calls).toEqual([
      { id: 'c2', name: 'f', args: { id: 'c2' } },
      { id: 'c0', name: 'f', args: { id: 'c0' } },
    ]);
  });

  it.each([
    ['no ids', [], /1 to 16 tool calls/],
    ['seventeen ids', Array.from({ length: 17 }, (_, k) => `c${k}`), /1 to 16 tool calls/],
    ['ids that are not an array', 'c0', /1 to 16 tool calls/],
    ['an id that is not a string', ['c0', 1], /toolCallId string/],
    ['an id twice', ['c0', 'c1', 'c0'], /Two asks name the same tool call "c0"/],
  ])('refuses %s with BadRequestError', (_label, ids, message) => {
    const ask = () => validatePauseAsks({ format: 'openai-chat', messages: wide(20) }, ids as string[]);
    expect(ask).toThrow(BadRequestError);
    expect(ask).toThrow(message);
  });

  it('refuses an id that is not a reserved call with InvalidTranscriptError, naming ten reserved calls and the count of the rest', () => {
    const ask = () => validatePauseAsks({ format: 'openai-chat', messages: wide(25) }, ['c3', 'nope']);
    expect(ask).toThrow(InvalidTranscriptError);
    expect(ask).toThrow(/reserved calls: "c0", "c1", .*"c9" and 15 more\./);
  });

  it('says there are none when every call of the round has its result', () => {
    const messages = [...wide(1), { role: 'tool', tool_call_id: 'c0', content: 'done' }];
    expect(() => rehydrate({ format: 'openai-chat', messages, toolCallId: 'c0' }, 'x')).toThrow(
      /reserved calls: none\./,
    );
  });
});

describe('checkTranscript', () => {
  it.each([
    ['null', null, /got null/],
    ['an object', { 0: user }, /got object/],
    ['a string', 'messages', /got string/],
  ])('reports messages that are %s as one message-shape violation at index -1', (_label, messages, message) => {
    expect(checkTranscript('openai-chat', messages)).toEqual([
      { rule: 'message-shape', index: -1, message: expect.stringMatching(message) },
    ]);
  });
});
