import { describe, expect, it } from 'vitest';
import { appendResults, applyDecisions, checkTranscript, type Decision, rehydrate } from '../../functions/index.ts';
import { turnContext } from '../../functions/rehydrate/context.ts';
import { rebuildWithDecisions } from '../../functions/rehydrate/decisions.ts';
import { formatOf } from '../../functions/rehydrate/formats/index.ts';
import { validatePauseAsks } from '../../functions/rehydrate/rehydrate.ts';
import { fixtures } from '../fixtures/formats/index.ts';
import { countOperations } from '../fixtures/operations.ts';
import { addressOf, type FormatFixture, type TranscriptSpec } from '../fixtures/transcript-spec.ts';

/**
 * Every check and rebuild is linear in the transcript: the work for an input four times as large is at most six
 * times the work for the smaller one (linear is four; a scan of the round inside a loop over it gives sixteen).
 * Work is counted, not timed (see `countOperations`), so the test says the same on any machine.
 */
const MAX_RATIO = 6;

/** A paused round of `n` calls (gemini: without ids), the first quarter already answered. */
function wideRound(n: number, idless: boolean): TranscriptSpec {
  const calls = Array.from({ length: n }, (_, k) => ({ id: `call_${k}`, name: `tool_${k % 5}`, args: { k } }));
  const answered = Array.from({ length: Math.floor(n / 4) }, (_, k) => k);
  return {
    earlier: [],
    user: 'Go.',
    paused: { text: 'Working.', calls, answered, prior: answered.map((k) => `done ${k}`) },
    idless,
  };
}

/** `n` earlier complete rounds of two calls each, then a paused round of three, the first answered. */
function longTranscript(n: number): TranscriptSpec {
  const earlier = Array.from({ length: n }, (_, r) => ({
    user: `Question ${r}.`,
    text: `Answer ${r}.`,
    calls: [0, 1].map((j) => ({ id: `r${r}_${j}`, name: 'lookup', args: { r, j } })),
    results: [`result ${r}.0`, `result ${r}.1`],
  }));
  const calls = [0, 1, 2].map((k) => ({ id: `p_${k}`, name: 'act', args: { k } }));
  return { earlier, user: 'Last.', paused: { text: 'Doing.', calls, answered: [0], prior: ['done'] } };
}

/** Decisions for every reserved call but the last: approve, reject, edit and answer in turn. */
function decisionsFor(spec: TranscriptSpec): Decision[] {
  const reserved = spec.paused.calls.flatMap((_, k) => (spec.paused.answered.includes(k) ? [] : [k])).slice(0, -1);
  return reserved.map((k, i): Decision => {
    const toolCallId = addressOf(spec, k);
    switch (i % 4) {
      case 0:
        return { toolCallId, decision: 'approve' };
      case 1:
        return { toolCallId, decision: 'reject', reason: 'no' };
      case 2:
        return { toolCallId, decision: 'edit', args: { k: -k } };
      default:
        return { toolCallId, answer: { k } };
    }
  });
}

/** Each operation on a transcript, as the test measures it: the transcript goes in through the counting proxy. */
function operationsOf(fixture: FormatFixture, spec: TranscriptSpec) {
  const { format } = fixture;
  const messages = fixture.render(spec);
  const reserved = spec.paused.calls.flatMap((_, k) => (spec.paused.answered.includes(k) ? [] : [addressOf(spec, k)]));
  const toolCallId = reserved.at(-1) ?? '';
  const decisions = decisionsFor(spec);
  const decided = applyDecisions({ format, messages }, decisions);
  const results = decided.dispatch.map((call) => ({ toolCallId: call.toolCallId, output: 'ran' }));
  const complete = rehydrate({ format, messages, toolCallId }, 'yes');
  return {
    checkTranscript: () => countOperations(complete, (m) => checkTranscript(format, m)),
    rehydrate: () => countOperations(messages, (m) => rehydrate({ format, messages: m, toolCallId }, 'yes')),
    applyDecisions: () => countOperations(messages, (m) => applyDecisions({ format, messages: m }, decisions)),
    rebuildWithDecisions: () => countOperations(messages, (m) => rebuildWithDecisions(formatOf(format), m, decisions)),
    appendResults: () => countOperations(decided.messages, (m) => appendResults(format, m, results)),
    validatePauseAsks: () =>
      countOperations(messages, (m) => validatePauseAsks({ format, messages: m }, reserved.slice(0, 16))),
    turnContext: () => countOperations(messages, (m) => turnContext(format, m)),
  };
}

const OPERATIONS = [
  'checkTranscript',
  'rehydrate',
  'applyDecisions',
  'rebuildWithDecisions',
  'appendResults',
  'validatePauseAsks',
  'turnContext',
] as const;

/** The work for the input of size 4n over the work for size n, per operation (each measured once per size). */
function ratios(fixture: FormatFixture, make: (n: number) => TranscriptSpec, n: number): Record<string, number> {
  const small = operationsOf(fixture, make(n));
  const large = operationsOf(fixture, make(4 * n));
  return Object.fromEntries(OPERATIONS.map((name) => [name, large[name]() / small[name]()]));
}

describe.each(fixtures)('linear time ($format)', (fixture) => {
  it('checks and rebuilds a wide round of 800 calls with at most 6 times the work of 200 calls', () => {
    const measured = ratios(fixture, (n) => wideRound(n, fixture.format === 'gemini'), 200);
    expect(Object.entries(measured).filter(([, ratio]) => !(ratio < MAX_RATIO))).toEqual([]);
  });

  it('checks and rebuilds a transcript of 400 rounds with at most 6 times the work of 100 rounds', () => {
    const measured = ratios(fixture, longTranscript, 100);
    expect(Object.entries(measured).filter(([, ratio]) => !(ratio < MAX_RATIO))).toEqual([]);
  });
});

describe('countOperations', () => {
  it('sees a scan inside a loop as quadratic work, and a Set lookup as linear', () => {
    const quadratic = (items: number[]) => items.filter((item) => items.includes(item + 1)).length;
    const linear = (items: number[]) => {
      const set = new Set(items);
      return items.filter((item) => set.has(item + 1)).length;
    };
    const of = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(countOperations(of(800), quadratic) / countOperations(of(200), quadratic)).toBeGreaterThan(12);
    expect(countOperations(of(800), linear) / countOperations(of(200), linear)).toBeLessThan(MAX_RATIO);
  });
});
