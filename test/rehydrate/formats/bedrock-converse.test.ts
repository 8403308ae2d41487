import { describe, expect, it } from 'vitest';
import { checkTranscript, InvalidAnswerError, NOT_DISPATCHED, rehydrate } from '../../../functions/index.ts';
import { validatePause } from '../../../functions/rehydrate/rehydrate.ts';

const format = 'bedrock-converse';
const text = (value: string) => ({ text: value });
const user = { role: 'user', content: [text('Refund order 42?')] };
const use = (id: string, name = 'ask_human') => ({ toolUse: { toolUseId: id, name, input: { id } } });
const assistant = (...ids: string[]) => ({
  role: 'assistant',
  content: [text('Checking.'), ...ids.map((id) => use(id))],
});
const result = (id: string, value = 'done') => ({ toolResult: { toolUseId: id, content: [text(value)] } });
const results = (...blocks: object[]) => ({ role: 'user', content: blocks });
const said = (value: string) => ({ role: 'assistant', content: [text(value)] });

describe('bedrock-converse placement (§3.7) and failure marks (§3.8)', () => {
  it('adds one user message holding every result in call order, with no status marks', () => {
    const messages = [user, assistant('a', 'b', 'c')];
    expect(rehydrate({ format, messages, toolCallId: 'b' }, 'yes')).toEqual([
      ...messages,
      results(
        { toolResult: { toolUseId: 'a', content: [{ text: NOT_DISPATCHED }] } },
        { toolResult: { toolUseId: 'b', content: [{ text: 'yes' }] } },
        { toolResult: { toolUseId: 'c', content: [{ text: NOT_DISPATCHED }] } },
      ),
    ]);
  });

  it('joins the existing result message: after its results, before its other content, copying only that message', () => {
    const joined = { role: 'user', content: [result('a', 'looked up'), text('And hurry.')] };
    const messages = [user, assistant('a', 'b', 'c'), joined];
    const before = JSON.stringify(messages);
    const rebuilt = rehydrate({ format, messages, toolCallId: 'c' }, 42);
    expect(rebuilt[2]).toEqual(
      results(
        result('a', 'looked up'),
        { toolResult: { toolUseId: 'b', content: [{ text: NOT_DISPATCHED }] } },
        { toolResult: { toolUseId: 'c', content: [{ text: '42' }] } },
        text('And hurry.'),
      ),
    );
    expect(JSON.stringify(messages)).toBe(before);
    expect(rebuilt[1]).toBe(messages[1]);
    expect(rebuilt[2]).not.toBe(joined);
  });

  it('keeps other content blocks (reasoningContent, cachePoint, images) as they were', () => {
    const reasoning = { reasoningContent: { reasoningText: { text: 'hmm', signature: 'sig' } } };
    const messages = [
      { role: 'user', content: [{ image: { format: 'png', source: { bytes: 'AA==' } } }, text('What is it?')] },
      { role: 'assistant', content: [reasoning, use('a'), { cachePoint: { type: 'default' } }] },
    ];
    const rebuilt = rehydrate({ format, messages, toolCallId: 'a' }, 'a cat');
    expect(rebuilt.slice(0, 2)).toEqual(messages);
    expect(checkTranscript(format, rebuilt)).toEqual([]);
  });

  it('refuses an empty answer, which Converse cannot carry, with InvalidAnswerError', () => {
    expect(() => rehydrate({ format, messages: [user, assistant('a')], toolCallId: 'a' }, '')).toThrow(
      InvalidAnswerError,
    );
    expect(rehydrate({ format, messages: [user, assistant('a')], toolCallId: 'a' }, '""')).toHaveLength(3);
  });
});

describe('bedrock-converse pause-time check (§4)', () => {
  it.each([
    ['no assistant message', [user], /no assistant message/],
    ['a last assistant message without toolUse blocks', [user, said('Hi.')], /has no toolUse blocks/],
    ['a user message after the round that holds no results', [user, assistant('a'), user], /messages\[2\] holds none/],
    [
      'a result of another call after the round',
      [user, assistant('a', 'b'), results(result('z'))],
      /answers toolUseId z/,
    ],
    [
      'a message after the result message',
      [user, assistant('a', 'b'), results(result('a')), user],
      /messages\[3\] follows it/,
    ],
  ])('refuses %s', (_label, messages, message) => {
    expect(() => validatePause({ format, messages, toolCallId: 'b' })).toThrow(message);
  });

  it('accepts a round with some results and text after them, and names the answered call', () => {
    const messages = [user, assistant('a', 'b'), results(result('a'), text('Also: be quick.'))];
    const check = validatePause({ format, messages, toolCallId: 'b' });
    expect(check.toolCall).toEqual({ id: 'b', name: 'ask_human', args: { id: 'b' } });
    expect([...check.round.answered]).toEqual(['a']);
  });
});

describe('bedrock-converse strict check (§4)', () => {
  it.each([
    [
      'a complete round then a final answer',
      [user, assistant('a', 'b'), results(result('b'), result('a')), said('Done.')],
    ],
    ['results followed by text in the same message', [user, assistant('a'), results(result('a'), text('thanks'))]],
    ['no tool calls at all', [user, said('Hi.')]],
    ['the same id in two rounds', [user, assistant('a'), results(result('a')), assistant('a'), results(result('a'))]],
    ['a 64-character id', [user, assistant('x'.repeat(64)), results(result('x'.repeat(64)))]],
  ])('accepts %s', (_label, messages) => {
    expect(checkTranscript(format, messages)).toEqual([]);
  });

  it.each([
    [
      'a call without a result',
      [user, assistant('a', 'b'), results(result('a'))],
      'missing-result',
      1,
      'Expected toolResult blocks at messages.2.content for the following Ids: b',
    ],
    [
      'a paused round',
      [user, assistant('a', 'b')],
      'missing-result',
      1,
      'Expected toolResult blocks at messages.2.content for the following Ids: a, b',
    ],
    [
      'a result without a call',
      [user, said('x'), results(result('x'))],
      'orphan-result',
      2,
      'The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.',
    ],
    [
      'a result for a call of another message',
      [user, assistant('a'), results(result('a'), result('z'))],
      'orphan-result',
      2,
      'The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.',
    ],
    [
      'a result after text in its message',
      [user, assistant('a', 'b'), results(result('a'), text('hi'), result('b'))],
      'result-placement',
      2,
      'messages.2: Did not find 1 `toolResult` block(s) at the beginning of this message. Messages following `toolUse` blocks must begin with a matching number of `toolResult` blocks.',
    ],
    [
      'a duplicate call id',
      [user, assistant('a', 'a'), results(result('a'))],
      'duplicate-call-id',
      1,
      'The toolUse blocks at messages.1.content contain duplicate Ids: a',
    ],
    [
      'a call id with a dot',
      [user, assistant('call.1'), results(result('call.1'))],
      'call-id',
      1,
      "Value at 'messages.1.member.content.1.member.toolUse.toolUseId' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
    ],
    [
      'a call id over 64 characters',
      [user, assistant('x'.repeat(65)), results(result('x'.repeat(65)))],
      'call-id',
      1,
      "Value at 'messages.1.member.content.1.member.toolUse.toolUseId' failed to satisfy constraint: Member must have length less than or equal to 64",
    ],
    [
      'a conversation that starts with the assistant',
      [said('Hello.'), user],
      'role-order',
      0,
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    ],
    [
      'two user messages in a row',
      [user, user],
      'role-order',
      1,
      'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again. (messages.0 and messages.1 are both user.)',
    ],
    [
      'an empty content array',
      [{ role: 'user', content: [] }],
      'empty-text',
      0,
      'The content field in the Message object at messages.0 is empty. Add a ContentBlock object to the content field and try again.',
    ],
    [
      'an empty text block',
      [{ role: 'user', content: [text('hi'), text('')] }],
      'empty-text',
      0,
      'The text field in the ContentBlock object at messages.0.content.1 is blank. Add text to the text field, and try again.',
    ],
    [
      'a whitespace-only text block',
      [{ role: 'user', content: [text(' \n')] }],
      'empty-text',
      0,
      'The text field in the ContentBlock object at messages.0.content.0 is blank. Add text to the text field, and try again.',
    ],
    [
      'an empty tool result text',
      [user, assistant('a'), results(result('a', ''))],
      'empty-text',
      2,
      'The text field in the ToolResultContentBlock object at messages.2.content.0.toolResult.content.0 is blank. Add text to the text field, and try again.',
    ],
  ])('reports %s', (_label, messages, rule, index, message) => {
    expect(checkTranscript(format, messages)).toContainEqual({ rule, index, message });
  });

  it.each([
    ['a role Converse does not take in messages', [{ role: 'system', content: [text('x')] }], /messages\[0\]\.role/],
    ['a string content', [{ role: 'user', content: 'hi' }], /messages\[0\]\.content/],
    [
      'a toolUse block without a toolUseId',
      [user, { role: 'assistant', content: [{ toolUse: { name: 'n', input: {} } }] }],
      /messages\[1\]\.content\[0\]\.toolUse\.toolUseId/,
    ],
    [
      'a toolResult block without content',
      [results({ toolResult: { toolUseId: 'a' } })],
      /messages\[0\]\.content\[0\]\.toolResult\.content/,
    ],
    [
      'an empty content block',
      [{ role: 'user', content: [{}] }],
      /messages\[0\]\.content\[0\]: A ContentBlock must set one member/,
    ],
  ])('reports the shape of %s, naming the field', (_label, messages, message) => {
    expect(checkTranscript(format, messages)).toEqual([
      { rule: 'message-shape', index: expect.any(Number), message: expect.stringMatching(message) },
    ]);
  });
});
