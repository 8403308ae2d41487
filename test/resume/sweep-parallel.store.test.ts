import { describe, expect, it } from 'vitest';
import type { ResumeResult } from '../../functions/checkpoints/checkpoint-store.ts';
import type { Handoff } from '../../functions/handoff/handoff.ts';
import { sweepDue } from '../../functions/resume/resume.ts';
import { LIMITS } from '../../functions/vocabulary.ts';
import { pauseInput, testClock } from '../checkpoints/support.ts';
import { useStoreTable } from '../handlers/store.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

/**
 * §23 with §10: the sweep acts on many due pauses at once, each closing one conditional write of its own pause. Raced
 * by people deciding the same pauses and by a second sweeper, each pause is closed once — by its person or by one
 * sweep — and every closing the sweep made is handed off once; nothing is lost and nothing is closed twice.
 */

const table = useStoreTable();

/** A hand-off recording each pointer it takes; `first` settles when it takes its first. */
function recordingHandoff(): Handoff & { delivered: ResumeResult[]; first: Promise<void> } {
  let took = () => {};
  const handoff = {
    delivered: [] as ResumeResult[],
    first: new Promise<void>((resolve) => {
      took = resolve;
    }),
    async deliver(result: ResumeResult) {
      handoff.delivered.push(result);
      took();
    },
  };
  return handoff;
}

describe('the sweep’s parallel closings', () => {
  it('closes each pause once while people decide half of them and a second sweeper runs', async () => {
    const pauses = LIMITS.sweepParallel * 3;
    const clock = testClock();
    const store = table.store(clock.now);
    const inputs = Array.from({ length: pauses }, (_, i) =>
      pauseInput({ tenant: 'acme-sweep', runId: `sweep-race-${i}`, expiresInSeconds: 60, onExpiry: 'reject' }),
    );
    const made = await Promise.all(inputs.map((input) => store.pause(input)));

    // People decide on a clock a second before expiry; the sweepers run on one a second after it.
    const before = testClock();
    before.advance(59);
    const person = table.store(before.now);
    clock.advance(61);
    const handoff = recordingHandoff();
    const deps = () => ({ store: table.store(clock.now), handoff, ...testTelemetry() });

    // People decide once the sweeps have closed a first pause, so they meet the sweeps' closings midway; from the
    // last pause back, against the sweeps' due order.
    const sweeps = Promise.all([sweepDue(deps()), sweepDue(deps())]);
    await handoff.first;
    const people: Array<{ won: true; result: ResumeResult } | { won: false; code?: string } | undefined> = [];
    const decide = async (i: number) => {
      const input = inputs[i] as (typeof inputs)[number];
      const interruptId = made[i]?.interruptId ?? '';
      people[i] = await person.resume({ tenant: input.tenant, runId: input.runId, interruptId, answer: 'yes' }).then(
        (result) => ({ won: true as const, result }),
        (error: { code?: string }) => ({ won: false as const, code: error.code }),
      );
    };
    const evens = inputs.flatMap((_, i) => (i % 2 === 0 ? [i] : [])).reverse();
    await Promise.all(evens.map(decide));
    const [first, second] = await sweeps;
    const swept = [...first.closed, ...second.closed].filter((closed) => !closed.replayed);
    const sweptRuns = swept.map((closed) => closed.runId).sort();
    expect(new Set(sweptRuns).size).toBe(sweptRuns.length);
    // Every closing the sweeps made was handed off once, and only those.
    expect(handoff.delivered.map((result) => result.runId).sort()).toEqual(sweptRuns);

    for (const [i, input] of inputs.entries()) {
      const view = await store.getPause({
        tenant: input.tenant,
        runId: input.runId,
        interruptId: made[i]?.interruptId ?? '',
      });
      const attempt = people[i];
      const byPerson = attempt?.won === true;
      const bySweep = sweptRuns.includes(input.runId);
      // One wins: the person's decision or the sweep's expiry, never both, never neither.
      expect([i, byPerson, bySweep]).toEqual([i, !bySweep, bySweep]);
      if (byPerson) {
        expect(view).toMatchObject({ status: 'resumed', continuationId: attempt.result.continuationId });
      } else {
        expect(view).toMatchObject({ status: 'expired', outcome: 'expired' });
        if (attempt !== undefined) expect(attempt.code).toBe('pause_expired');
      }
    }

    // Nothing is left due: a later sweep closes and hands off nothing more.
    clock.advance(3600);
    const later = await sweepDue(deps());
    expect([later.closed, later.expired]).toEqual([[], []]);
    expect(handoff.delivered).toHaveLength(swept.length);
  });
});
