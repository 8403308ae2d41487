import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { ItemKind, recordOf } from '../checkpoints/dynamodb/items.ts';
import type { LifecycleEmitter } from '../events/emitter.ts';
import { Metric, MetricUnit } from '../resume/telemetry.ts';
import { type EntryTelemetry, FullBatchFailureError, withTelemetry } from './telemetry.ts';

/**
 * Lifecycle events on AWS (§11): the table's stream (new and old images) carries every committed change of a pause
 * item; each becomes its event on the bus, off the request path, at least once. A record whose events cannot be
 * delivered is reported as a batch item failure, so the stream retries from it (then the event source mapping's
 * on-failure destination keeps it); the `EventEmitFailures` metric counts them.
 */

/** What the stream handler runs on. */
export interface StreamDeps extends EntryTelemetry {
  emitter: LifecycleEmitter;
}

/** The change a stream record carries, or undefined for an item that is not a pause (a transcript part). */
export function changeOf(record: DynamoDBRecord): PauseChange | undefined {
  const image = (raw: unknown) =>
    raw === undefined ? undefined : unmarshall(raw as Record<string, AttributeValue>, { wrapNumbers: false });
  const newImage = image(record.dynamodb?.NewImage);
  if (newImage === undefined || newImage.kind !== ItemKind.Pause) return undefined;
  const names = { runId: String(newImage.runId), interruptId: '' };
  const after = recordOf(newImage, names);
  const oldImage = image(record.dynamodb?.OldImage);
  return oldImage === undefined ? { after } : { before: recordOf(oldImage, names), after };
}

/**
 * The stream handler, with partial batch responses: every record's events emitted together (EventBridge ten to a
 * call), and the records whose events a sink did not take reported by sequence number; every record failed, the
 * invocation fails (and the event source mapping halves the batch).
 */
export function createLifecycleStreamHandler(deps: StreamDeps) {
  return withTelemetry(deps, async (event: { Records: DynamoDBRecord[] }): Promise<DynamoDBBatchResponse> => {
    if (!Array.isArray(event?.Records)) throw new TypeError('The event is not a batch: it has no Records array.');
    const pauses = event.Records.flatMap((record) => {
      const change = changeOf(record);
      return change === undefined ? [] : [{ record, change }];
    });
    let failed: number[];
    try {
      failed = await deps.emitter.emitEach(pauses.map(({ change }) => change));
    } catch (error) {
      // An event could not even be made (its answer link): none of the batch is known delivered.
      deps.metrics.addMetric(Metric.EventEmitFailures, MetricUnit.Count, pauses.length);
      throw error;
    }
    if (failed.length === 0) return { batchItemFailures: [] };
    deps.metrics.addMetric(Metric.EventEmitFailures, MetricUnit.Count, failed.length);
    if (failed.length === event.Records.length) {
      throw new FullBatchFailureError(failed.map(() => new Error('Lifecycle events were not delivered')));
    }
    return {
      batchItemFailures: failed.flatMap((index) => {
        const itemIdentifier = pauses[index]?.record.dynamodb?.SequenceNumber;
        return itemIdentifier ? [{ itemIdentifier }] : [];
      }),
    };
  });
}
