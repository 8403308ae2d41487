import { describe, expect, it } from 'vitest';
import {
  appendResults,
  applyDecisions,
  BadRequestError,
  checkTranscript,
  InvalidAnswerError,
  InvalidTranscriptError,
  MissingTurnStateError,
} from '../../functions/index.ts';
import { fixtures } from '../fixtures/formats/index.ts';
import { deepFreeze, withHole } from '../fixtures/freeze.ts';
import { addressOf, type TranscriptSpec, threeCallSpec } from '../fixtures/transcript-spec.ts';

/** A paused round of four calls, the first and third already answered: a gap at the second. */
function gapSpec(idless: boolean): TranscriptSpec {
  const base = threeCallSpec({ answered: [0, 2], prior: ['looked up', 'asked'] });
  const calls = [...base.paused.calls, { id: 'call_close', name: 'close_ticket', args: { now: true } }];
  return { ...base, paused: { ...base.paused, calls }, idless };
}

describe.each(fixtures)('appendResults ($format)', (fixture) => {
  const { format } = fixture;

  it('puts each result where call order puts it among the round’s results, between those already there', () => {
    const spec = gapSpec(false);
    const messages = deepFreeze(fixture.render(spec));
    const before = JSON.stringify(messages);
    const rebuilt = appendResults(format, messages, [
      { toolCallId: addressOf(spec, 3), output: { closed: true } },
      { toolCallId: addressOf(spec, 1), output: 'sent to a person' },
    ]);
    expect(JSON.stringify(messages)).toBe(before);
    expect(checkTranscript(format, rebuilt)).toEqual([]);
    expect(fixture.roundResults(rebuilt, spec)).toEqual([
      { id: addressOf(spec, 0), text: 'looked up', failed: false },
      { id: addressOf(spec, 1), text: 'sent to a person', failed: false },
      { id: addressOf(spec, 2), text: 'asked', failed: false },
      { id: addressOf(spec, 3), text: '{"closed":true}', failed: false },
    ]);
  });

  it(`${fixture.marksFailures ? 'marks' : 'cannot mark'} a result with isError as a failure, and never one without`, () => {
    const spec = threeCallSpec();
    const messages = fixture.render(spec);
    const rebuilt = appendResults(format, messages, [
      { toolCallId: addressOf(spec, 0), output: 'timeout', isError: true },
      { toolCallId: addressOf(spec, 1), output: 'fine', isError: false },
      { toolCallId: addressOf(spec, 2), output: 'fine too' },
    ]);
    expect(fixture.roundResults(rebuilt, spec).map((r) => r.failed)).toEqual([fixture.marksFailures, false, false]);
  });

  it('leaves a transcript that passes the strict check but for the calls still without a result', () => {
    const spec = threeCallSpec();
    const rebuilt = appendResults(format, fixture.render(spec), [{ toolCallId: addressOf(spec, 2), output: 'x' }]);
    const violations = checkTranscript(format, rebuilt);
    expect(new Set(violations.map((v) => v.rule))).toEqual(new Set(['missing-result']));
    expect(fixture.roundResults(rebuilt, spec).map((r) => r.id)).toEqual([addressOf(spec, 2)]);
  });

  it('refuses a call that is not a call of the round without a result with InvalidTranscriptError', () => {
    const spec = gapSpec(false);
    const messages = fixture.render(spec);
    for (const toolCallId of [addressOf(spec, 0), 'call_unknown']) {
      expect(() => appendResults(format, messages, [{ toolCallId, output: 'x' }])).toThrow(InvalidTranscriptError);
    }
  });

  it('refuses outputs that are not JSON with InvalidAnswerError', () => {
    const spec = threeCallSpec();
    const messages = fixture.render(spec);
    for (const output of [undefined, () => 1, Number.NaN, [undefined]]) {
      expect(() => appendResults(format, messages, [{ toolCallId: addressOf(spec, 0), output }])).toThrow(
        InvalidAnswerError,
      );
    }
  });
});

describe('appendResults', () => {
  const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });
  const messages = [
    { role: 'user', content: 'x' },
    { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
  ];

  it.each([
    ['results that are not an array', { toolCallId: 'a', output: 1 }, /results Invalid input: expected array/],
    ['a result that is not an object', ['a'], /results\/0 Invalid input: expected object/],
    ['a result without a toolCallId', [{ output: 1 }], /results\/0\/toolCallId is required/],
    [
      'an isError that is not a boolean',
      [{ toolCallId: 'a', output: 1, isError: 'yes' }],
      /results\/0\/isError Invalid input: expected boolean/,
    ],
    [
      'two results for one call',
      [
        { toolCallId: 'a', output: 1 },
        { toolCallId: 'a', output: 2 },
      ],
      /results\/1\/toolCallId a second result for "a"/,
    ],
  ])('refuses %s with BadRequestError', (_label, results, message) => {
    expect(() => appendResults('openai-chat', messages, results as never)).toThrow(BadRequestError);
    expect(() => appendResults('openai-chat', messages, results as never)).toThrow(message);
  });

  it('refuses an unknown format, a missing transcript and an ill-shaped one', () => {
    expect(() => appendResults('cohere', messages, [])).toThrow(/Unknown message format "cohere"/);
    expect(() => appendResults('openai-chat', [], [])).toThrow(MissingTurnStateError);
    expect(() => appendResults('openai-chat', withHole(messages, 1), [])).toThrow(InvalidTranscriptError);
  });

  it('points the failures of an output that is not JSON at the result', () => {
    try {
      appendResults('openai-chat', messages, [{ toolCallId: 'b', output: { when: new Date(0) } }]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidAnswerError);
      expect((error as InvalidAnswerError).failures[0]?.path).toBe('/results/0/output/when');
    }
  });

  it('refuses an empty output for bedrock-converse, whose API rejects blank text', () => {
    const turn = [
      { role: 'user', content: [{ text: 'hi' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'a', name: 'f', input: {} } }] },
    ];
    expect(() => appendResults('bedrock-converse', turn, [{ toolCallId: 'a', output: '' }])).toThrow(
      InvalidAnswerError,
    );
  });

  it('returns a copy of the transcript when given no results', () => {
    const rebuilt = appendResults('openai-chat', messages, []);
    expect(rebuilt).toEqual(messages);
    expect(rebuilt).not.toBe(messages);
  });

  it('refuses a transcript whose earlier rounds fail the strict check', () => {
    const broken = [messages[0], { role: 'assistant', content: null, tool_calls: [call('x')] }, ...messages];
    expect(() => appendResults('openai-chat', broken, [{ toolCallId: 'a', output: 1 }])).toThrow(
      /fails the strict transcript check/,
    );
  });
});

describe('appendResults with gemini calls that have no id', () => {
  const user = { role: 'user', parts: [{ text: 'Refund order 42?' }] };
  const call = (name: string) => ({ functionCall: { name, args: {} } });
  const model = { role: 'model', parts: [call('lookup'), call('refund'), call('notify')] };
  const response = (name: string, body: object, id?: string) => ({
    functionResponse: { ...(id === undefined ? {} : { id }), name, response: body },
  });

  it('gives a response after a waiting call its call’s address, and takes it off once the gap is filled', () => {
    const { messages: decided, dispatch } = applyDecisions({ format: 'gemini', messages: [user, model] }, [
      { toolCallId: '#0', decision: 'reject' },
      { toolCallId: '#1', decision: 'approve' },
      { toolCallId: '#2', answer: 'sent' },
    ]);
    expect(dispatch).toEqual([{ toolCallId: '#1', name: 'refund', args: {} }]);
    // #2 cannot stand at position 2 while #1 waits: it says which call it answers.
    expect((decided[2] as { parts: unknown[] }).parts).toEqual([
      response('lookup', { error: expect.stringMatching(/^Not run: a person/) }),
      response('notify', { output: 'sent' }, '#2'),
    ]);
    expect(checkTranscript('gemini', decided).map((v) => v.rule)).toEqual(['missing-result']);

    const completed = appendResults('gemini', decided, [{ toolCallId: '#1', output: 'refunded' }]);
    expect((completed[2] as { parts: unknown[] }).parts).toEqual([
      response('lookup', { error: expect.stringMatching(/^Not run: a person/) }),
      response('refund', { output: 'refunded' }),
      response('notify', { output: 'sent' }),
    ]);
    expect(checkTranscript('gemini', completed)).toEqual([]);
  });

  it('reports an address left on a response of a complete turn: Gemini pairs id-less calls by position', () => {
    const turn = {
      role: 'user',
      parts: [
        response('lookup', { output: 'a' }, '#0'),
        response('refund', { output: 'b' }),
        response('notify', { output: 'c' }),
      ],
    };
    expect(checkTranscript('gemini', [user, model, turn])).toEqual([
      expect.objectContaining({
        rule: 'result-placement',
        index: 2,
        message: expect.stringMatching(/answers function call #0, which has no id, by its address/),
      }),
    ]);
  });
});
