import { describe, expect, it } from 'vitest';
import {
  appendResults,
  applyDecisions,
  checkTranscript,
  HandbackError,
  InvalidAnswerError,
  MissingTurnStateError,
  rehydrate,
} from '../../functions/index.ts';
import { turnContext } from '../../functions/rehydrate/context.ts';
import { answerText, validatePause } from '../../functions/rehydrate/rehydrate.ts';
import { fixtures } from '../fixtures/formats/index.ts';
import { withHole } from '../fixtures/freeze.ts';
import { addressOf, threeCallSpec } from '../fixtures/transcript-spec.ts';

/** Runs `fn`; its outcome must be a value or a named Handback error, never a TypeError or RangeError (§3.2). */
function outcome(fn: () => unknown): string {
  try {
    fn();
    return 'returned';
  } catch (error) {
    if (error instanceof HandbackError) return error.name;
    throw error;
  }
}

/** An array nested `depth` levels deep. */
function nested(depth: number): unknown[] {
  const root: unknown[] = [];
  let current = root;
  for (let level = 1; level < depth; level++) {
    const next: unknown[] = [];
    current.push(next);
    current = next;
  }
  return root;
}

describe('no input makes the library throw a TypeError or RangeError (§3.2)', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['a string', 'pause'],
    ['an empty object', {}],
    ['an array', []],
  ])('refuses %s as a pause with MissingTurnStateError', (_label, pause) => {
    expect(() => rehydrate(pause as never, 'x')).toThrow(MissingTurnStateError);
    expect(() => validatePause(pause as never)).toThrow(MissingTurnStateError);
    expect(() => applyDecisions(pause as never, [{ toolCallId: 'a', answer: 1 }])).toThrow(MissingTurnStateError);
  });

  it('refuses an answer nested 200,000 levels deep with InvalidAnswerError, naming the limit', () => {
    const spec = threeCallSpec();
    const [fixture] = fixtures;
    const pause = {
      format: fixture?.format ?? 'openai-chat',
      messages: fixture?.render(spec),
      toolCallId: addressOf(spec, 1),
    };
    expect(() => rehydrate(pause, nested(200_000))).toThrow(InvalidAnswerError);
    expect(() => rehydrate(pause, nested(200_000))).toThrow(/nests more than 256 levels deep/);
    expect(() => answerText({ a: nested(300) })).toThrow(/^The answer is not a JSON value: \/a(\/0){255} nests more/);
    expect(answerText(nested(256))).toBe(`${'['.repeat(256)}${']'.repeat(256)}`);
  });

  it('refuses holes, cycles and class instances in an answer, and takes shared references', () => {
    const shared = { n: 1 };
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { again: cyclic };
    expect(() => answerText(withHole([1, 3], 1))).toThrow(/\/1 is a hole in an array/);
    expect(() => answerText(new Array(3))).toThrow(/\/0 is a hole/);
    expect(() => answerText(cyclic)).toThrow(/\/self\/again refers to itself/);
    expect(() => answerText({ m: new Map() })).toThrow(/\/m is a Map object/);
    expect(() => answerText(Object.create(Object.create(null)))).toThrow(/is a non-plain object/);
    expect(answerText([shared, shared, Object.create(null)])).toBe('[{"n":1},{"n":1},{}]');
    expect(answerText({ 'a/b~c': 1 })).toBe('{"a/b~c":1}');
    expect(() => answerText({ 'a/b~c': [undefined] })).toThrow(/\/a~1b~0c\/0 is undefined/);
    expect(answerText({ 'a/b~c': undefined, d: 1 })).toBe('{"d":1}');
  });
});

describe.each(fixtures)('sparse arrays of messages ($format)', ({ format, render }) => {
  const spec = threeCallSpec();
  const messages = render(spec);

  it.each([
    ['a hole before the first message', () => withHole(messages, 0)],
    ['a hole in the middle', () => withHole(messages, 1)],
    ['an array of three holes', () => new Array(3)],
  ])('reports %s as a message-shape violation, and every function names it', (_label, make) => {
    const sparse = make();
    const hole = [...sparse.keys()].find((i) => !(i in sparse)) ?? -1;
    expect(checkTranscript(format, sparse)).toContainEqual(
      expect.objectContaining({ rule: 'message-shape', index: hole }),
    );
    const toolCallId = addressOf(spec, 1);
    expect(outcome(() => rehydrate({ format, messages: sparse, toolCallId }, 'x'))).toBe('InvalidTranscriptError');
    expect(outcome(() => applyDecisions({ format, messages: sparse }, [{ toolCallId, answer: 1 }]))).toBe(
      'InvalidTranscriptError',
    );
    expect(outcome(() => appendResults(format, sparse, [{ toolCallId, output: 1 }]))).toBe('InvalidTranscriptError');
    expect(outcome(() => turnContext(format, sparse))).toBe('InvalidTranscriptError');
  });
});

describe('block and item types named after Object’s own members', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'are kept as unknown types, never looked up on Object (%s)',
    (type) => {
      expect(checkTranscript('anthropic', [{ role: 'user', content: [{ type }] }])).toEqual([]);
      expect(checkTranscript('openai-responses', [{ type, call_id: 'x' }])).toEqual([]);
    },
  );
});
