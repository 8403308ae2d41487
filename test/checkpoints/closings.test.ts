import { describe, expect, it } from 'vitest';
import type { AskInput, CheckpointStore, ResumeResult } from '../../functions/checkpoints/checkpoint-store.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { checkTranscript } from '../../functions/rehydrate/check-transcript.ts';
import { appendResults } from '../../functions/rehydrate/results.ts';
import { fixtures } from '../fixtures/formats/index.ts';
import { addressOf, type TranscriptSpec, threeCallSpec } from '../fixtures/transcript-spec.ts';
import { testClock } from './support.ts';

/**
 * Every way a pause closes — the last decision, a cancel, an expiry that rejects — for every ask mix and every format:
 * the continuation passes the strict check once the agent appends the dispatch calls' results (§9, §10), and the
 * outcome, dispatch and failure marks are what the closing says.
 */

type Mix = { name: string; asks: (spec: TranscriptSpec) => AskInput[] };

const MIXES: Mix[] = [
  { name: 'one answer ask', asks: (spec) => [{ toolCallId: addressOf(spec, 0) }] },
  {
    name: 'two approval asks',
    asks: (spec) => [
      { toolCallId: addressOf(spec, 0), kind: 'approval' },
      { toolCallId: addressOf(spec, 2), kind: 'approval' },
    ],
  },
  {
    name: 'an answer ask and two approval asks',
    asks: (spec) => [
      { toolCallId: addressOf(spec, 1) },
      { toolCallId: addressOf(spec, 0), kind: 'approval' },
      { toolCallId: addressOf(spec, 2), kind: 'approval', editable: false },
    ],
  },
];

const CLOSINGS = ['cancel', 'expiry', 'decisions'] as const;

/** Closes a pause of `asks` the given way; approval asks decided before a cancel or expiry are approved. */
async function close(
  store: CheckpointStore,
  advance: (seconds: number) => void,
  key: { tenant: string; runId: string; interruptId: string },
  asks: AskInput[],
  how: (typeof CLOSINGS)[number],
): Promise<ResumeResult> {
  const [first, ...rest] = asks;
  const approve = (ask: AskInput) =>
    ask.kind === 'approval'
      ? { toolCallId: ask.toolCallId, decision: 'approve' as const }
      : { toolCallId: ask.toolCallId, answer: 'yes' };
  if (first !== undefined && asks.length > 1) await store.decide({ ...key, decisions: [approve(first)] });
  if (how === 'cancel') return store.cancel({ ...key, reason: 'Withdrawn' });
  if (how === 'expiry') {
    advance(61);
    const swept = await store.closeDue();
    const closed = swept.closed.find((c) => c.interruptId === key.interruptId);
    if (closed === undefined) throw new Error('the sweep did not close the pause');
    return closed;
  }
  const decisions = rest.map((ask, index) =>
    ask.kind === 'approval' && index % 2 === 0
      ? { toolCallId: ask.toolCallId, decision: 'edit' as const, args: { edited: true } }
      : ask.kind === 'approval'
        ? { toolCallId: ask.toolCallId, decision: 'reject' as const, reason: 'No' }
        : approve(ask),
  );
  const result = await store.decide({ ...key, decisions: asks.length > 1 ? decisions : [approve(first as AskInput)] });
  if (result.kind !== 'closed') throw new Error('the last decision did not close the pause');
  const { kind: _, ...closed } = result;
  return closed;
}

describe.each(fixtures.map((fixture) => [fixture.format, fixture] as const))('closings in %s', (_, fixture) => {
  const spec = { ...threeCallSpec(), ...(fixture.format === 'gemini' ? { idless: true } : {}) };
  const cases = MIXES.flatMap((mix) => CLOSINGS.map((how) => [mix.name, how, mix] as const));

  it.each(cases)(
    '%s, closed by %s: passes the strict check once the dispatch results are appended',
    async (__, how, mix) => {
      const clock = testClock();
      const store = createMemoryCheckpointStore({ clock: clock.now });
      const messages = fixture.render(spec);
      const asks = mix.asks(spec);
      const runId = `run-${fixture.format}`;
      const { interruptId } = await store.pause({
        tenant: 'acme',
        runId,
        format: fixture.format,
        messages,
        asks,
        expiresInSeconds: 60,
        onExpiry: 'reject',
      });
      const closed = await close(store, clock.advance, { tenant: 'acme', runId, interruptId }, asks, how);
      expect(closed.outcome).toBe(how === 'cancel' ? 'cancelled' : how === 'expiry' ? 'expired' : 'resumed');
      if (how === 'cancel') expect(closed.dispatch).toEqual([]);
      // Every message up to the paused round's user message is the transcript's own.
      const upTo = messages.findLastIndex((message) => JSON.stringify(message).includes(spec.user)) + 1;
      expect(upTo).toBeGreaterThan(0);
      expect(JSON.stringify(closed.messages.slice(0, upTo))).toBe(JSON.stringify(messages.slice(0, upTo)));
      const missing = checkTranscript(fixture.format, closed.messages);
      if (closed.dispatch.length === 0) expect(missing).toEqual([]);
      else expect(new Set(missing.map((violation) => violation.rule))).toEqual(new Set(['missing-result']));
      const completed = appendResults(
        fixture.format,
        closed.messages,
        closed.dispatch.map((call) => ({ toolCallId: call.toolCallId, output: { ran: call.name, with: call.args } })),
      );
      expect(checkTranscript(fixture.format, completed)).toEqual([]);
      // Every call of the round now has one result, in call order.
      const results = fixture.roundResults(completed, spec);
      expect(results.map((result) => result.id)).toEqual(spec.paused.calls.map((__, k) => addressOf(spec, k)));
      if (fixture.marksFailures) {
        const dispatched = new Set(closed.dispatch.map((call) => call.toolCallId));
        // Answers stand; whatever else is not dispatched was rejected or not dispatched: a failure.
        const decidedFirst = asks.length > 1 ? asks[0] : undefined;
        const answered = new Set(
          asks
            .filter((ask) => ask.kind !== 'approval' && (how === 'decisions' || ask === decidedFirst))
            .map((ask) => ask.toolCallId),
        );
        for (const result of results) {
          expect(result.failed).toBe(!dispatched.has(result.id) && !answered.has(result.id));
        }
      }
    },
  );
});
