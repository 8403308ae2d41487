import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { PauseChange } from '../../functions/checkpoints/checkpoint-service.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { createLifecycleEmitter, UndeliveredEventsError } from '../../functions/events/emitter.ts';
import { createEventBridgeSink, entryBytes } from '../../functions/events/eventbridge-sink.ts';
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

const sink = (options = {}) => createEventBridgeSink(client, 'handback-events', { backoffMs: 0, ...options });
const calls = () => eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input);
const ok = (n: number) => ({
  FailedEntryCount: 0,
  Entries: Array.from({ length: n }, (_, i) => ({ EventId: `e${i}` })),
});
/** A result of `n` entries where those at `refused` were throttled. */
const refusing = (n: number, refused: number[]) => ({
  FailedEntryCount: refused.length,
  Entries: Array.from({ length: n }, (_, i) =>
    refused.includes(i) ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' } : { EventId: `e${i}` },
  ),
});

describe('the EventBridge sink', () => {
  it('puts the events on the bus, ten entries to a call, in order', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input) => ok(input.Entries.length));
    const events = Array.from({ length: 23 }, (_, n) => event(n));
    await sink().deliver(events);
    expect(calls()).toEqual([
      { Entries: events.slice(0, 10).map(entry) },
      { Entries: events.slice(10, 20).map(entry) },
      { Entries: events.slice(20).map(entry) },
    ]);
  });

  it('keeps each call under 256 KB as EventBridge counts an entry (source, detail-type, detail)', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input) => ok(input.Entries.length));
    // Sixteen asks of 4,096 characters, the most a pause holds: about 70 KB of detail each.
    const big = (n: number): LifecycleEvent => {
      const e = event(n);
      e.detail.asks = Array.from({ length: 16 }, (_, i) => ({
        toolCallId: `call_${i}`,
        name: 'send_email',
        kind: 'approval',
        prompt: 'x'.repeat(4096),
      }));
      return e;
    };
    const events = Array.from({ length: 9 }, (_, n) => big(n));
    await sink().deliver(events);
    const sent = calls();
    expect(sent.map((input) => input.Entries?.length)).toEqual([3, 3, 3]);
    for (const input of sent) {
      expect((input.Entries ?? []).reduce((sum, e) => sum + entryBytes(e), 0)).toBeLessThan(256 * 1024);
    }
    expect(sent.flatMap((input) => input.Entries)).toEqual(events.map(entry));
  });

  it('sends the entries a call refused again, alone, and no entry that went through', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce(refusing(10, [3, 7]))
      .resolvesOnce(ok(2))
      .callsFake((input) => ok(input.Entries.length));
    const events = Array.from({ length: 12 }, (_, n) => event(n));
    await sink().deliver(events);
    const sent = calls();
    expect(sent).toHaveLength(3);
    // The two first calls go at once; the retry follows the refusal.
    expect(sent).toContainEqual({ Entries: events.slice(0, 10).map(entry) });
    expect(sent).toContainEqual({ Entries: events.slice(10).map(entry) });
    expect(sent).toContainEqual({ Entries: [events[3], events[7]].map((e) => entry(e as LifecycleEvent)) });
  });

  it('reports the entries still refused after its attempts by their index, having delivered the others', async () => {
    eventBridge
      .on(PutEventsCommand)
      .callsFake((input) =>
        input.Entries.length === 10 ? refusing(10, [3, 7]) : refusing(input.Entries.length, [0, 1]),
      );
    const events = Array.from({ length: 10 }, (_, n) => event(n));
    const error = await sink({ attempts: 3 })
      .deliver(events)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UndeliveredEventsError);
    expect((error as UndeliveredEventsError).undelivered).toEqual([3, 7]);
    expect((error as Error).message).toBe(
      'PutEvents did not take 2 of 10 entries (each tried up to 3 times): ThrottlingException (Rate exceeded)',
    );
    const again = { Entries: [events[3], events[7]].map((e) => entry(e as LifecycleEvent)) };
    expect(calls()).toEqual([{ Entries: events.map(entry) }, again, again]);
  });

  it('reports every entry of a call that failed whole, and still delivers the other calls', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input) => {
      if (input.Entries[0]?.Detail?.includes('run-10')) throw new Error('socket hang up');
      return ok(input.Entries.length);
    });
    const events = Array.from({ length: 13 }, (_, n) => event(n));
    const error = await sink()
      .deliver(events)
      .catch((e: unknown) => e);
    expect((error as UndeliveredEventsError).undelivered).toEqual([10, 11, 12]);
    expect(calls()).toHaveLength(2);
  });

  it('takes a refusal that names no entry for all of the call’s entries', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [] });
    const error = await sink()
      .deliver([event(1), event(2)])
      .catch((e: unknown) => e);
    expect((error as UndeliveredEventsError).undelivered).toEqual([0, 1]);
  });

  it('sends nothing for no events', async () => {
    await sink().deliver([]);
    expect(calls()).toHaveLength(0);
  });

  it('is one sink of the emitter: a refused call is logged, counted and thrown for the stream to retry', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    const { logger, logged } = testTelemetry();
    const failures: number[] = [];
    const emitter = createLifecycleEmitter({
      sinks: [sink({ attempts: 1 })],
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

describe('a batch of changes through the emitter (emitEach)', () => {
  /** Twelve pauses' `Pause Created` changes. */
  async function created(n: number): Promise<PauseChange[]> {
    const changes: PauseChange[] = [];
    const store = createMemoryCheckpointStore({ onChange: (change) => changes.push(change) });
    for (let i = 0; i < n; i++) {
      await store.pause({
        tenant: 'acme',
        runId: `run-batch-${i}`,
        format: 'openai-chat',
        messages: approvalTranscript(),
        toolCallId: 'call_ask',
      });
    }
    return changes;
  }

  it('puts twelve changes’ events in two calls, and answers the change whose event was never taken', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input) =>
      refusing(
        input.Entries.length,
        input.Entries.flatMap((e: { Detail?: string }, i: number) => (e.Detail?.includes('"run-batch-4"') ? [i] : [])),
      ),
    );
    const { logger } = testTelemetry();
    const failures: number[] = [];
    const emitter = createLifecycleEmitter({
      sinks: [sink({ attempts: 2 })],
      log: logger,
      countFailure: (count) => failures.push(count),
    });
    const changes = await created(12);
    expect(await emitter.emitEach(changes)).toEqual([4]);
    expect(calls().map((input) => input.Entries?.length)).toEqual([10, 2, 1]);
    expect(failures).toEqual([1]);
  });

  it('answers none when every event went through, counting nothing', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input) => ok(input.Entries.length));
    const failures: number[] = [];
    const emitter = createLifecycleEmitter({
      sinks: [sink()],
      log: testTelemetry().logger,
      countFailure: (count) => failures.push(count),
    });
    expect(await emitter.emitEach(await created(3))).toEqual([]);
    expect(calls()).toHaveLength(1);
    expect(failures).toEqual([]);
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
