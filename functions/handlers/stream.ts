import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { ItemKind, recordOf, TTL_REMOVER } from '../checkpoints/dynamodb/items.ts';
import { ARCHIVE_TRANSCRIPT_BYTES } from '../checkpoints/dynamodb/parts.ts';
import type { RecordKey } from '../checkpoints/record.ts';
import type { TranscriptObjects } from '../checkpoints/transcript-objects.ts';
import type { LifecycleEmitter } from '../events/emitter.ts';
import { countSettled } from '../resume/decision-metrics.ts';
import { Metric, MetricUnit } from '../resume/telemetry.ts';
import type { Traces } from '../traces/traces.ts';
import { type EntryTelemetry, FullBatchFailureError, withTelemetry } from './telemetry.ts';

/**
 * Lifecycle events on AWS (§11): the table's stream (new and old images) carries every committed change of a pause
 * item; each becomes its event on the bus, off the request path, at least once. A record whose events cannot be
 * delivered is reported as a batch item failure, so the stream retries from it (then the event source mapping's
 * on-failure destination keeps it); the `EventEmitFailures` metric counts them. When DynamoDB's TTL removes a pause
 * item whose transcript is in the bucket, at the end of its retention, the record deletes that object; when a change
 * leaves a pause closed with a transcript of 8 KB or more in parts, it moves the transcript to the bucket (§23). The asks
 * each change settled are counted here too, once its events are out (§21: `TimeToDecision`, `Decisions`), whatever
 * door settled them.
 */

/** What the stream handler runs on. */
export interface StreamDeps extends EntryTelemetry {
  emitter: LifecycleEmitter;
  /** The `handback.ask` spans of the asks each change settled (§21), when an OTLP endpoint is configured. */
  traces?: Traces;
  /** The transcript bucket, whose objects go with the pause items TTL removes; none = objects are left to expire. */
  objects?: TranscriptObjects;
  /**
   * Moves a closed pause's transcript from its parts to the bucket (`archiveTranscript`, §23); none = closed
   * transcripts stay in the table.
   */
  archive?: (key: RecordKey) => Promise<unknown>;
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

/**
 * The pause a record leaves closed with its transcript still in parts, at least `ARCHIVE_TRANSCRIPT_BYTES` of it:
 * one to move to the bucket. Undefined for every other record, the move's own change among them (its item names the
 * object), so each closed pause is moved once, and again only if a move failed and a later change comes.
 */
export function archivableOf(record: DynamoDBRecord): RecordKey | undefined {
  if (record.eventName === 'REMOVE') return undefined;
  const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (image?.kind?.S !== ItemKind.Pause || image.continuationId?.S === undefined) return undefined;
  if (image.chunkCount?.N === undefined || image.objectKey !== undefined) return undefined;
  if (!(Number(image.byteLength?.N) >= ARCHIVE_TRANSCRIPT_BYTES)) return undefined;
  const { tenant, runId, seq } = { tenant: image.tenant?.S, runId: image.runId?.S, seq: Number(image.seq?.N) };
  return tenant === undefined || runId === undefined || !Number.isSafeInteger(seq) ? undefined : { tenant, runId, seq };
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
 * call), and the records whose events a sink did not take, or whose expired transcript object could not be deleted,
 * reported by sequence number; every record failed, the invocation fails (and the event source mapping halves the
 * batch).
 */
export function createLifecycleStreamHandler(deps: StreamDeps) {
  return withTelemetry(deps, async (event: { Records: DynamoDBRecord[] }): Promise<DynamoDBBatchResponse> => {
    if (!Array.isArray(event?.Records)) throw new TypeError('The event is not a batch: it has no Records array.');
    const failedRecords = new Set<DynamoDBRecord>();
    const errors: unknown[] = [];
    // A failed delete fails the record, so the stream retries it; the object was never readable without its item. A
    // failed move does not: the transcript stays in its parts, readable, and costs the table's storage (logged).
    await Promise.all(
      event.Records.map(async (record) => {
        const archivable = deps.archive === undefined ? undefined : archivableOf(record);
        if (archivable !== undefined) {
          await deps.archive?.(archivable).catch((error: unknown) => {
            deps.metrics.addMetric(Metric.ArchiveFailures, MetricUnit.Count, 1);
            deps.logger.warn('A closed transcript was not moved to the bucket; it stays in the table', {
              runId: archivable.runId,
              seq: archivable.seq,
              error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
            });
          });
        }
        const expired = expiredObjectOf(record);
        if (expired === undefined || deps.objects === undefined) return;
        try {
          await deps.objects.delete(expired);
        } catch (error) {
          failedRecords.add(record);
          errors.push(error);
        }
      }),
    );
    const pauses = event.Records.flatMap((record) => {
      const change = changeOf(record);
      return change === undefined ? [] : [{ record, change }];
    });
    // Every committed change passes here once (or again on a retry, which exports the same spans): the asks' spans.
    for (const { change } of pauses) deps.traces?.changed(change);
    let failed: number[];
    try {
      failed = await deps.emitter.emitEach(pauses.map(({ change }) => change));
    } catch (error) {
      // An event could not even be made (its answer link): none of the batch is known delivered.
      deps.metrics.addMetric(Metric.EventEmitFailures, MetricUnit.Count, pauses.length);
      throw error;
    }
    if (failed.length > 0) deps.metrics.addMetric(Metric.EventEmitFailures, MetricUnit.Count, failed.length);
    for (const index of failed) {
      const pause = pauses[index];
      if (pause === undefined) continue;
      failedRecords.add(pause.record);
      errors.push(new Error('Lifecycle events were not delivered'));
    }
    // §21: the asks each delivered change settled, counted once its events are out.
    const undelivered = new Set(failed);
    pauses.forEach(({ change }, index) => {
      if (!undelivered.has(index)) countSettled(deps.metrics, change);
    });
    if (failedRecords.size === 0) return { batchItemFailures: [] };
    if (failedRecords.size === event.Records.length) throw new FullBatchFailureError(errors);
    return {
      batchItemFailures: event.Records.flatMap((record) => {
        const itemIdentifier = failedRecords.has(record) ? record.dynamodb?.SequenceNumber : undefined;
        return itemIdentifier ? [{ itemIdentifier }] : [];
      }),
    };
  });
}
