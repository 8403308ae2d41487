import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { CorruptCheckpointError } from '../../functions/errors.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { chatTranscript, pauseInput, runItems, setAttribute, storeOn } from './support.ts';

const table = useTestTable();

/** Pauses a run with a transcript of several chunks and returns its items and a way to read it back. */
async function pausedRun(padding = 700_000) {
  const store = storeOn(table);
  const input = pauseInput({ messages: chatTranscript(padding) });
  const { interruptId } = await store.pause(input);
  const items = await runItems(table, 'acme', input.runId);
  const pause = items.find((item) => item.kind === 'pause') as Record<string, unknown>;
  const chunks = items.filter((item) => item.kind === 'part');
  const key = { tenant: 'acme', runId: input.runId, interruptId };
  return { store, input, interruptId, pause, chunks, key };
}

describe('a corrupt checkpoint', () => {
  it('is reported when a chunk is missing, never rebuilt', async () => {
    const run = await pausedRun();
    expect(run.chunks.length).toBeGreaterThan(1);
    const victim = run.chunks[1] as Record<string, unknown>;
    await table.client.send(new DeleteCommand({ TableName: table.tableName, Key: { pk: victim.pk, sk: victim.sk } }));
    const error = await run.store.resume({ ...run.key, answer: 'yes' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptCheckpointError);
    expect(error).toMatchObject({
      name: 'CorruptCheckpointError',
      code: 'corrupt_checkpoint',
      interruptId: run.interruptId,
      runId: run.input.runId,
    });
    expect((error as Error).message).toContain('part 1 of');
    await expect(run.store.getPause(run.key, { includeMessages: true })).rejects.toBeInstanceOf(CorruptCheckpointError);
  });

  it('is reported when one bit of a chunk is flipped', async () => {
    const run = await pausedRun();
    const victim = run.chunks[0] as Record<string, unknown>;
    const data = Uint8Array.from(victim.data as Uint8Array);
    data[1000] = (data[1000] as number) ^ 0x01;
    await setAttribute(table, victim, 'data', data);
    const error = await run.store.resume({ ...run.key, answer: 'yes' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptCheckpointError);
    expect((error as Error).message).toContain('sha256');
  });

  it('is reported when the recorded length does not match the chunks', async () => {
    const run = await pausedRun(1_000);
    await setAttribute(table, run.pause, 'byteLength', (run.pause.byteLength as number) + 1);
    await expect(run.store.resume({ ...run.key, answer: 'yes' })).rejects.toThrow(/bytes are \d+ where/);
  });

  it('is reported when the bytes match their hash but do not decompress', async () => {
    const run = await pausedRun(1_000);
    const garbage = new TextEncoder().encode('this is not brotli at all');
    const { sha256 } = await import('../../functions/checkpoints/codec.ts');
    await setAttribute(table, run.chunks[0] as Record<string, unknown>, 'data', garbage);
    await setAttribute(table, run.pause, 'byteLength', garbage.length);
    await setAttribute(table, run.pause, 'sha256', sha256(garbage));
    const error = await run.store.resume({ ...run.key, answer: 'yes' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptCheckpointError);
    expect((error as Error).message).toContain('cannot be decompressed');
  });

  it('is reported when a part item has a schema version this version does not read', async () => {
    const run = await pausedRun(1_000);
    await setAttribute(table, run.chunks[0] as Record<string, unknown>, 'v', 1);
    const error = await run.store.resume({ ...run.key, answer: 'yes' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptCheckpointError);
    expect((error as Error).message).toContain('schema version 1');
  });

  it('is reported when a stored continuation no longer rebuilds to what the resume returned', async () => {
    const run = await pausedRun(1_000);
    const { continuationId } = await run.store.resume({ ...run.key, answer: 'yes' });
    await setAttribute(
      table,
      run.pause,
      'd0',
      JSON.stringify({ body: { answer: 'something else' }, hash: 'h', decidedAt: '2026-01-01T00:00:00.000Z' }),
    );
    const error = await run.store
      .getContinuation({ tenant: 'acme', runId: run.input.runId, continuationId })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptCheckpointError);
  });
});

describe('the paused round a resume parses alone', () => {
  it('is where the pause item says, or the checkpoint is reported corrupt', async () => {
    const run = await pausedRun(1_000);
    expect(run.pause).toMatchObject({ roundIndex: expect.any(Number), roundOffset: expect.any(Number) });
    await setAttribute(table, run.pause, 'roundOffset', (run.pause.roundOffset as number) - 5);
    const error = await run.store.resume({ ...run.key, answer: 'yes' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptCheckpointError);
    expect((error as Error).message).toContain('paused round');
  });

  it('is found by parsing the whole transcript when the pause item does not say (written before it did)', async () => {
    const twin = await pausedRun(1_000);
    const old = await pausedRun(1_000);
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { pk: old.pause.pk, sk: old.pause.sk },
        UpdateExpression: 'REMOVE roundIndex, roundOffset',
      }),
    );
    const fromOld = await old.store.resume({ ...old.key, answer: 'yes' });
    const fromNew = await twin.store.resume({ ...twin.key, answer: 'yes' });
    expect(fromOld.messages.slice(-3)).toEqual(fromNew.messages.slice(-3));
    expect(fromOld.messages).toHaveLength(fromNew.messages.length);
  });
});
