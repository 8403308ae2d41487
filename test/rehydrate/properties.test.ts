import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTranscript, InvalidAnswerError, NOT_DISPATCHED, rehydrate } from '../../functions/index.ts';
import { fixtures } from '../fixtures/formats/index.ts';
import { addressOf, answers, transcriptSpecs } from '../fixtures/transcript-spec.ts';

/** Invariants of §3 over generated paused transcripts, in every format. */
describe.each(fixtures)('rehydrate properties ($format)', (fixture) => {
  const cases = fc.tuple(transcriptSpecs(fixture.callId, { idless: fixture.format === 'gemini' }), answers, fc.nat());

  it('rebuilds a transcript that passes the strict check, keeps the originals and answers each reserved call once', () => {
    fc.assert(
      fc.property(cases, ([spec, answer, pick]) => {
        const messages = fixture.render(spec);
        const reserved = spec.paused.calls.map((_, k) => k).filter((k) => !spec.paused.answered.includes(k));
        const answeredK = reserved[pick % reserved.length] ?? 0;
        const toolCallId = addressOf(spec, answeredK);
        const before = JSON.stringify(messages);
        if (fixture.refusesEmptyAnswer && answer === '') {
          expect(() => rehydrate({ format: fixture.format, messages, toolCallId }, answer)).toThrow(InvalidAnswerError);
          return;
        }

        const rebuilt = rehydrate({ format: fixture.format, messages, toolCallId }, answer);

        expect(JSON.stringify(messages)).toBe(before);
        expect(checkTranscript(fixture.format, rebuilt)).toEqual([]);
        // Every original message is kept, in order (the round's results may get new ones between them); the one
        // result message a joining format extends is the only one that changes.
        const joined = fixture.joinsResultMessage && spec.paused.answered.length > 0 ? messages.length - 1 : -1;
        expect(keptInOrder(messages, rebuilt, joined)).toBe(true);
        const results = fixture.roundResults(rebuilt, spec);
        // Call order, whatever order the round's earlier results were in (§3.6): here they answer calls in order.
        expect(results.map((r) => r.id)).toEqual(spec.paused.calls.map((_, k) => addressOf(spec, k)));
        const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
        for (const k of reserved) {
          const result = results.find((r) => r.id === addressOf(spec, k));
          expect(result?.text).toBe(k === answeredK ? text : NOT_DISPATCHED);
        }
      }),
      { numRuns: 150 },
    );
  });
});

/** Whether `original`'s messages (but `skip`) occur in `rebuilt` in the same order, each unchanged as JSON. */
function keptInOrder(original: unknown[], rebuilt: unknown[], skip: number): boolean {
  let at = 0;
  return original.every((message, i) => {
    if (i === skip) return true;
    const text = JSON.stringify(message);
    while (at < rebuilt.length && JSON.stringify(rebuilt[at]) !== text) at++;
    return at++ < rebuilt.length;
  });
}
