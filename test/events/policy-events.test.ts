import { describe, expect, it } from 'vitest';
import type { PauseChange } from '../../functions/checkpoints/checkpoint-service.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { lifecycleEventsOf } from '../../functions/events/lifecycle.ts';
import { policyTranscript, SPEC_ARGS, SPEC_POLICIES } from '../../functions/testing/index.ts';
import { engineOf, VERSION } from '../policies/support.ts';

/** The lifecycle events (§11) of pauses the deployment's policies judged at their creation (§17). */
async function paused(calls: ReadonlyArray<readonly [string, string, unknown]>, mode?: 'shadow') {
  const engine = engineOf(SPEC_POLICIES, mode === undefined ? {} : { mode }, SPEC_ARGS);
  const changes: PauseChange[] = [];
  const store = createMemoryCheckpointStore({
    onChange: (change) => changes.push(change),
    policies: async () => engine,
  });
  await store.pause({
    tenant: 'acme',
    runId: 'run-events',
    format: 'openai-chat',
    messages: policyTranscript(calls),
    asks: calls.map(([toolCallId]) => ({ toolCallId, kind: 'approval' })),
  });
  expect(changes).toHaveLength(1);
  return lifecycleEventsOf(changes[0] as PauseChange);
}

const SMALL = ['call_small', 'refund_order', { orderId: 'A-1', amount: 20 }] as const;
const LARGE = ['call_large', 'refund_order', { orderId: 'A-2', amount: 500 }] as const;
const DELETE = ['call_delete', 'delete_customer', { orderId: 'A-3' }] as const;

describe('the events of a pause the policies judged', () => {
  it('decided whole: Pause Decided and Pause Resumed by the policy, never Pause Created, and no reason', async () => {
    const events = await paused([SMALL, DELETE]);
    expect(events.map((event) => event.type)).toEqual(['Pause Decided', 'Pause Resumed']);
    expect(events[0]?.detail.asks.map((ask) => ask.policy)).toEqual([
      { outcome: 'approve', policyIds: ['refunds-small'], version: VERSION },
      { outcome: 'reject', policyIds: ['no-agent-deletes'], version: VERSION },
    ]);
    // The policy set's version names what decided (§19).
    expect(events[1]?.detail.by).toEqual({
      kind: 'service',
      subject: 'policy:no-agent-deletes',
      via: 'policy',
      policyVersion: VERSION,
    });
    expect(JSON.stringify(events)).not.toContain('Agents never delete');
  });

  it('decided in part: Pause Created, then Pause Decided for what the policies decided', async () => {
    const events = await paused([SMALL, LARGE]);
    expect(events.map((event) => event.type)).toEqual(['Pause Created', 'Pause Decided']);
    expect(events[0]?.detail).toMatchObject({ decided: ['call_small'], pending: ['call_large'] });
    expect(events[0]?.detail.asks[1]?.policy).toEqual({
      outcome: 'ask',
      policyIds: ['finance-over-100'],
      version: VERSION,
    });
  });

  it('in shadow mode: Pause Created alone, with what each policy would have done', async () => {
    const events = await paused([SMALL, DELETE], 'shadow');
    expect(events.map((event) => event.type)).toEqual(['Pause Created']);
    expect(events[0]?.detail.asks.map((ask) => ask.policy)).toEqual([
      { outcome: 'approve', policyIds: ['refunds-small'], shadow: true, version: VERSION },
      { outcome: 'reject', policyIds: ['no-agent-deletes'], shadow: true, version: VERSION },
    ]);
    expect(events[0]?.detail.pending).toEqual(['call_small', 'call_delete']);
  });
});
