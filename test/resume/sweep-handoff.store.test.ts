import { describe, expect, it } from 'vitest';
import type { ResumeResult } from '../../functions/checkpoints/checkpoint-store.ts';
import { HandoffFailedError } from '../../functions/errors.ts';
import type { Handoff } from '../../functions/handoff/handoff.ts';
import { sweepDue } from '../../functions/resume/resume.ts';
import { pauseInput, testClock } from '../checkpoints/support.ts';
import { useStoreTable } from '../handlers/store.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

/**
 * §6 and §10 together: a pause the sweep closes is handed off at least once, even when its target refuses the pointer
 * at that moment — the closing stays due until its hand-off is acknowledged, and a later tick delivers it again.
 */

const table = useStoreTable();

/** A hand-off that refuses the first `refusals` deliveries, then takes every one, recording what it took. */
function flakyHandoff(refusals: number): Handoff & { delivered: ResumeResult[]; attempts: number } {
  const handoff = {
    delivered: [] as ResumeResult[],
    attempts: 0,
    async deliver(result: ResumeResult) {
      handoff.attempts++;
      if (handoff.attempts <= refusals) throw new HandoffFailedError('sqs', result.continuationId);
      handoff.delivered.push(result);
    },
  };
  return handoff;
}

describe('the sweep’s hand-off', () => {
  it('delivers a closing again on a later tick when its target refused it, then stops once delivered', async () => {
    const clock = testClock();
    const store = table.store(clock.now);
    const input = pauseInput({ expiresInSeconds: 60, onExpiry: 'reject' });
    const { interruptId } = await store.pause(input);
    const handoff = flakyHandoff(1);
    const deps = { store, handoff, ...testTelemetry() };

    clock.advance(61);
    const first = await sweepDue(deps);
    expect(first.closed).toHaveLength(1);
    expect(handoff.delivered).toEqual([]);
    const { continuationId } = first.closed[0] as ResumeResult;

    // Not yet due again: nothing happens within the retry interval.
    expect((await sweepDue(deps)).closed).toEqual([]);

    clock.advance(61);
    const second = await sweepDue(deps);
    expect(second.closed.map((closed) => [closed.continuationId, closed.replayed])).toEqual([[continuationId, true]]);
    expect(handoff.delivered.map((result) => result.continuationId)).toEqual([continuationId]);
    expect(handoff.delivered[0]?.outcome).toBe('expired');

    // Acknowledged: no later tick delivers it again, and the pause shows its closing as it was.
    clock.advance(3600);
    expect((await sweepDue(deps)).closed).toEqual([]);
    expect(handoff.attempts).toBe(2);
    const view = await store.getPause({ tenant: input.tenant, runId: input.runId, interruptId });
    expect(view).toMatchObject({ status: 'expired', outcome: 'expired', continuationId });
  });

  it('keeps a late decision refused while the hand-off of the expiry is still being retried', async () => {
    const clock = testClock();
    const store = table.store(clock.now);
    const input = pauseInput({ expiresInSeconds: 60, onExpiry: 'reject' });
    const { interruptId } = await store.pause(input);
    const deps = { store, handoff: flakyHandoff(5), ...testTelemetry() };
    clock.advance(61);
    await sweepDue(deps);
    await expect(
      store.resume({ tenant: input.tenant, runId: input.runId, interruptId, answer: 'late' }),
    ).rejects.toMatchObject({ code: 'pause_expired' });
  });
});
