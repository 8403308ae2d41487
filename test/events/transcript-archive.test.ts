import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { PauseChange } from '../../functions/checkpoints/checkpoint-service.ts';
import { objectKeyOf, pauseItem } from '../../functions/checkpoints/dynamodb/items.ts';
import { ARCHIVE_TRANSCRIPT_BYTES } from '../../functions/checkpoints/dynamodb/parts.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import type { PauseRecord, RecordKey } from '../../functions/checkpoints/record.ts';
import type { LifecycleEmitter } from '../../functions/events/emitter.ts';
import { lifecycleEventsOf } from '../../functions/events/lifecycle.ts';
import { archivableOf, changeOf, createLifecycleStreamHandler } from '../../functions/handlers/stream.ts';
import { Metric } from '../../functions/resume/telemetry.ts';
import { approvalTranscript } from '../../functions/testing/service-spec.ts';
import { lambdaContext } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

/**
 * The lifecycle stream moves a closed pause's transcript from the table to the bucket (§23): which records name one
 * to move, that the move is asked once per such record, that a failed move fails no record (the transcript stays in
 * the table, readable), and that the move's own change is no lifecycle event.
 */

/** A pause's changes through the memory store: created, then resumed. */
async function pauseAndResume(): Promise<PauseChange[]> {
  const changes: PauseChange[] = [];
  const store = createMemoryCheckpointStore({ onChange: (change) => changes.push(change) });
  const { interruptId } = await store.pause({
    tenant: 'acme',
    runId: 'run-archive',
    format: 'openai-chat',
    messages: approvalTranscript(),
    asks: [{ toolCallId: 'call_refund', kind: 'approval', prompt: 'Refund EUR 120?' }],
  });
  await store.decide({
    tenant: 'acme',
    runId: 'run-archive',
    interruptId,
    decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
  });
  return changes;
}

/** `record` with a transcript of `byteLength` compressed bytes. */
function sized(record: PauseRecord, byteLength: number): PauseRecord {
  return { ...record, transcript: { ...record.transcript, byteLength } };
}

function imageOf(record: PauseRecord, extra: Record<string, unknown> = {}) {
  return marshall({ ...pauseItem(record, 1), ...extra }, { removeUndefinedValues: true }) as never;
}

function modify(
  sequence: string,
  before: PauseRecord,
  after: PauseRecord,
  extra: Record<string, unknown> = {},
): DynamoDBRecord {
  return {
    eventID: sequence,
    eventName: 'MODIFY',
    eventSource: 'aws:dynamodb',
    dynamodb: { SequenceNumber: sequence, OldImage: imageOf(before), NewImage: imageOf(after, extra) },
  };
}

/** An emitter that takes every change and delivers it. */
function taking(changes: PauseChange[]): LifecycleEmitter {
  return {
    emitChanges: async () => undefined,
    emitEach: async (given: readonly PauseChange[]) => {
      changes.push(...given);
      return [];
    },
  } as unknown as LifecycleEmitter;
}

describe('closed transcripts moved by the lifecycle stream', () => {
  it('names the pause of a record that leaves it closed with 8 KB or more in parts, and no other', async () => {
    const [created, resumed] = (await pauseAndResume()) as [PauseChange, PauseChange];
    const open = created.after;
    const closed = resumed.after;
    const large = ARCHIVE_TRANSCRIPT_BYTES;
    const key: RecordKey = { tenant: 'acme', runId: 'run-archive', seq: closed.seq };
    expect(archivableOf(modify('1', sized(open, large), sized(closed, large)))).toEqual(key);
    // Still open; under 8 KB; already naming its object (the move's own change); a removal; a part.
    expect(archivableOf(modify('2', sized(open, large), sized(open, large)))).toBeUndefined();
    expect(archivableOf(modify('3', sized(open, large - 1), sized(closed, large - 1)))).toBeUndefined();
    const moved = { v: 3, objectKey: objectKeyOf(closed) };
    expect(archivableOf(modify('4', sized(closed, large), sized(closed, large), moved))).toBeUndefined();
    expect(archivableOf({ ...modify('5', sized(open, large), sized(closed, large)), eventName: 'REMOVE' })).toBe(
      undefined,
    );
    const part = { dynamodb: { NewImage: marshall({ kind: 'part', data: new Uint8Array([1]) }) as never } };
    expect(archivableOf(part)).toBeUndefined();
  });

  it('asks the move once per such record, beside the events; the move’s own change is no event', async () => {
    const [created, resumed] = (await pauseAndResume()) as [PauseChange, PauseChange];
    const large = ARCHIVE_TRANSCRIPT_BYTES * 2;
    const closing = modify('10', sized(created.after, large), sized(resumed.after, large));
    const moved = modify('11', sized(resumed.after, large), sized(resumed.after, large), {
      v: 3,
      objectKey: objectKeyOf(resumed.after),
    });
    const asked: RecordKey[] = [];
    const emitted: PauseChange[] = [];
    const telemetry = testTelemetry();
    const handler = createLifecycleStreamHandler({
      emitter: taking(emitted),
      archive: async (key) => asked.push(key),
      logger: telemetry.logger,
      metrics: telemetry.metrics,
    });
    expect(await handler({ Records: [closing, moved] }, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(asked).toEqual([{ tenant: 'acme', runId: 'run-archive', seq: resumed.after.seq }]);
    expect(emitted.map((change) => lifecycleEventsOf(change).map((event) => event.type))).toEqual([
      ['Pause Resumed'],
      [],
    ]);
    // The moved item reads as the same pause: its id keeps the part count's hint.
    expect(changeOf(moved)?.after.readHint).toBe(resumed.after.readHint);
  });

  it('fails no record when the move fails: the transcript stays in the table; counted and logged', async () => {
    const [created, resumed] = (await pauseAndResume()) as [PauseChange, PauseChange];
    const large = ARCHIVE_TRANSCRIPT_BYTES * 2;
    const emitted: PauseChange[] = [];
    const telemetry = testTelemetry();
    const handler = createLifecycleStreamHandler({
      emitter: taking(emitted),
      archive: async () => {
        throw new Error('the bucket did not answer');
      },
      logger: telemetry.logger,
      metrics: telemetry.metrics,
    });
    const record = modify('20', sized(created.after, large), sized(resumed.after, large));
    expect(await handler({ Records: [record] }, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(emitted).toHaveLength(1);
    expect(telemetry.metricNames()).toContain(Metric.ArchiveFailures);
    expect(telemetry.logged.warn).toHaveBeenCalledWith(
      'A closed transcript was not moved to the bucket; it stays in the table',
      expect.objectContaining({ runId: 'run-archive', error: 'Error: the bucket did not answer' }),
    );
  });
});
