import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendResults,
  applyDecisions,
  checkTranscript,
  type Decision,
  NOT_DISPATCHED,
  rejectionText,
} from '../../functions/index.ts';
import { rebuildWithDecisions } from '../../functions/rehydrate/decisions.ts';
import { formatOf } from '../../functions/rehydrate/formats/index.ts';
import { fixtures } from '../fixtures/formats/index.ts';
import { deepFreeze } from '../fixtures/freeze.ts';
import { addressOf, answers, type TranscriptSpec, transcriptSpecs } from '../fixtures/transcript-spec.ts';

type Fate =
  | { kind: 'answer'; answer: unknown }
  | { kind: 'approve' }
  | { kind: 'edit'; args: Record<string, unknown> }
  | { kind: 'reject'; reason?: string }
  | { kind: 'none' };

const editedArgs = fc.dictionary(
  fc.string({ maxLength: 6 }).filter((key) => key !== '__proto__'),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 3 },
);

function fates(refusesEmptyAnswer: boolean): fc.Arbitrary<Fate> {
  return fc.oneof(
    answers
      .filter((answer) => !(refusesEmptyAnswer && answer === ''))
      .map((answer): Fate => ({ kind: 'answer', answer })),
    fc.constant<Fate>({ kind: 'approve' }),
    editedArgs.map((args): Fate => ({ kind: 'edit', args })),
    fc.option(fc.string({ maxLength: 40 }), { nil: undefined }).map((reason): Fate => ({ kind: 'reject', reason })),
    fc.constant<Fate>({ kind: 'none' }),
  );
}

/** JSON's view of a value: what a transcript's encoding keeps of it (-0 becomes 0, and so on). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

/** Invariants of §9 over generated paused rounds and generated decisions, in every format. */
describe.each(fixtures)('decision properties ($format)', (fixture) => {
  const { format } = fixture;
  const cases = transcriptSpecs(fixture.callId, { idless: format === 'gemini' }).chain((spec) =>
    fc.record({
      spec: fc.constant(spec),
      fates: fc.array(fates(fixture.refusesEmptyAnswer === true), {
        minLength: spec.paused.calls.length,
        maxLength: spec.paused.calls.length,
      }),
      order: fc.nat(),
      split: fc.nat(),
    }),
  );

  it('every decided round passes the strict check once the dispatch calls have their results, in call order', () => {
    fc.assert(
      fc.property(cases, ({ spec, fates: fateOf, order, split }) => {
        const reserved = spec.paused.calls.flatMap((_, k) => (spec.paused.answered.includes(k) ? [] : [k]));
        const decisions = reserved.flatMap((k) => decisionOf(spec, k, fateOf[k] ?? { kind: 'none' }));
        fc.pre(decisions.length > 0);
        const messages = deepFreeze(fixture.render(spec));
        const before = JSON.stringify(messages);

        const { messages: rebuilt, dispatch } = applyDecisions({ format, messages }, decisions);
        const trusted = rebuildWithDecisions(formatOf(format), messages, decisions);

        // Pure: the input is untouched; the trusted path agrees; everything before the round is the input's own.
        expect(JSON.stringify(messages)).toBe(before);
        expect(trusted.messages).toEqual(rebuilt);
        for (let i = 0; i < trusted.roundStart; i++) expect(rebuilt[i]).toBe(messages[i]);

        // Dispatch: approved and edited calls, in call order.
        const dispatched = reserved.filter((k) => ['approve', 'edit'].includes(fateOf[k]?.kind ?? 'none'));
        expect(dispatch.map((call) => call.toolCallId)).toEqual(dispatched.map((k) => addressOf(spec, k)));
        // Only the dispatch calls lack results.
        expect(new Set(checkTranscript(format, rebuilt).map((v) => v.rule))).toEqual(
          new Set(dispatch.length > 0 ? ['missing-result'] : []),
        );
        // Edits are in the transcript, in the format's encoding; other calls keep their args.
        const argsOf = (k: number) => {
          const fate = fateOf[k];
          return reserved.includes(k) && fate?.kind === 'edit' ? fate.args : spec.paused.calls[k]?.args;
        };
        expect(asJson(fixture.roundCalls(rebuilt).map((call) => call.args))).toEqual(
          asJson(spec.paused.calls.map((_, k) => argsOf(k))),
        );

        // The agent's results, in any order and in any number of steps, complete the round in call order.
        const results = rotate(
          dispatch.map((call) => ({ toolCallId: call.toolCallId, output: `ran ${call.toolCallId}` })),
          order,
        );
        const cut = dispatch.length === 0 ? 0 : split % (dispatch.length + 1);
        const halfway = appendResults(format, rebuilt, results.slice(0, cut));
        const completed = appendResults(format, halfway, results.slice(cut));
        expect(checkTranscript(format, completed)).toEqual([]);
        expect(completed).toEqual(appendResults(format, rebuilt, results));
        expect(fixture.roundResults(completed, spec).map((r) => r.id)).toEqual(
          spec.paused.calls.map((_, k) => addressOf(spec, k)),
        );
        for (const result of fixture.roundResults(completed, spec)) {
          const k = spec.paused.calls.findIndex((_, i) => addressOf(spec, i) === result.id);
          if (spec.paused.answered.includes(k)) continue;
          expect(result).toEqual({
            id: result.id,
            ...expected(fateOf[k] ?? { kind: 'none' }, result.id, fixture.marksFailures),
          });
        }
      }),
      { numRuns: 150 },
    );
  });
});

function decisionOf(spec: TranscriptSpec, k: number, fate: Fate): Decision[] {
  const toolCallId = addressOf(spec, k);
  switch (fate.kind) {
    case 'answer':
      return [{ toolCallId, answer: fate.answer }];
    case 'approve':
      return [{ toolCallId, decision: 'approve' }];
    case 'edit':
      return [{ toolCallId, decision: 'edit', args: fate.args }];
    case 'reject':
      return [
        fate.reason === undefined
          ? { toolCallId, decision: 'reject' }
          : { toolCallId, decision: 'reject', reason: fate.reason },
      ];
    case 'none':
      return [];
  }
}

function expected(fate: Fate, id: string, marks: boolean): { text: string; failed: boolean } {
  switch (fate.kind) {
    case 'answer':
      return { text: typeof fate.answer === 'string' ? fate.answer : JSON.stringify(fate.answer), failed: false };
    case 'approve':
    case 'edit':
      return { text: `ran ${id}`, failed: false };
    case 'reject':
      return { text: rejectionText(fate.reason), failed: marks };
    case 'none':
      return { text: NOT_DISPATCHED, failed: marks };
  }
}

function rotate<T>(items: T[], by: number): T[] {
  if (items.length === 0) return items;
  const at = by % items.length;
  return [...items.slice(at), ...items.slice(0, at)].reverse();
}
