import { describe, expect, it } from 'vitest';
import { checkTranscript, NOT_DISPATCHED, rehydrate } from '../../../functions/index.ts';
import { anthropic } from '../../../functions/rehydrate/formats/anthropic.ts';
import { validatePause } from '../../../functions/rehydrate/rehydrate.ts';

const format = 'anthropic';
const user = { role: 'user', content: 'Refund order 42?' };
const use = (id: string, name = 'ask_human') => ({ type: 'tool_use', id, name, input: { id } });
const assistant = (...ids: string[]) => ({
  role: 'assistant',
  content: [{ type: 'text', text: 'Checking.' }, ...ids.map((id) => use(id))],
});
const result = (id: string, content = 'done') => ({ type: 'tool_result', tool_use_id: id, content });
const results = (...blocks: object[]) => ({ role: 'user', content: blocks });
const text = (value: string) => ({ type: 'text', text: value });

describe('anthropic placement (§3.7) and failure marks (§3.8)', () => {
  it('adds one user message holding every result in call order, the others marked is_error', () => {
    const messages = [user, assistant('a', 'b', 'c')];
    expect(rehydrate({ format, messages, toolCallId: 'b' }, 'yes')).toEqual([
      ...messages,
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: NOT_DISPATCHED, is_error: true },
          { type: 'tool_result', tool_use_id: 'b', content: 'yes' },
          { type: 'tool_result', tool_use_id: 'c', content: NOT_DISPATCHED, is_error: true },
        ],
      },
    ]);
  });

  it('joins the existing result message: after its results, before its other content, copying only that message', () => {
    const joined = { role: 'user', content: [result('a', 'looked up'), text('And hurry.')], metadata: { keep: 1 } };
    const messages = [user, assistant('a', 'b', 'c'), joined];
    const before = JSON.stringify(messages);
    const rebuilt = rehydrate({ format, messages, toolCallId: 'c' }, { ok: true });
    expect(rebuilt).toEqual([
      user,
      messages[1],
      {
        role: 'user',
        metadata: { keep: 1 },
        content: [
          result('a', 'looked up'),
          { type: 'tool_result', tool_use_id: 'b', content: NOT_DISPATCHED, is_error: true },
          { type: 'tool_result', tool_use_id: 'c', content: '{"ok":true}' },
          text('And hurry.'),
        ],
      },
    ]);
    expect(JSON.stringify(messages)).toBe(before);
    expect(rebuilt[0]).toBe(user);
    expect(rebuilt[1]).toBe(messages[1]);
    expect(rebuilt[2]).not.toBe(joined);
  });

  it('joins a result message that holds only results', () => {
    const messages = [user, assistant('a', 'b'), results(result('a'))];
    expect(rehydrate({ format, messages, toolCallId: 'b' }, 'no')[2]).toEqual(
      results(result('a'), { type: 'tool_result', tool_use_id: 'b', content: 'no' }),
    );
  });

  it('keeps unknown block types and fields (thinking, images, cache_control) as they were', () => {
    const thinking = { type: 'thinking', thinking: 'hmm', signature: 'sig' };
    const messages = [
      {
        role: 'user',
        content: [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }, text('What is it?')],
      },
      { role: 'assistant', content: [thinking, { ...use('a'), cache_control: { type: 'ephemeral' } }] },
    ];
    const rebuilt = rehydrate({ format, messages, toolCallId: 'a' }, 'a cat');
    expect(rebuilt.slice(0, 2)).toEqual(messages);
    expect(checkTranscript(format, rebuilt)).toEqual([]);
  });
});

describe('anthropic pause-time check (§4)', () => {
  it.each([
    ['no assistant message', [user], /no assistant message/],
    [
      'a last assistant message without tool_use blocks',
      [user, { role: 'assistant', content: 'Hi.' }],
      /has no tool_use blocks/,
    ],
    [
      'a user message after the round that holds no results',
      [user, assistant('a'), { role: 'user', content: 'Well?' }],
      /messages\[2\] holds none/,
    ],
    [
      'a result of another call after the round',
      [user, assistant('a', 'b'), results(result('z'))],
      /answers tool_use id z/,
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

  it('refuses a transcript whose earlier rounds fail the strict check', () => {
    const messages = [user, assistant('x'), user, assistant('a')];
    expect(() => validatePause({ format, messages, toolCallId: 'a' })).toThrow(/were found without `tool_result`/);
  });
});

describe('anthropic strict check (§4)', () => {
  it.each([
    [
      'a complete round then a final answer',
      [user, assistant('a', 'b'), results(result('b'), result('a')), { role: 'assistant', content: 'Done.' }],
    ],
    ['results followed by text in the same message', [user, assistant('a'), results(result('a'), text('thanks'))]],
    ['no tool calls at all', [user, { role: 'assistant', content: 'Hi.' }]],
    ['an empty final assistant message (a prefill)', [user, { role: 'assistant', content: '' }]],
    ['the same id in two rounds', [user, assistant('a'), results(result('a')), assistant('a'), results(result('a'))]],
    ['ids with dashes and underscores', [user, assistant('toolu_01-A_b'), results(result('toolu_01-A_b'))]],
  ])('accepts %s', (_label, messages) => {
    expect(checkTranscript(format, messages)).toEqual([]);
  });

  it.each([
    [
      'a call without a result',
      [user, assistant('a', 'b'), results(result('a'))],
      'missing-result',
      1,
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: b. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    ],
    [
      'a round followed by an assistant message',
      [user, assistant('a'), { role: 'assistant', content: 'Hm.' }],
      'missing-result',
      1,
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    ],
    [
      'a result without a call',
      [results(result('x'))],
      'orphan-result',
      0,
      'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: x. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    ],
    [
      'a result for a call of another message',
      [user, assistant('a'), results(result('a'), result('z'))],
      'orphan-result',
      2,
      'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: z. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    ],
    [
      'a result two messages after its call',
      [user, assistant('a'), user, results(result('a'))],
      'orphan-result',
      3,
      'messages.3.content.0: unexpected `tool_use_id` found in `tool_result` blocks: a. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    ],
    [
      'a result after text in its message',
      [user, assistant('a', 'b'), results(result('a'), text('hi'), result('b'))],
      'result-placement',
      2,
      'messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.',
    ],
    [
      'a duplicate call id',
      [user, assistant('a', 'a'), results(result('a'))],
      'duplicate-call-id',
      1,
      'messages.1.content.2: `tool_use` ids must be unique (a is repeated).',
    ],
    [
      'a call id with a dot',
      [user, assistant('call.1'), results(result('call.1'))],
      'call-id',
      1,
      'messages.1.content.1.tool_use.id: String should match pattern \'^[a-zA-Z0-9_-]+$\' (got "call.1").',
    ],
    [
      'an empty user message',
      [{ role: 'user', content: '' }],
      'empty-text',
      0,
      'messages.0: all messages must have non-empty content except for the optional final assistant message',
    ],
    [
      'an empty content array',
      [user, { role: 'assistant', content: [] }, user],
      'empty-text',
      1,
      'messages.1: all messages must have non-empty content except for the optional final assistant message',
    ],
    [
      'an empty text block',
      [{ role: 'user', content: [text('')] }],
      'empty-text',
      0,
      'messages.0.content.0: text content blocks must be non-empty',
    ],
    [
      'a whitespace-only text block',
      [{ role: 'user', content: [text('hi'), text(' \n')] }],
      'empty-text',
      0,
      'messages.0.content.1: text content blocks must contain non-whitespace text',
    ],
    [
      'a whitespace-only string content',
      [{ role: 'user', content: '  ' }],
      'empty-text',
      0,
      'messages.0: text content blocks must contain non-whitespace text',
    ],
  ])('reports %s', (_label, messages, rule, index, message) => {
    expect(checkTranscript(format, messages)).toContainEqual({ rule, index, message });
  });

  it.each([
    ['a role the API does not know', [{ role: 'system', content: 'x' }], /messages\[0\]\.role/],
    [
      'a tool_use block without an id',
      [user, { role: 'assistant', content: [{ type: 'tool_use', name: 'n', input: {} }] }],
      /messages\[1\]\.content\[0\]\.id/,
    ],
    [
      'a tool_result block without a tool_use_id',
      [results({ type: 'tool_result', content: 'x' })],
      /messages\[0\]\.content\[0\]\.tool_use_id/,
    ],
    ['a text block without text', [{ role: 'user', content: [{ type: 'text' }] }], /messages\[0\]\.content\[0\]\.text/],
    ['a block without a type', [{ role: 'user', content: [{ text: 'x' }] }], /messages\[0\]\.content: Invalid input/],
  ])('reports the shape of %s, naming the field', (_label, messages, message) => {
    expect(checkTranscript(format, messages)).toEqual([
      { rule: 'message-shape', index: expect.any(Number), message: expect.stringMatching(message) },
    ]);
  });
});

describe('anthropic module', () => {
  it('adds a result message of the exported AnthropicToolResultMessage shape', () => {
    const messages = [user, assistant('a')] as never[];
    const round = anthropic.findRound(messages);
    const [, , added] = anthropic.appendResults(messages, round, [
      { call: round.calls[0] ?? { id: 'a', name: 'n', args: {} }, text: 'ok', failed: false },
    ]);
    expect(added).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }] });
  });
});
