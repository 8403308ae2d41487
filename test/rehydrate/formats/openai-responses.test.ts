import { describe, expect, it } from 'vitest';
import { checkTranscript, NOT_DISPATCHED, rehydrate } from '../../../functions/index.ts';
import { openaiResponses } from '../../../functions/rehydrate/formats/openai-responses.ts';
import { validatePause } from '../../../functions/rehydrate/rehydrate.ts';

const user = { role: 'user', content: 'Refund order 42?' };
const reasoning = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' };
const said = {
  type: 'message',
  id: 'msg_1',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text: 'Checking.', annotations: [] }],
};
const call = (id: string, name = 'ask_human') => ({ type: 'function_call', call_id: id, name, arguments: '{"q":1}' });
const output = (id: string, text = 'done') => ({ type: 'function_call_output', call_id: id, output: text });

describe('openai-responses placement (§3.7)', () => {
  it('adds one function_call_output per result at the end, in call order among the outputs the round already has', () => {
    const messages = [user, reasoning, said, call('a'), call('b'), call('c'), output('b', 'looked up')];
    const rebuilt = rehydrate({ format: 'openai-responses', messages, toolCallId: 'c' }, 'yes');
    expect(rebuilt).toEqual([...messages.slice(0, 6), output('a', NOT_DISPATCHED), messages[6], output('c', 'yes')]);
    rebuilt.slice(0, 6).forEach((item, i) => {
      expect(item).toBe(messages[i]);
    });
    expect(rebuilt[7]).toBe(messages[6]);
  });

  it('appends after the outputs a round already has when they answer its first calls', () => {
    const messages = [user, call('a'), call('b'), call('c'), output('a', 'looked up')];
    const rebuilt = rehydrate({ format: 'openai-responses', messages, toolCallId: 'c' }, 'yes');
    expect(rebuilt).toEqual([...messages, output('b', NOT_DISPATCHED), output('c', 'yes')]);
  });

  it('carries a not-dispatched result as text alone, with no failure mark (§3.8)', () => {
    const rebuilt = rehydrate(
      { format: 'openai-responses', messages: [user, call('a'), call('b')], toolCallId: 'a' },
      1,
    );
    expect(rebuilt.at(-1)).toStrictEqual({ type: 'function_call_output', call_id: 'b', output: NOT_DISPATCHED });
  });

  it('keeps other item types, item references and unknown fields as they were', () => {
    const messages = [
      user,
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
      { id: 'msg_0' },
      { type: 'item_reference', id: 'msg_00' },
      { role: 'developer', content: [{ type: 'input_text', text: 'be brief' }] },
      { ...call('a'), id: 'fc_1', status: 'completed', namespace: 'tools' },
    ];
    const rebuilt = rehydrate({ format: 'openai-responses', messages, toolCallId: 'a' }, 'ok');
    expect(rebuilt.slice(0, messages.length)).toEqual(messages);
  });
});

describe('openai-responses paused round (§4, pause time)', () => {
  it('takes the completed items of hosted tools between two function calls as part of the paused round (§3.7)', () => {
    const search = { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } };
    const messages = [user, reasoning, call('a'), search, call('b')];
    const check = validatePause({ format: 'openai-responses', messages, toolCallId: 'b' });
    expect(check.round.start).toBe(1);
    expect(check.round.calls.map((c) => c.id)).toEqual(['a', 'b']);
    const rebuilt = rehydrate({ format: 'openai-responses', messages, toolCallId: 'b' }, 'yes');
    expect(rebuilt).toEqual([...messages, output('a', NOT_DISPATCHED), output('b', 'yes')]);
    expect(checkTranscript('openai-responses', rebuilt)).toEqual([]);
  });

  it.each([
    ['file_search_call', { status: 'completed', queries: ['q'], results: null }],
    ['code_interpreter_call', { status: 'completed', code: 'print(1)', container_id: 'c', outputs: [] }],
    ['image_generation_call', { status: 'completed', result: 'aGk=' }],
    ['mcp_call', { server_label: 's', name: 'n', arguments: '{}', output: 'done' }],
    ['mcp_list_tools', { server_label: 's', tools: [] }],
    ['mcp_approval_request', { server_label: 's', name: 'n', arguments: '{}' }],
    ['tool_search_call', { execution: 'server', call_id: null, arguments: {}, status: 'completed' }],
    ['tool_search_output', { execution: 'server', call_id: null, tools: [], status: 'completed' }],
  ])('takes a %s item between the calls as part of the round', (type, fields) => {
    const messages = [user, call('a'), { type, id: `${type}_1`, ...fields }, call('b')];
    const round = openaiResponses.findRound(messages as never);
    expect(round.start).toBe(1);
    expect(round.calls.map((c) => c.id)).toEqual(['a', 'b']);
  });

  it('ends the round at a tool search the client runs, which waits for the client’s own output', () => {
    const clientSearch = { type: 'tool_search_call', id: 'ts_1', execution: 'client', call_id: 'ts', arguments: {} };
    const round = openaiResponses.findRound([user, call('a'), clientSearch, call('b')] as never);
    expect(round.calls.map((c) => c.id)).toEqual(['b']);
  });

  it('still refuses a client-run call before the round that has no output', () => {
    const computer = { type: 'computer_call', call_id: 'cc', id: 'cu_1', action: { type: 'screenshot' } };
    const messages = [user, computer, said, user, call('a')];
    expect(() => validatePause({ format: 'openai-responses', messages, toolCallId: 'a' })).toThrow(
      /No tool output found for computer call cc/,
    );
  });

  it('takes the last run of model output items as the round', () => {
    const messages = [user, call('old'), output('old'), user, reasoning, call('a'), said, call('b')];
    const round = openaiResponses.findRound(messages as never);
    expect(round.start).toBe(4);
    expect(round.calls.map((c) => c.id)).toEqual(['a', 'b']);
    expect(round.answered).toEqual(new Set());
  });

  it('reads arguments that are not JSON as the raw string', () => {
    const round = openaiResponses.findRound([{ ...call('a'), arguments: '{oops' }] as never);
    expect(round.calls[0]?.args).toBe('{oops');
  });

  it.each([
    ['no model output', [user], /has no model output items/],
    ['a last run without calls', [user, call('a'), output('a'), reasoning, said], /made no function calls/],
    ['a message after the round', [user, call('a'), user], /input\[2\] follows the paused round/],
    [
      'an output for another call after the round',
      [user, call('a'), call('b'), output('z')],
      /not one of its function_call_output items/,
    ],
  ])('refuses %s', (_label, messages, message) => {
    expect(() => validatePause({ format: 'openai-responses', messages, toolCallId: 'a' })).toThrow(message);
  });

  it('refuses a pause whose earlier calls have no output', () => {
    const messages = [user, call('early'), user, call('a')];
    expect(() => validatePause({ format: 'openai-responses', messages, toolCallId: 'a' })).toThrow(
      /No tool output found for function call early/,
    );
  });

  it('accepts a round with some outputs and names the answered call', () => {
    const check = validatePause({
      format: 'openai-responses',
      messages: [user, call('a'), call('b', 'notify'), output('a')],
      toolCallId: 'b',
    });
    expect(check.toolCall).toEqual({ id: 'b', name: 'notify', args: { q: 1 } });
  });
});

describe('openai-responses strict check (§4)', () => {
  const long = 'c'.repeat(65);

  it.each([
    ['a complete round', [user, reasoning, call('a'), call('b'), output('b'), output('a'), said]],
    ['an output far after its call', [user, call('a'), user, said, output('a')]],
    ['a call_id of 64 characters', [user, call('c'.repeat(64)), output('c'.repeat(64))]],
    ['no calls at all', [{ role: 'system', content: 's' }, user, said]],
    [
      'a custom tool call with its output, and a server-run web search',
      [
        user,
        { type: 'custom_tool_call', call_id: 'ct', name: 'grep', input: 'x' },
        { type: 'custom_tool_call_output', call_id: 'ct', output: 'found' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
        said,
      ],
    ],
  ])('accepts %s', (_label, messages) => {
    expect(checkTranscript('openai-responses', messages)).toEqual([]);
  });

  it.each([
    [
      'a call without an output',
      [user, call('a'), call('b'), output('a')],
      'missing-result',
      2,
      /^No tool output found for function call b\.$/,
    ],
    [
      'a custom tool call without its output',
      [user, reasoning, { type: 'custom_tool_call', call_id: 'ct', name: 'grep', input: 'x' }, call('a'), output('a')],
      'missing-result',
      2,
      /^No tool output found for custom tool call ct: Handback answers function_call items only/,
    ],
    [
      'an output without a call',
      [user, output('x')],
      'orphan-result',
      1,
      /^No tool call found for function call output with call_id x\.$/,
    ],
    ['an output before its call', [user, output('a'), call('a')], 'orphan-result', 1, /call_id a/],
    [
      'two outputs for one call',
      [user, call('a'), output('a'), output('a')],
      'orphan-result',
      3,
      /already has an output/,
    ],
    [
      'a call_id used twice in the transcript',
      [user, call('a'), output('a'), user, call('a'), output('a')],
      'duplicate-call-id',
      4,
      /Duplicate item found with call_id a \(input\[1\] and input\[4\]\)/,
    ],
    [
      'a call_id over 64 characters',
      [user, call(long), output(long)],
      'call-id',
      1,
      /^Invalid 'input\[1\]\.call_id': string too long\. Expected a string with maximum length 64, but got a string with length 65 instead\.$/,
    ],
    [
      'an ill-shaped call',
      [user, { type: 'function_call', name: 'x', arguments: '{}' }],
      'message-shape',
      1,
      /messages\[1\]\.call_id/,
    ],
    ['an ill-shaped message', [{ role: 'tool', content: 'x' }], 'message-shape', 0, /messages\[0\]\.role/],
    ['an ill-shaped reasoning item', [{ type: 'reasoning', summary: [] }], 'message-shape', 0, /messages\[0\]\.id/],
    [
      'an ill-shaped output',
      [{ type: 'function_call_output', call_id: 'a' }],
      'message-shape',
      0,
      /messages\[0\]\.output/,
    ],
    ['an item with neither type nor role nor id', [{ content: 'x' }], 'message-shape', 0, /messages\[0\]\.id/],
    ['an item whose type is not a string', [{ type: 7 }], 'message-shape', 0, /messages\[0\]\.type/],
  ])('reports %s', (_label, messages, rule, index, message) => {
    expect(checkTranscript('openai-responses', messages)).toContainEqual({
      rule,
      index,
      message: expect.stringMatching(message),
    });
  });
});
