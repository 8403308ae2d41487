import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ItemKind, TTL_REMOVER } from '../../functions/checkpoints/dynamodb/items.ts';
import { MemoryTranscriptObjects, type TranscriptObjects } from '../../functions/checkpoints/transcript-objects.ts';
import type { LifecycleEmitter } from '../../functions/events/emitter.ts';
import { createLifecycleStreamHandler, expiredObjectOf } from '../../functions/handlers/stream.ts';
import { lambdaContext } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

/**
 * The lifecycle stream function deletes the transcript object of a pause item DynamoDB's TTL removed (§23), and no
 * other: a removal by anyone else, or of a pause whose transcript is in the table, leaves the bucket alone.
 */

const KEY = 't/acme/r/run-1/p/0000000001.tok';

/** A REMOVE record of a pause item (with `objectKey` unless told), by `who`. */
function removal(
  sequence: string,
  options: { who?: { type: string; principalId: string }; objectKey?: string | null; kind?: string } = {},
): DynamoDBRecord {
  const { who = TTL_REMOVER, objectKey = KEY, kind = ItemKind.Pause } = options;
  const old = {
    pk: 'T#acme#R#run-1',
    sk: 'P#0000000001#P',
    kind,
    runId: 'run-1',
    ...(objectKey === null ? { chunkCount: 1 } : { objectKey }),
  };
  return {
    eventID: sequence,
    eventName: 'REMOVE',
    eventSource: 'aws:dynamodb',
    userIdentity: { ...who },
    dynamodb: { SequenceNumber: sequence, OldImage: marshall(old) as never },
  };
}

/** An emitter that must not be called: a removal has no lifecycle event. */
const silent: LifecycleEmitter = {
  emitChanges: async () => {
    throw new Error('a removal has no lifecycle event');
  },
  emitEach: async (changes: readonly unknown[]) => {
    if (changes.length > 0) throw new Error('a removal has no lifecycle event');
    return [];
  },
} as unknown as LifecycleEmitter;

function handlerWith(objects: TranscriptObjects) {
  const telemetry = testTelemetry();
  return createLifecycleStreamHandler({
    emitter: silent,
    objects,
    logger: telemetry.logger,
    metrics: telemetry.metrics,
  });
}

describe('a pause item TTL removed', () => {
  it('names its object only when DynamoDB’s TTL removed a pause item whose transcript is in the bucket', () => {
    expect(expiredObjectOf(removal('1'))).toBe(KEY);
    expect(expiredObjectOf(removal('2', { who: { type: 'Service', principalId: 'someone.amazonaws.com' } }))).toBe(
      undefined,
    );
    expect(expiredObjectOf(removal('3', { who: { type: 'User', principalId: 'AIDAEXAMPLE' } }))).toBeUndefined();
    expect(expiredObjectOf(removal('4', { objectKey: null }))).toBeUndefined();
    expect(expiredObjectOf(removal('5', { kind: ItemKind.Part }))).toBeUndefined();
    expect(expiredObjectOf({ ...removal('6'), eventName: 'MODIFY' })).toBeUndefined();
  });

  it('has its object deleted by the stream function, and a removal by a person leaves the object there', async () => {
    const objects = new MemoryTranscriptObjects();
    await objects.put(KEY, new Uint8Array([1, 2, 3]));
    const other = 't/acme/r/run-2/p/0000000001.tok';
    await objects.put(other, new Uint8Array([4]));
    const handler = handlerWith(objects);

    const byPerson = await handler(
      { Records: [{ ...removal('10', { who: { type: 'User', principalId: 'AIDAEXAMPLE' } }) }] },
      lambdaContext(),
    );
    expect(byPerson).toEqual({ batchItemFailures: [] });
    expect([...objects.objects.keys()].sort()).toEqual([KEY, other].sort());

    const byTtl = await handler({ Records: [removal('11')] }, lambdaContext());
    expect(byTtl).toEqual({ batchItemFailures: [] });
    expect([...objects.objects.keys()]).toEqual([other]);
  });

  it('reports the record when the bucket does not answer, so the stream retries it', async () => {
    const failing: TranscriptObjects = {
      put: async () => undefined,
      get: async () => undefined,
      delete: async () => {
        throw new Error('the bucket did not answer');
      },
    };
    const records = [removal('20', { who: { type: 'User', principalId: 'AIDAEXAMPLE' } }), removal('21')];
    const response = await handlerWith(failing)({ Records: records }, lambdaContext());
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '21' }] });
    // Every record failing fails the whole batch, which the stream retries as well.
    await expect(handlerWith(failing)({ Records: [removal('22')] }, lambdaContext())).rejects.toThrow(
      'All records failed processing',
    );
  });
});
