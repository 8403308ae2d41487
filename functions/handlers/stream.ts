import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { ItemKind, recordOf } from '../checkpoints/dynamodb/items.ts';
import type { LifecycleEmitter } from '../events/emitter.ts';
import { countSettled } from '../resume/decision-metrics.ts';
import { Metric, MetricUnit } from '../resume/telemetry.ts';
import { type EntryTelemetry, streamBatchResponse, withTelemetry } from './telemetry.ts';

/**
 * Lifecycle events on AWS (§11): the table's stream (new and old images) carries every committed change of a pause
 * item; each becomes its event on the bus, off the request path, at least once. A record whose events cannot be
 * delivered is reported as a batch item failure, so the stream retries from it (then the event source mapping's
 * on-failure destination keeps it); the `EventEmitFailures` metric counts them. The asks each change settled are
 * counted here too, once its events are out (§21: `TimeToDecision`, `Decisions`), whatever door settled them.
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

/** The stream handler, with partial batch responses. */
export function createLifecycleStreamHandler(deps: StreamDeps) {
  const handle = async (record: DynamoDBRecord): Promise<void> => {
    const change = changeOf(record);
    if (change === undefined) return;
    try {
      await deps.emitter.emitChanges([change]);
    } catch (error) {
      deps.metrics.addMetric(Metric.EventEmitFailures, MetricUnit.Count, 1);
      throw error;
    }
    countSettled(deps.metrics, change);
  };
  return withTelemetry(deps, async (event: { Records: DynamoDBRecord[] }) => streamBatchResponse(event, handle));
}
