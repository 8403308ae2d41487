import { createHash } from 'node:crypto';
import { brotliCompressSync } from 'node:zlib';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { NOT_DISPATCHED } from '../../functions/rehydrate/rehydrate.ts';
import { recordingClient, useTestTable } from '../support/dynamodb.ts';
import { chatTranscript, expectedContinuation, storeOn } from './support.ts';

/**
 * Pauses written before the persistence took a transcript whole: a pause item of schema version 2 naming its
 * `chunkCount`, and its parts, put raw as the adapter wrote them then (attribute for attribute), with ids that carry
 * the part count. They read, resume and replay through today's store, the resume still one BatchGetItem.
 */

const table = useTestTable();
const TOKEN = 'LegacyTokenLegacyToken';

/** Writes a pause of `runId` the old way, its transcript in parts of `partBytes`; its old interruptId. */
async function putLegacyPause(runId: string, messages: unknown[], partBytes: number): Promise<string> {
  const json = Buffer.from(JSON.stringify(messages), 'utf8');
  const compressed = brotliCompressSync(json);
  const pk = `T#acme#R#${runId}`;
  const parts: Buffer[] = [];
  for (let offset = 0; offset < compressed.length; offset += partBytes) {
    parts.push(compressed.subarray(offset, offset + partBytes));
  }
  const ttl = Math.ceil(Date.parse('2026-01-08T00:00:00.000Z') / 1000) + 30 * 24 * 60 * 60;
  for (const [index, data] of parts.entries()) {
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk, sk: `P#0000000001#C#${TOKEN}#${String(index).padStart(4, '0')}`, v: 2, kind: 'part', data, ttl },
      }),
    );
  }
  const roundIndex = messages.length - 1;
  const roundOffset = json.length - (Buffer.from(JSON.stringify(messages.slice(roundIndex))).length - 1);
  await table.client.send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        pk,
        sk: 'P#0000000001#P',
        v: 2,
        kind: 'pause',
        ttl,
        tenant: 'acme',
        runId,
        seq: 1,
        token: TOKEN,
        format: 'openai-chat',
        asks: JSON.stringify([
          { toolCallId: 'call_1', name: 'ask_human', args: { question: 'Ship it?' }, kind: 'answer', prompt: 'Ship?' },
        ]),
        createdAt: '2026-01-01T00:00:00.000Z',
        expiresAt: '2026-01-08T00:00:00.000Z',
        expiresAtMs: Date.parse('2026-01-08T00:00:00.000Z'),
        onExpiry: 'fail',
        status: 'paused',
        rev: 1,
        codec: 'br',
        chunkCount: parts.length,
        byteLength: compressed.length,
        rawLength: json.length,
        sha256: createHash('sha256').update(compressed).digest('base64url'),
        roundIndex,
        roundOffset,
        gsi1pk: 'T#acme',
        gsi1sk: `2026-01-01T00:00:00.000Z#${runId}#0000000001`,
        openPk: 'T#acme',
        duePk: 'D#0',
        dueAtMs: Date.parse('2026-01-08T00:00:00.000Z'),
      },
    }),
  );
  return `1.${parts.length}.${TOKEN}`;
}

describe('a pause written by the earlier layout', () => {
  const clock = () => new Date('2026-01-02T00:00:00.000Z');

  it.each([
    ['one part', 0, 400_000],
    ['several parts of another size than today’s', 300_000, 50_000],
  ])('in %s reads, resumes in one read request and replays through the store', async (_, padding, partBytes) => {
    const runId = `legacy-${partBytes}-${padding}`;
    const messages = chatTranscript(padding);
    const interruptId = await putLegacyPause(runId, messages, partBytes);
    const key = { tenant: 'acme', runId, interruptId };
    const store = storeOn(table, { clock });

    const view = await store.getPause(key, { includeMessages: true });
    expect(view).toMatchObject({ interruptId, status: 'paused', messages });

    const { client, commands } = recordingClient(table);
    const resumed = await storeOn(table, { client, clock }).resume({ ...key, answer: 'yes' });
    expect(commands.map((c) => c.command)).toEqual(['BatchGetItemCommand', 'UpdateItemCommand']);
    expect(resumed.interruptId).toBe(interruptId);
    expect(resumed.continuationId).toMatch(new RegExp(`^1\\.${interruptId.split('.')[1]}\\.`));
    const expected = JSON.stringify(expectedContinuation(messages, 'yes', NOT_DISPATCHED));
    expect(JSON.stringify(resumed.messages)).toBe(expected);

    const replayed = await store.resume({ ...key, answer: 'yes' });
    expect(replayed).toMatchObject({ replayed: true, continuationId: resumed.continuationId });
    const continuation = await store.getContinuation({ tenant: 'acme', runId, continuationId: resumed.continuationId });
    expect(JSON.stringify(continuation.messages)).toBe(expected);
    await expect(store.resume({ ...key, answer: 'no' })).rejects.toMatchObject({ name: 'AlreadyResumedError' });
    const page = await store.listPauses({ tenant: 'acme', limit: 100 });
    expect(page.items.find((item) => item.runId === runId)).toMatchObject({ interruptId, status: 'resumed' });
  });
});
