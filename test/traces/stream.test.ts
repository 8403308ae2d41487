import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PauseChange } from '../../functions/checkpoints/checkpoint-service.ts';
import { pauseItem } from '../../functions/checkpoints/dynamodb/items.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/memory-store.ts';
import { createLifecycleEmitter } from '../../functions/events/emitter.ts';
import { createLifecycleStreamHandler } from '../../functions/handlers/stream.ts';
import { createTraces } from '../../functions/traces/traces.ts';
import { lambdaContext, pausedTurn } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';

/**
 * §21 on AWS: the asks' spans come from the table's stream, whose function sees every committed change once (or
 * again, on a retry) as DynamoDB images; the pause's `traceparent` is read back from its item, and the invocation's
 * spans are sent before it returns.
 */

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

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

describe('the lifecycle stream handler with traces', () => {
  it('sends the spans of the asks each change settled before it returns, the same span again on a retry', async () => {
    const changes: PauseChange[] = [];
    const store = createMemoryCheckpointStore({ onChange: (change) => changes.push(change) });
    const created = await store.pause({
      tenant: 'acme',
      runId: 'run-1',
      format: 'openai-chat',
      messages: pausedTurn(),
      asks: [{ toolCallId: 'call_notify', kind: 'approval' }],
      traceparent: TRACEPARENT,
    });
    await store.decide({
      tenant: 'acme',
      runId: 'run-1',
      interruptId: created.interruptId,
      decisions: [{ toolCallId: 'call_notify', decision: 'reject', reason: 'not on Fridays' }],
    });
    const telemetry = testTelemetry();
    const handler = createLifecycleStreamHandler({
      emitter: createLifecycleEmitter({ sinks: [], log: telemetry.logger }),
      ...telemetry,
      traces: createTraces({ endpoint: receiver.url, log: telemetry.logger }),
    });
    const batch = { Records: changes.map((change, index) => streamRecord(change, String(100 + index))) };

    expect(await handler(batch, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(receiver.spans).toEqual([
      expect.objectContaining({
        name: 'handback.ask',
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        parentSpanId: '00f067aa0ba902b7',
        attributes: expect.objectContaining({ 'handback.outcome': 'reject', 'gen_ai.tool.call.id': 'call_notify' }),
      }),
    ]);
    await handler(batch, lambdaContext());
    expect(receiver.spans.map((span) => span.spanId)).toEqual([receiver.spans[0]?.spanId, receiver.spans[0]?.spanId]);
  });
});
