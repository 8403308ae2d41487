import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { PauseChange } from '../../functions/checkpoints/checkpoint-service.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { createLifecycleEmitter } from '../../functions/events/emitter.ts';
import { createEventBridgeSink } from '../../functions/events/eventbridge-sink.ts';
import { type LifecycleEvent, lifecycleEventsOf } from '../../functions/events/lifecycle.ts';
import { approvalTranscript } from '../../functions/testing/service-spec.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

const eventBridge = mockClient(EventBridgeClient);
afterEach(() => eventBridge.reset());
const client = new EventBridgeClient({ region: 'eu-west-1' });

function event(n: number): LifecycleEvent {
  return {
    type: 'Pause Created',
    detail: {
      tenant: 'acme',
      runId: `run-${n}`,
      interruptId: `1.1.${n}`,
      status: 'paused',
      asks: [{ toolCallId: 'call_ask', name: 'ask_human', kind: 'answer', prompt: null }],
      decided: [],
      pending: ['call_ask'],
      expiresAt: '2026-01-08T00:00:00.000Z',
    },
  };
}

const entry = (e: LifecycleEvent) => ({
  EventBusName: 'handback-events',
  Source: 'handback',
  DetailType: e.type,
  Detail: JSON.stringify(e.detail),
});

describe('the EventBridge sink', () => {
  it('puts the events on the bus, ten entries to a call, in order', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    const events = Array.from({ length: 23 }, (_, n) => event(n));
    await createEventBridgeSink(client, 'handback-events').deliver(events);
    const inputs = eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input);
    expect(inputs).toEqual([
      { Entries: events.slice(0, 10).map(entry) },
      { Entries: events.slice(10, 20).map(entry) },
      { Entries: events.slice(20).map(entry) },
    ]);
  });

  it('fails the delivery when any entry failed, naming the error, and sends no further call', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [{ EventId: 'a' }, { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }],
      })
      .resolves({ FailedEntryCount: 0, Entries: [] });
    const events = Array.from({ length: 12 }, (_, n) => event(n));
    await expect(createEventBridgeSink(client, 'handback-events').deliver(events)).rejects.toThrow(
      'PutEvents refused 1 of 10 entries: ThrottlingException (Rate exceeded)',
    );
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(1);
  });

  it('sends nothing for no events', async () => {
    await createEventBridgeSink(client, 'handback-events').deliver([]);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it('is one sink of the emitter: a refused call is logged, counted and thrown for the stream to retry', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    const { logger, logged } = testTelemetry();
    const failures: number[] = [];
    const emitter = createLifecycleEmitter({
      sinks: [createEventBridgeSink(client, 'handback-events')],
      log: logger,
      countFailure: (count) => failures.push(count),
    });
    const changes: PauseChange[] = [];
    const store = createMemoryCheckpointStore({ onChange: (change) => changes.push(change) });
    await store.pause({
      tenant: 'acme',
      runId: 'run-sink',
      format: 'openai-chat',
      messages: approvalTranscript(),
      toolCallId: 'call_ask',
    });
    await expect(emitter.emitChanges(changes)).rejects.toThrow(/InternalFailure/);
    expect(failures).toEqual([1]);
    expect(logged.error).toHaveBeenCalledWith('Lifecycle events were not delivered', expect.any(Object));
  });
});

describe('who an event says made the change', () => {
  const ada = { kind: 'person', subject: 'ada', email: 'ada@example.com', name: 'Ada', via: 'api' } as const;
  const bot = { kind: 'agent', subject: 'agent-1', via: 'api' } as const;
  const sweep = { kind: 'service', subject: 'service:sweep', via: 'sweep' } as const;

  /** A pause's changes, with principals written on the records as the service records them (by name). */
  async function changesWithPrincipals() {
    const changes: PauseChange[] = [];
    const store = createMemoryCheckpointStore({ onChange: (change) => changes.push(change) });
    const { interruptId } = await store.pause({
      tenant: 'acme',
      runId: 'run-by',
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: [
        { toolCallId: 'call_ask', kind: 'answer', prompt: 'Full or partial?' },
        { toolCallId: 'call_refund', kind: 'approval', prompt: 'Refund?' },
      ],
    });
    const key = { tenant: 'acme', runId: 'run-by', interruptId };
    await store.decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'a secret answer' }] });
    await store.cancel({ ...key, reason: 'a secret reason' });
    const [created, decided, cancelled] = changes as [PauseChange, PauseChange, PauseChange];
    const withFields = (record: PauseChange['after'], fields: Record<string, unknown>) =>
      Object.assign(structuredClone(record), fields);
    const decision = (record: PauseChange['after'], i: number, by: unknown) =>
      withFields(record, {
        decisions: record.decisions.map((d, j) => (j === i && d !== undefined ? { ...d, by } : d)),
      });
    return {
      created: { after: withFields(created.after, { pausedBy: bot }) },
      decided: { before: created.after, after: decision(decided.after, 0, { ...ada, groups: ['finance'] }) },
      cancelled: {
        before: decided.after,
        after: withFields(cancelled.after, { closing: { ...cancelled.after.closing, by: sweep } }),
      },
      legacy: decided,
    };
  }

  it.each([
    ['Pause Created', 'created', bot],
    ['Pause Decided', 'decided', ada],
    ['Pause Cancelled', 'cancelled', sweep],
  ] as const)('%s carries the principal of the change, and only its own fields', async (type, which, by) => {
    const changes = await changesWithPrincipals();
    const made = lifecycleEventsOf(changes[which] as PauseChange)[0] as LifecycleEvent;
    expect(made.type).toBe(type);
    expect(made.detail.by).toEqual(by);
    const text = JSON.stringify(made);
    for (const secret of ['a secret answer', 'a secret reason', 'finance']) expect(text).not.toContain(secret);
  });

  it('carries no by for a record written before principals (no by on its decisions or closing)', async () => {
    const { legacy } = await changesWithPrincipals();
    const strip = (record: PauseChange['after']) => ({
      ...record,
      decisions: record.decisions.map((decision) =>
        decision === undefined ? undefined : { ...decision, by: undefined },
      ),
    });
    const old = { before: legacy.before && strip(legacy.before), after: strip(legacy.after) } as PauseChange;
    expect(lifecycleEventsOf(old)[0]?.detail).not.toHaveProperty('by');
  });

  it('carries no by when the recorded principal is not one', async () => {
    const { created } = await changesWithPrincipals();
    const odd = { after: Object.assign(structuredClone(created.after), { pausedBy: { kind: 'robot', subject: 1 } }) };
    expect(lifecycleEventsOf(odd)[0]?.detail).not.toHaveProperty('by');
  });
});
