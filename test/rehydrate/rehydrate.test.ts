import { describe, expect, it } from 'vitest';
import {
  checkTranscript,
  InvalidAnswerError,
  InvalidTranscriptError,
  MissingTurnStateError,
  NOT_DISPATCHED,
  rehydrate,
} from '../../functions/index.ts';
import { fixtures } from '../fixtures/formats/index.ts';
import { addressOf, threeCallSpec } from '../fixtures/transcript-spec.ts';

/** The §3 rules, the same for every format; placement details live in each format's own test file. */
describe.each(fixtures)('rehydrate ($format)', (fixture) => {
  const { format } = fixture;
  const spec = threeCallSpec();
  const messages = fixture.render(spec);
  const ask = addressOf(spec, 1);
  const pause = { format, messages, toolCallId: ask };

  it('refuses a missing or empty checkpoint with MissingTurnStateError (§3.2)', () => {
    expect(() => rehydrate({ format, messages: [], toolCallId: ask }, 'yes')).toThrow(MissingTurnStateError);
    expect(() => rehydrate({ format, messages: undefined, toolCallId: ask }, 'yes')).toThrow(MissingTurnStateError);
  });

  it('keeps every original message as it was and leaves the input unmutated (§3.3)', () => {
    const before = JSON.stringify(messages);
    const rebuilt = rehydrate(pause, 'yes');
    expect(JSON.stringify(messages)).toBe(before);
    expect(JSON.stringify(rebuilt.slice(0, messages.length))).toBe(before);
    expect(rebuilt.length).toBeGreaterThan(messages.length);
  });

  it('answers the reserved call and marks the other two not dispatched (§3.4–3.6)', () => {
    const results = fixture.roundResults(rehydrate(pause, 'Approved.'), spec);
    const answered = { id: ask, text: 'Approved.', failed: false };
    const [lookup, notify] = [0, 2].map((k) => ({
      id: addressOf(spec, k),
      text: NOT_DISPATCHED,
      failed: fixture.marksFailures,
    }));
    // Call order in every format: some wires pair results to calls by position (§3.6).
    expect(results).toEqual([lookup, answered, notify]);
  });

  it.each([
    ['a string, verbatim', 'Yes, refund $20 — ok 👍', 'Yes, refund $20 — ok 👍'],
    ['an object, as its JSON text', { approved: true, amount: 20 }, '{"approved":true,"amount":20}'],
    ['an array, as its JSON text', [1, 'two', null], '[1,"two",null]'],
    ['a number, as its JSON text', 42.5, '42.5'],
    ['a boolean, as its JSON text', false, 'false'],
    ['null, as its JSON text', null, 'null'],
  ])('folds in %s (§3.4)', (_label, answer, text) => {
    const [first] = fixture.roundResults(rehydrate(pause, answer), spec).filter((r) => r.id === ask);
    expect(first).toEqual({ id: ask, text, failed: false });
  });

  it('keeps the results a round already has and gives them nothing new (§3.5, §3.6)', () => {
    const partial = threeCallSpec({ answered: [0], prior: ['{"status":"shipped"}'] });
    const rebuilt = rehydrate({ format, messages: fixture.render(partial), toolCallId: addressOf(partial, 1) }, 'yes');
    const results = fixture.roundResults(rebuilt, partial);
    expect(results.map((r) => r.id)).toEqual([addressOf(partial, 0), addressOf(partial, 1), addressOf(partial, 2)]);
    expect(results[0]?.text).toBe('{"status":"shipped"}');
    expect(results[1]).toEqual({ id: addressOf(partial, 1), text: 'yes', failed: false });
    expect(results[2]?.text).toBe(NOT_DISPATCHED);
  });

  it('refuses undefined and non-JSON answers with InvalidAnswerError (§3.8)', () => {
    for (const answer of [undefined, () => 1, Number.NaN, Number.POSITIVE_INFINITY, 10n, new Date(0), [undefined]]) {
      expect(() => rehydrate(pause, answer)).toThrow(InvalidAnswerError);
    }
  });

  it('leaves out an answer’s members whose value is undefined, as JSON does', () => {
    expect(JSON.stringify(rehydrate(pause, { a: undefined, b: 1 }))).toContain(
      JSON.stringify(JSON.stringify({ b: 1 })),
    );
  });

  it('refuses a toolCallId that is not a reserved call with InvalidTranscriptError (§3.8)', () => {
    expect(() => rehydrate({ ...pause, toolCallId: 'call_unknown' }, 'yes')).toThrow(InvalidTranscriptError);
    const partial = threeCallSpec({ answered: [0], prior: ['done'] });
    expect(() =>
      rehydrate({ format, messages: fixture.render(partial), toolCallId: addressOf(partial, 0) }, 'yes'),
    ).toThrow(/not a reserved call/);
  });

  it('refuses a call with an empty id, which no provider can pair (§3.5)', () => {
    const spec = threeCallSpec();
    const calls = spec.paused.calls.map((call, k) => (k === 0 ? { ...call, id: '' } : call));
    const unpairable = fixture.render({ ...spec, paused: { ...spec.paused, calls } });
    expect(() => rehydrate({ format, messages: unpairable, toolCallId: ask }, 'yes')).toThrow(/must not be empty/);
  });

  it('yields a transcript that passes the strict check (§3.9)', () => {
    expect(checkTranscript(format, messages).map((v) => v.rule)).toContain('missing-result');
    expect(checkTranscript(format, rehydrate(pause, { ok: true }))).toEqual([]);
  });

  it(`${fixture.refusesEmptyAnswer ? 'refuses' : 'carries'} an empty string answer`, () => {
    if (fixture.refusesEmptyAnswer) {
      expect(() => rehydrate(pause, '')).toThrow(InvalidAnswerError);
    } else {
      const results = fixture.roundResults(rehydrate(pause, ''), spec);
      expect(results.find((r) => r.id === ask)).toEqual({ id: ask, text: '', failed: false });
    }
  });
});

describe('rehydrate', () => {
  const call = { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } };
  const paused = [
    { role: 'user', content: 'x' },
    { role: 'assistant', content: null, tool_calls: [call] },
  ];

  it('takes the answered call from a stored pause record’s toolCall when toolCallId is absent', () => {
    const record = { format: 'openai-chat', messages: paused, toolCall: { id: 'a', name: 'f', args: {} } };
    expect(rehydrate(record, 'yes').at(-1)).toEqual({ role: 'tool', tool_call_id: 'a', content: 'yes' });
    const unnamed = { format: 'openai-chat', messages: paused } as unknown as Parameters<typeof rehydrate>[0];
    expect(() => rehydrate(unnamed, 'yes')).toThrow(/not a reserved call/);
  });

  it('refuses messages that are not an array with InvalidTranscriptError', () => {
    expect(() => rehydrate({ format: 'openai-chat', messages: { 0: paused[0] }, toolCallId: 'a' }, 'yes')).toThrow(
      InvalidTranscriptError,
    );
  });

  it('names the broken rule and the message index in the error it throws', () => {
    const call = { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } };
    const messages = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: null, tool_calls: [{ ...call, id: 'q' }] },
      { role: 'user', content: 'y' },
      { role: 'assistant', content: null, tool_calls: [call] },
    ];
    expect(() => rehydrate({ format: 'openai-chat', messages, toolCallId: 'a' }, 'yes')).toThrow(
      /rule missing-result at messages\[1\]: An assistant message with 'tool_calls' must be followed/,
    );
  });

  it('names an unknown format in an InvalidTranscriptError', () => {
    expect(() => rehydrate({ format: 'cohere', messages: [{}], toolCallId: 'x' }, 'yes')).toThrow(
      /Unknown message format "cohere"/,
    );
  });
});
