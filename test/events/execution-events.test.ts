import { describe, expect, it } from 'vitest';
import type { PauseChange } from '../../functions/checkpoints/checkpoint-service.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/memory-store.ts';
import { lifecycleEventsOf } from '../../functions/events/lifecycle.ts';
import {
  EXECUTION_POLICIES,
  EXECUTION_POLICIES_LATER,
  policyTranscript,
  SPEC_ARGS,
} from '../../functions/testing/index.ts';
import type { Actor } from '../../functions/wire.ts';
import { engineOf } from '../policies/support.ts';

/** The lifecycle events (§11) of a dispatched call's execution (§19): its claim, its refusal, its end. */

const AGENT: Actor = { kind: 'agent', subject: 'support-bot', via: 'api' };
const ANN: Actor = { kind: 'person', subject: 'ann', via: 'api' };

/** A refund of `amount` approved by Ann, on a store whose policies are `policies` when the claim comes. */
async function approved(amount: number, policies = EXECUTION_POLICIES) {
  const changes: PauseChange[] = [];
  const engine = { current: engineOf(EXECUTION_POLICIES, {}, SPEC_ARGS) };
  const store = createMemoryCheckpointStore({
    onChange: (change) => changes.push(change),
    policies: async () => engine.current,
  });
  const runId = `run-${amount}`;
  const created = await store.pause({
    tenant: 'acme',
    runId,
    format: 'openai-chat',
    messages: policyTranscript([['call_refund', 'refund_order', { orderId: 'A-7', amount }]]),
    asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
    by: AGENT,
  });
  const closed = await store.decide({
    tenant: 'acme',
    runId,
    interruptId: created.interruptId,
    decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
    by: ANN,
  });
  if (closed.kind !== 'closed') throw new Error('not closed');
  engine.current = engineOf(policies, {}, SPEC_ARGS);
  const call = { tenant: 'acme', runId, continuationId: closed.continuationId, toolCallId: 'call_refund', by: AGENT };
  const eventsSince = (from: number) => changes.slice(from).flatMap(lifecycleEventsOf);
  return { store, call, changes, eventsSince };
}

describe('the events of an execution', () => {
  it('Execution Claimed, then Execution Finished: the call, its status and when, by the claimant', async () => {
    const { store, call, changes, eventsSince } = await approved(120);
    const from = changes.length;
    const { claimedAt } = await store.claimExecution(call);
    await store.finishExecution({ ...call, status: 'succeeded', detail: 'refund R-9' });
    const events = eventsSince(from);
    expect(events.map((event) => event.type)).toEqual(['Execution Claimed', 'Execution Finished']);
    expect(events[0]?.detail).toMatchObject({
      status: 'resumed',
      execution: { toolCallId: 'call_refund', status: 'claimed', at: claimedAt },
      by: { kind: 'agent', subject: 'support-bot', via: 'api' },
    });
    expect(events[1]?.detail.execution).toMatchObject({ toolCallId: 'call_refund', status: 'succeeded' });
    // An event never carries what the claimant said of the call.
    expect(JSON.stringify(events)).not.toContain('R-9');
  });

  it('a refused claim is Execution Finished with its code, never its reason', async () => {
    const { store, call, changes, eventsSince } = await approved(900, EXECUTION_POLICIES_LATER);
    const from = changes.length;
    await expect(store.claimExecution(call)).rejects.toMatchObject({ code: 'policy_forbids' });
    const events = eventsSince(from);
    expect(events.map((event) => event.type)).toEqual(['Execution Finished']);
    expect(events[0]?.detail.execution).toMatchObject({ status: 'refused', code: 'policy_forbids' });
    expect(JSON.stringify(events)).not.toContain('finance desk');
  });
});
