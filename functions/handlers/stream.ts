import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { ItemKind, recordOf, TTL_REMOVER } from '../checkpoints/dynamodb/items.ts';
import type { TranscriptObjects } from '../checkpoints/transcript-objects.ts';
import type { LifecycleEmitter } from '../events/emitter.ts';
import { Metric, MetricUnit } from '../resume/telemetry.ts';
import type { Traces } from '../traces/traces.ts';
import { type EntryTelemetry, streamBatchResponse, withTelemetry } from './telemetry.ts';

/**
 * Lifecycle events on AWS (§11): the table's stream (new and old images) carries every committed change of a pause
 * item; each becomes its event on the bus, off the request path, at least once. A record whose events cannot be
 * delivered is reported as a batch item failure, so the stream retries from it (then the event source mapping's
 * on-failure destination keeps it); the `EventEmitFailures` metric counts them. When DynamoDB's TTL removes a pause
 * item whose transcript is in the bucket, at the end of its retention, the record deletes that object (§23).
 */

/** What the stream handler runs on. */
export interface StreamDeps extends EntryTelemetry {
  emitter: LifecycleEmitter;
  /** The `handback.ask` spans of the asks each change settled (§21), when an OTLP endpoint is configured. */
  traces?: Traces;
  /** The transcript bucket, whose objects go with the pause items TTL removes; none = objects are left to expire. */
  objects?: TranscriptObjects;
}

/**
 * The object key of the pause item a record says DynamoDB's TTL removed, when its transcript is in the bucket;
 * undefined for every other record (a removal by anyone else leaves the object to the bucket's lifecycle rule, so a
 * table restored after a mistaken delete still finds its transcripts).
 */
export function expiredObjectOf(record: DynamoDBRecord): string | undefined {
  if (record.eventName !== 'REMOVE') return undefined;
  const identity = record.userIdentity as { type?: unknown; principalId?: unknown } | undefined;
  if (identity?.type !== TTL_REMOVER.type || identity.principalId !== TTL_REMOVER.principalId) return undefined;
  const old = record.dynamodb?.OldImage as Record<string, AttributeValue> | undefined;
  if (old?.kind?.S !== ItemKind.Pause) return undefined;
  return old.objectKey?.S;
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
    const expired = expiredObjectOf(record);
    // A failed delete fails the record, so the stream retries it; the object was never readable without its item.
    if (expired !== undefined) await deps.objects?.delete(expired);
    const change = changeOf(record);
    if (change === undefined) return;
    // Every committed change passes here once (or again on a retry, which exports the same spans): the asks' spans.
    deps.traces?.changed(change);
    try {
      await deps.emitter.emitChanges([change]);
    } catch (error) {
      deps.metrics.addMetric(Metric.EventEmitFailures, MetricUnit.Count, 1);
      throw error;
    }
  };
  return withTelemetry(deps, async (event: { Records: DynamoDBRecord[] }) => streamBatchResponse(event, handle));
}
