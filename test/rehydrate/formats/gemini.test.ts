import { describe, expect, it } from 'vitest';
import { checkTranscript, NOT_DISPATCHED, rehydrate } from '../../../functions/index.ts';
import { gemini } from '../../../functions/rehydrate/formats/gemini.ts';
import { validatePause } from '../../../functions/rehydrate/rehydrate.ts';

const user = { role: 'user', parts: [{ text: 'Refund order 42?' }] };
const call = (id?: string, name = 'ask_human') => ({
  functionCall: { ...(id === undefined ? {} : { id }), name, args: { q: id ?? name } },
});
const model = (...parts: object[]) => ({ role: 'model', parts });
const response = (id?: string, name = 'ask_human', body: object = { output: 'done' }) => ({
  functionResponse: { ...(id === undefined ? {} : { id }), name, response: body },
});
const responses = (...parts: object[]) => ({ role: 'user', parts });

describe('gemini placement (§3.7)', () => {
  it('adds one user content with every response, in call order, failures marked with response.error', () => {
    const messages = [user, model({ text: 'Checking.' }, call('a'), call('b', 'notify'), call('c'))];
    const rebuilt = rehydrate({ format: 'gemini', messages, toolCallId: 'b' }, 'sent');
    expect(rebuilt).toEqual([
      ...messages,
      responses(
        response('a', 'ask_human', { error: NOT_DISPATCHED }),
        response('b', 'notify', { output: 'sent' }),
        response('c', 'ask_human', { error: NOT_DISPATCHED }),
      ),
    ]);
    expect(rebuilt[0]).toBe(messages[0]);
    expect(rebuilt[1]).toBe(messages[1]);
  });

  it('joins an existing response turn: after its responses, before its text, without touching the original', () => {
    const existing = responses(response('a'), { text: 'and some notes' });
    const messages = [user, model(call('a'), call('b'), call('c')), existing];
    const before = structuredClone(existing);
    const rebuilt = rehydrate({ format: 'gemini', messages, toolCallId: 'c' }, { ok: true });
    expect(rebuilt[2]).toEqual(
      responses(
        response('a'),
        response('b', 'ask_human', { error: NOT_DISPATCHED }),
        response('c', 'ask_human', { output: '{"ok":true}' }),
        { text: 'and some notes' },
      ),
    );
    expect(rebuilt).toHaveLength(3);
    expect(rebuilt[2]).not.toBe(existing);
    expect(existing).toEqual(before);
  });

  it('addresses id-less calls by position and answers them without ids, in position', () => {
    const messages = [
      user,
      model(call(undefined, 'lookup'), call(undefined, 'ask_human')),
      responses(response(undefined, 'lookup')),
    ];
    const rebuilt = rehydrate({ format: 'gemini', messages, toolCallId: '#1' }, 'yes');
    expect(rebuilt[2]).toEqual(
      responses(response(undefined, 'lookup'), response(undefined, 'ask_human', { output: 'yes' })),
    );
  });

  it('keeps ids on the calls that have them in a round that mixes both', () => {
    const messages = [user, model(call('a'), call(undefined, 'notify'))];
    const rebuilt = rehydrate({ format: 'gemini', messages, toolCallId: 'a' }, 'yes');
    expect(rebuilt[2]).toEqual(
      responses(
        response('a', 'ask_human', { output: 'yes' }),
        response(undefined, 'notify', { error: NOT_DISPATCHED }),
      ),
    );
  });

  it('keeps thought signatures, unknown fields and a missing role as they were', () => {
    const signed = {
      role: 'model',
      parts: [{ thought: true, text: 'hmm', thoughtSignature: 'c2ln' }, call('a')],
      extra: 1,
    };
    const roleless = { parts: [{ text: 'hi' }] };
    const rebuilt = rehydrate({ format: 'gemini', messages: [roleless, signed], toolCallId: 'a' }, 'ok');
    expect(rebuilt.slice(0, 2)).toEqual([roleless, signed]);
  });
});

describe('gemini pause-time check (§4)', () => {
  it.each([
    ['no model content', [user], /has no model content/],
    [
      'a last model content without calls',
      [user, model(call('a')), responses(response('a')), model({ text: 'done' })],
      /made no function calls/,
    ],
    ['two contents after the round', [user, model(call('a')), responses(response('a')), user], /only one user content/],
    ['a user turn without responses after the round', [user, model(call('a')), user], /holds no function responses/],
    [
      'a response to another call after the round',
      [user, model(call('a'), call('b')), responses(response('z'))],
      /not a function call of the paused round/,
    ],
  ])('refuses %s', (_label, messages, message) => {
    expect(() => validatePause({ format: 'gemini', messages, toolCallId: 'a' })).toThrow(message);
  });

  it('accepts a round whose id-less call comes before an answered one: its response goes before, at its position', () => {
    // Call #1 is answered by id; the new id-less response for #0 goes in front of it, at position 0.
    const messages = [user, model(call(undefined, 'lookup'), call('b')), responses(response('b'))];
    expect(validatePause({ format: 'gemini', messages, toolCallId: '#0' }).toolCall.name).toBe('lookup');
    expect(rehydrate({ format: 'gemini', messages, toolCallId: '#0' }, 'yes')[2]).toEqual(
      responses(response(undefined, 'lookup', { output: 'yes' }), response('b')),
    );
  });

  it('refuses a round whose existing id-less response does not stand at its call’s position', () => {
    // The id-less response at position 0 pairs with call #0 (lookup) by position, but is named notify.
    const messages = [
      user,
      model(call(undefined, 'lookup'), call(undefined, 'notify')),
      responses(response(undefined, 'notify')),
    ];
    expect(() => validatePause({ format: 'gemini', messages, toolCallId: '#1' })).toThrow(/strict transcript check/);
  });

  it('refuses a round whose id-less response stands at its position only because a later call’s response is before it', () => {
    // [c, Y]: Y is at position 1, its call's, but #0 goes in front of c, and Y would end at position 2.
    const messages = [
      user,
      model(call(undefined, 'lookup'), call(undefined, 'notify'), call('c')),
      responses(response('c'), response(undefined, 'notify')),
    ];
    expect(() => validatePause({ format: 'gemini', messages, toolCallId: '#0' })).toThrow(
      /answers function call #1, which has no id, by its address/,
    );
  });

  it('names the answered call, addressed by position when it has no id', () => {
    const check = validatePause({
      format: 'gemini',
      messages: [user, model(call(undefined, 'lookup'))],
      toolCallId: '#0',
    });
    expect(check.toolCall).toEqual({ id: '#0', name: 'lookup', args: { q: 'lookup' } });
  });

  it('finds a round whose calls take no arguments', () => {
    const round = gemini.findRound([user, model({ functionCall: { name: 'now' } })] as never);
    expect(round.calls).toEqual([{ id: '#0', name: 'now', args: {} }]);
  });
});

describe('gemini strict check (§4)', () => {
  it.each([
    [
      'a complete round',
      [user, model(call('a'), call('b')), responses(response('b'), response('a')), model({ text: 'ok' })],
    ],
    [
      'an id-less round answered by position',
      [
        user,
        model(call(undefined, 'x'), call(undefined, 'y')),
        responses(response(undefined, 'x'), response(undefined, 'y')),
      ],
    ],
    [
      'a response turn that goes on with text',
      [user, model(call('a')), responses(response('a'), { text: 'more' }), model({ text: 'ok' })],
    ],
    ['no calls at all', [user, model({ text: 'hi' }), user]],
  ])('accepts %s', (_label, messages) => {
    expect(checkTranscript('gemini', messages)).toEqual([]);
  });

  it.each([
    [
      'a call without a response',
      [user, model(call('a'), call('b')), responses(response('a'))],
      'missing-result',
      1,
      /number of function response parts is equal.*no response for: b/,
    ],
    ['a call turn at the end', [user, model(call('a'))], 'missing-result', 1, /no function response turn follows it/],
    [
      'a call turn followed by a model turn',
      [user, model(call('a')), model({ text: 'x' })],
      'missing-result',
      1,
      /no function response turn/,
    ],
    [
      'a response without a call turn',
      [user, responses(response('a'))],
      'orphan-result',
      1,
      /function response turn comes immediately after a function call turn/,
    ],
    [
      'a response in a model turn',
      [user, model(call('a')), model(response('a'))],
      'orphan-result',
      2,
      /function response turn comes immediately after/,
    ],
    [
      'a response for another call',
      [user, model(call('a')), responses(response('a'), response('z'))],
      'orphan-result',
      2,
      /response z .* answers no open function call of messages\[1\]/,
    ],
    [
      'two responses for one call',
      [user, model(call('a')), responses(response('a'), response('a'))],
      'orphan-result',
      2,
      /response a/,
    ],
    [
      'an id-less response named after another call',
      [user, model(call(undefined, 'x')), responses(response(undefined, 'y'))],
      'orphan-result',
      2,
      /named y, but function call #0 .* is x/,
    ],
    [
      'a duplicate call id',
      [user, model(call('a'), call('a')), responses(response('a'), response('a'))],
      'duplicate-call-id',
      1,
      /Duplicate function call id a/,
    ],
    [
      'a call turn first',
      [model(call('a')), responses(response('a'))],
      'role-order',
      0,
      /function call turn comes immediately after a user turn.*is the first content/,
    ],
    [
      'a call turn after a model turn',
      [user, model({ text: 'x' }), model(call('a')), responses(response('a'))],
      'role-order',
      2,
      /follows the model content messages\[1\]/,
    ],
    [
      'calls and responses in one turn',
      [user, model(call('a'), response('a'))],
      'mixed-function-parts',
      1,
      /mixes function call parts and function response parts/,
    ],
    [
      'text before a response',
      [user, model(call('a'), call('b')), responses(response('a'), { text: 'x' }, response('b'))],
      'result-placement',
      2,
      /parts\[2\] is a function response after other parts/,
    ],
    [
      'an ill-shaped part',
      [user, model({ functionCall: { id: 'a' } })],
      'message-shape',
      1,
      /messages\[1\]\.parts\[0\]\.functionCall\.name/,
    ],
    ['an unknown role', [{ role: 'assistant', parts: [] }], 'message-shape', 0, /messages\[0\]\.role/],
  ])('reports %s', (_label, messages, rule, index, message) => {
    expect(checkTranscript('gemini', messages)).toContainEqual({
      rule,
      index,
      message: expect.stringMatching(message),
    });
  });
});
