import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { PauseChange } from '../../functions/checkpoints/checkpoint-service.ts';
import { pauseItem } from '../../functions/checkpoints/dynamodb/items.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { createLifecycleEmitter, createWebhookSink, putEventsEntries } from '../../functions/events/emitter.ts';
import { createEventBridgeSink } from '../../functions/events/eventbridge-sink.ts';
import { type LifecycleEvent, lifecycleEventsOf } from '../../functions/events/lifecycle.ts';
import { changeOf, createLifecycleStreamHandler } from '../../functions/handlers/stream.ts';
import { FullBatchFailureError } from '../../functions/handlers/telemetry.ts';
import { createAnswerLinks } from '../../functions/links/answer-links.ts';
import { approvalTranscript } from '../../functions/testing/service-spec.ts';
import { testClock } from '../checkpoints/support.ts';
import { lambdaContext } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

/** Runs a pause through every change the lifecycle knows, collecting the store's changes. */
async function lifeOfAPause() {
  const clock = testClock();
  const changes: PauseChange[] = [];
  const store = createMemoryCheckpointStore({ clock: clock.now, onChange: (change) => changes.push(change) });
  const runId = 'run-life';
  const asks = [
    { toolCallId: 'call_ask', kind: 'answer' as const, prompt: 'Full or partial?' },
    { toolCallId: 'call_refund', kind: 'approval' as const, prompt: 'Refund EUR 120?' },
  ];
  const { interruptId } = await store.pause({
    tenant: 'acme',
    runId,
    format: 'openai-chat',
    messages: approvalTranscript(),
    asks,
    expiresInSeconds: 100,
    remindBeforeSeconds: 50,
  });
  const key = { tenant: 'acme', runId, interruptId };
  await store.decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'a secret answer' }] });
  clock.advance(50);
  await store.closeDue();
  await store.decide({
    ...key,
    decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 99 } }],
  });
  return { changes, interruptId };
}

describe('lifecycle events', () => {
  it('names each committed change: created, decided, reminder, resumed', async () => {
    const { changes } = await lifeOfAPause();
    expect(changes.map((change) => lifecycleEventsOf(change)[0]?.type)).toEqual([
      'Pause Created',
      'Pause Decided',
      'Pause Reminder',
      'Pause Resumed',
    ]);
  });

  it('says who, which pause, its status and asks, and never an answer, a reason, typed args or the transcript', async () => {
    const { changes, interruptId } = await lifeOfAPause();
    const resumed = lifecycleEventsOf(changes.at(-1) as PauseChange)[0] as LifecycleEvent;
    expect(resumed.detail).toEqual({
      tenant: 'acme',
      runId: 'run-life',
      interruptId,
      status: 'resumed',
      asks: [
        { toolCallId: 'call_ask', name: 'ask_human', kind: 'answer', prompt: 'Full or partial?' },
        { toolCallId: 'call_refund', name: 'refund_order', kind: 'approval', prompt: 'Refund EUR 120?' },
      ],
      decided: ['call_ask', 'call_refund'],
      pending: [],
      expiresAt: '2026-01-01T00:01:40.000Z',
      outcome: 'resumed',
      continuationId: expect.any(String),
      // The library's principal: this pause was decided through the store with no `by` (§13).
      by: { kind: 'service', subject: 'library', via: 'library' },
    });
    const text = JSON.stringify(changes.map((change) => lifecycleEventsOf(change)[0]));
    for (const secret of ['a secret answer', '"amount":99', 'Refund order A-1042 and tell', 'A-1042']) {
      expect(text).not.toContain(secret);
    }
  });

  it('names cancels and expiries, and a fail-expiry too', async () => {
    const clock = testClock();
    const changes: PauseChange[] = [];
    const store = createMemoryCheckpointStore({ clock: clock.now, onChange: (change) => changes.push(change) });
    const base = {
      tenant: 'acme',
      format: 'openai-chat' as const,
      messages: approvalTranscript(),
      toolCallId: 'call_ask',
    };
    const cancelled = await store.pause({ ...base, runId: 'c' });
    await store.cancel({ tenant: 'acme', runId: 'c', interruptId: cancelled.interruptId });
    await store.pause({ ...base, runId: 'f', expiresInSeconds: 5 });
    await store.pause({ ...base, runId: 'r', expiresInSeconds: 5, onExpiry: 'reject' });
    clock.advance(5);
    await store.closeDue();
    const types = changes.map((change) => [change.after.runId, lifecycleEventsOf(change)[0]?.type]);
    expect(types).toEqual(
      expect.arrayContaining([
        ['c', 'Pause Cancelled'],
        ['f', 'Pause Expired'],
        ['r', 'Pause Expired'],
      ]),
    );
  });
});

describe('the lifecycle emitter', () => {
  const servers: Array<{ close(): void }> = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  /** A local webhook receiver that fails its first `failures` requests with 503. */
  async function receiver(failures = 0) {
    const received: Array<{ body: Record<string, unknown>; contentType: string | undefined }> = [];
    let refused = 0;
    const server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (refused < failures) {
          refused++;
          response.writeHead(503).end();
          return;
        }
        received.push({
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          contentType: request.headers['content-type'],
        });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
  }

  it('POSTs each event as JSON to the webhook, retrying a refusal, with an answer link on Pause Created', async () => {
    const hook = await receiver(2);
    const { logger, logged } = testTelemetry();
    const links = createAnswerLinks(new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!'));
    const emitter = createLifecycleEmitter({
      sinks: [createWebhookSink(hook.url, { backoffMs: 5 })],
      log: logger,
      links,
      inboxUrl: 'http://127.0.0.1:3000/inbox',
    });
    const { changes } = await lifeOfAPause();
    await emitter.emitChanges(changes);
    expect(hook.received.map((r) => r.body['detail-type'])).toEqual([
      'Pause Created',
      'Pause Decided',
      'Pause Reminder',
      'Pause Resumed',
    ]);
    expect(hook.received[0]).toMatchObject({
      contentType: 'application/json',
      body: { source: 'handback', detail: { answerUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:3000\/inbox#/) } },
    });
    expect(hook.received[3]?.body.detail).not.toHaveProperty('answerUrl');
    // The answer link is a credential: the log never carries it.
    expect(JSON.stringify(logged.info.mock.calls)).not.toContain('inbox#');
  });

  it('never fails the change it observes when the webhook is down: it logs and counts', async () => {
    const { logger, logged } = testTelemetry();
    const failures: number[] = [];
    const emitter = createLifecycleEmitter({
      sinks: [createWebhookSink('http://127.0.0.1:9/down', { attempts: 2, backoffMs: 1, timeoutMs: 500 })],
      log: logger,
      countFailure: (count) => failures.push(count),
    });
    const { changes } = await lifeOfAPause();
    expect(() => emitter.observe(changes[0] as PauseChange)).not.toThrow();
    await expect.poll(() => failures).toEqual([1]);
    expect(logged.error).toHaveBeenCalledWith('Lifecycle events were not delivered', expect.any(Object));
  });

  it('makes PutEvents entries with source handback and the event as detail-type', async () => {
    const { changes } = await lifeOfAPause();
    const event = lifecycleEventsOf(changes[0] as PauseChange)[0] as LifecycleEvent;
    expect(putEventsEntries([event], 'handback-events')).toEqual([
      {
        EventBusName: 'handback-events',
        Source: 'handback',
        DetailType: 'Pause Created',
        Detail: JSON.stringify(event.detail),
      },
    ]);
  });
});

describe('the lifecycle stream handler', () => {
  const eventBridge = mockClient(EventBridgeClient);
  afterEach(() => eventBridge.reset());

  /** A DynamoDB stream record of a change, with the images as the table stores them. */
  function streamRecord(change: PauseChange, sequence: string): DynamoDBRecord {
    const image = (record: PauseChange['after']) => marshall(pauseItem(record, 1), { removeUndefinedValues: true });
    return {
      eventID: sequence,
      eventName: change.before === undefined ? 'INSERT' : 'MODIFY',
      eventSource: 'aws:dynamodb',
      dynamodb: {
        SequenceNumber: sequence,
        NewImage: image(change.after) as never,
        ...(change.before === undefined ? {} : { OldImage: image(change.before) as never }),
      },
    };
  }

  it('reads the change a record carries, and steps over transcript parts', async () => {
    const { changes } = await lifeOfAPause();
    const decided = changes[1] as PauseChange;
    expect(changeOf(streamRecord(decided, '1'))).toEqual(decided);
    expect(
      changeOf({ dynamodb: { NewImage: marshall({ kind: 'part', data: new Uint8Array([1]) }) as never } }),
    ).toBeUndefined();
  });

  it('puts the batch’s events on the bus in one call, and reports only the record whose event was refused', async () => {
    const { changes } = await lifeOfAPause();
    const client = new EventBridgeClient({ region: 'eu-west-1' });
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 1, Entries: [{ EventId: '1' }, { ErrorCode: 'InternalFailure' }] })
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    const telemetry = testTelemetry();
    const handler = createLifecycleStreamHandler({
      emitter: createLifecycleEmitter({
        sinks: [createEventBridgeSink(client, 'bus', { attempts: 2, backoffMs: 0 })],
        log: telemetry.logger,
      }),
      logger: telemetry.logger,
      metrics: telemetry.metrics,
    });
    const response = await handler(
      { Records: [streamRecord(changes[0] as PauseChange, '100'), streamRecord(changes[1] as PauseChange, '101')] },
      lambdaContext(),
    );
    const entries = (types: string[]) => ({
      Entries: types.map((type) =>
        expect.objectContaining({ EventBusName: 'bus', Source: 'handback', DetailType: type }),
      ),
    });
    // Both records' events in one call; the refused one alone again; then it is the stream's to retry.
    expect(eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input)).toEqual([
      entries(['Pause Created', 'Pause Decided']),
      entries(['Pause Decided']),
    ]);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '101' }] });
    expect(telemetry.metricNames()).toContain('EventEmitFailures');
  });

  it('puts 25 records’ events in three calls of 10, 10 and 5, and reports nothing', async () => {
    const { changes } = await lifeOfAPause();
    eventBridge.on(PutEventsCommand).callsFake((input) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map((_: unknown, i: number) => ({ EventId: String(i) })),
    }));
    const telemetry = testTelemetry();
    const handler = createLifecycleStreamHandler({
      emitter: createLifecycleEmitter({
        sinks: [createEventBridgeSink(new EventBridgeClient({ region: 'eu-west-1' }), 'bus')],
        log: telemetry.logger,
      }),
      logger: telemetry.logger,
      metrics: telemetry.metrics,
    });
    const records = Array.from({ length: 25 }, (_, i) => streamRecord(changes[i % 4] as PauseChange, String(200 + i)));
    const response = await handler({ Records: records }, lambdaContext());
    const sent = eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input);
    expect(sent.map((input) => input.Entries?.map((entry) => entry.DetailType))).toEqual([
      records.slice(0, 10).map((_, i) => lifecycleEventsOf(changes[i % 4] as PauseChange)[0]?.type),
      records.slice(10, 20).map((_, i) => lifecycleEventsOf(changes[(10 + i) % 4] as PauseChange)[0]?.type),
      records.slice(20).map((_, i) => lifecycleEventsOf(changes[(20 + i) % 4] as PauseChange)[0]?.type),
    ]);
    expect(response).toEqual({ batchItemFailures: [] });
    expect(telemetry.metricNames()).not.toContain('EventEmitFailures');
  });

  it('fails the invocation when no record’s events went through, so the mapping halves and retries the batch', async () => {
    const { changes } = await lifeOfAPause();
    eventBridge.on(PutEventsCommand).rejects(new Error('socket hang up'));
    const telemetry = testTelemetry();
    const handler = createLifecycleStreamHandler({
      emitter: createLifecycleEmitter({
        sinks: [createEventBridgeSink(new EventBridgeClient({ region: 'eu-west-1' }), 'bus')],
        log: telemetry.logger,
      }),
      logger: telemetry.logger,
      metrics: telemetry.metrics,
    });
    const records = changes.map((change, i) => streamRecord(change, String(300 + i)));
    await expect(handler({ Records: records }, lambdaContext())).rejects.toBeInstanceOf(FullBatchFailureError);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(1);
  });

  it('counts the asks each change settled once its events are out (§21), and none of a record it reports', async () => {
    const { changes } = await lifeOfAPause();
    const client = new EventBridgeClient({ region: 'eu-west-1' });
    const handlerWith = (telemetry: ReturnType<typeof testTelemetry>) =>
      createLifecycleStreamHandler({
        emitter: createLifecycleEmitter({ sinks: [createEventBridgeSink(client, 'bus')], log: telemetry.logger }),
        logger: telemetry.logger,
        metrics: telemetry.metrics,
      });
    const records = changes.map((change, i) => streamRecord(change, String(200 + i)));
    const settled = (telemetry: ReturnType<typeof testTelemetry>) =>
      telemetry.addMetric.mock.calls
        .filter(([name]) => name === 'TimeToDecision')
        .map(([, unit, value, dimensions]) => ({ unit, value, ...dimensions?.values }));
    eventBridge.on(PutEventsCommand).callsFake((input) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map((_: unknown, i: number) => ({ EventId: String(i) })),
    }));
    const delivered = testTelemetry();
    expect(await handlerWith(delivered)({ Records: records }, lambdaContext())).toEqual({ batchItemFailures: [] });
    // The answer at once, through the library (no principal); the edit after the 50 s the clock moved.
    expect(settled(delivered)).toEqual([
      { unit: 'Milliseconds', value: 0, tool: 'ask_human', outcome: 'approve', via: 'library' },
      { unit: 'Milliseconds', value: 50_000, tool: 'refund_order', outcome: 'edit', via: 'library' },
    ]);
    expect(delivered.metricNames().filter((name) => name === 'Decisions')).toHaveLength(2);
    eventBridge.reset();
    eventBridge.on(PutEventsCommand).callsFake((input) => ({
      FailedEntryCount: input.Entries.length,
      Entries: input.Entries.map(() => ({ ErrorCode: 'InternalFailure', ErrorMessage: 'refused' })),
    }));
    const refused = testTelemetry();
    // Every record refused: the whole batch is retried, and nothing was counted.
    await expect(handlerWith(refused)({ Records: records }, lambdaContext())).rejects.toHaveProperty(
      'name',
      'FullBatchFailureError',
    );
    expect(settled(refused)).toEqual([]);
  });
});
