import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Keys } from '../../functions/checkpoints/keys.ts';
import {
  BadRequestError,
  InvalidTranscriptError,
  MissingTurnStateError,
  OpenPauseExistsError,
  PauseNotFoundError,
} from '../../functions/errors.ts';
import { rehydrate } from '../../functions/rehydrate/rehydrate.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { chatTranscript, pauseInput, runItems, storeOn, testClock } from './support.ts';

const table = useTestTable();

describe('pause', () => {
  it('records a pause and names it with a sequence number and 128 random bits', async () => {
    const clock = testClock('2026-03-01T12:00:00.000Z');
    const store = storeOn(table, { clock: clock.now });
    const input = pauseInput({ metadata: { ticket: 'T-1' }, answerSchema: { type: 'boolean' } });
    const created = await store.pause(input);
    expect(created).toEqual({
      runId: input.runId,
      interruptId: expect.stringMatching(/^1\.[A-Za-z0-9_-]{22}$/),
      toolCallId: 'call_1',
      status: 'paused',
      createdAt: '2026-03-01T12:00:00.000Z',
      expiresAt: '2026-03-08T12:00:00.000Z',
    });
    const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId: created.interruptId });
    expect(view).toEqual({
      runId: input.runId,
      interruptId: created.interruptId,
      status: 'paused',
      format: 'openai-chat',
      toolCall: { id: 'call_1', name: 'ask_human', args: { question: 'Ship it?' } },
      prompt: 'Ship it?',
      answerSchema: { type: 'boolean' },
      metadata: { ticket: 'T-1' },
      createdAt: '2026-03-01T12:00:00.000Z',
      expiresAt: '2026-03-08T12:00:00.000Z',
    });
  });

  it.each([
    [
      'an answerSchema of another draft',
      { answerSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } },
      /JSON Schema 2020-12/,
    ],
    [
      'messages that are not JSON',
      {
        messages: [
          ...chatTranscript().slice(0, 1),
          { role: 'user', content: 'x', at: new Date(0) },
          ...chatTranscript().slice(1),
        ],
      },
      /messages must be JSON/,
    ],
    ['the runId "."', { runId: '.' }, /runId must be/],
    ['the runId ".."', { runId: '..' }, /runId must be/],
  ])('refuses %s with a BadRequestError, writing nothing', async (_label, overrides, message) => {
    const store = storeOn(table);
    const input = pauseInput(overrides as Partial<ReturnType<typeof pauseInput>>);
    await expect(store.pause(input)).rejects.toThrow(message);
    await expect(store.pause(input)).rejects.toBeInstanceOf(BadRequestError);
    if (typeof input.runId === 'string' && input.runId.length > 2) {
      expect(await runItems(table, 'acme', input.runId)).toEqual([]);
    }
  });

  it('gives back a pause record that rehydrate takes as it is (§7)', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const created = await store.pause(input);
    const key = { tenant: 'acme', runId: input.runId, interruptId: created.interruptId };
    const record = await store.getPause(key, { includeMessages: true });
    const rebuilt = rehydrate(record, 'Yes.');
    expect(rebuilt).toEqual((await store.resume({ ...key, answer: 'Yes.' })).messages);
  });

  it('counts the call id, stored twice, in the pause item budget, so any legal answer still fits', async () => {
    const store = storeOn(table);
    const id = 'i'.repeat(40_000);
    const messages = [
      { role: 'user', content: 'Ship it?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'ask', arguments: '{}' } }],
      },
    ];
    const error = await store
      .pause(pauseInput({ messages, toolCallId: id, prompt: 'p'.repeat(20_000) }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toMatch(/over the limit of 98304/);
  });

  it('writes a TTL attribute on every item, after expiry plus the retention', async () => {
    const clock = testClock('2026-03-01T12:00:00.000Z');
    const store = storeOn(table, { clock: clock.now });
    const input = pauseInput({ expiresInSeconds: 3600, messages: chatTranscript(400_000) });
    await store.pause(input);
    const items = await runItems(table, 'acme', input.runId);
    expect(items.length).toBeGreaterThan(1);
    const expected = Date.parse('2026-03-01T13:00:00.000Z') / 1000 + 30 * 24 * 3600;
    for (const item of items) expect(item).toMatchObject({ ttl: expected, v: 1 });
  });

  it('refuses a second open pause for the same run and tenant', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const first = await store.pause(input);
    const error = await store.pause(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenPauseExistsError);
    expect(error).toMatchObject({ code: 'open_pause_exists', runId: input.runId, interruptId: first.interruptId });
  });

  it('lets the run pause again once its pause is resumed, or expired', async () => {
    const clock = testClock();
    const store = storeOn(table, { clock: clock.now });
    const input = pauseInput({ expiresInSeconds: 10 });
    const first = await store.pause(input);
    await store.resume({ tenant: 'acme', runId: input.runId, interruptId: first.interruptId, answer: 'ok' });
    const second = await store.pause(input);
    expect(second.interruptId).toMatch(/^2\./);
    await expect(store.pause(input)).rejects.toBeInstanceOf(OpenPauseExistsError);
    clock.advance(10);
    const third = await store.pause(input);
    expect(third.interruptId).toMatch(/^3\./);
  });

  it('lets one of 10 concurrent pauses of a run win; the others see it open and leave no chunks behind', async () => {
    const store = storeOn(table);
    const input = pauseInput({ messages: chatTranscript(300_000) });
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => store.pause(input)));
    const winners = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    const losers = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as unknown);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(9);
    for (const loser of losers) {
      expect(loser).toBeInstanceOf(OpenPauseExistsError);
      expect((loser as OpenPauseExistsError).interruptId).toBe(winners[0]?.interruptId);
    }
    const items = await runItems(table, 'acme', input.runId);
    const pause = items.find((item) => item.kind === 'pause');
    expect(items.filter((item) => item.kind === 'pause')).toHaveLength(1);
    expect(items.filter((item) => item.kind === 'chunk')).toHaveLength(pause?.chunkCount as number);
  });

  it('keeps two tenants with the same runId apart', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const mine = await store.pause({ ...input, tenant: 'acme' });
    const theirs = await store.pause({ ...input, tenant: 'globex', prompt: 'theirs' });
    expect(mine.interruptId).toMatch(/^1\./);
    expect(theirs.interruptId).toMatch(/^1\./);
    const acmeKey = { tenant: 'acme', runId: input.runId };
    await expect(store.getPause({ ...acmeKey, interruptId: theirs.interruptId })).rejects.toBeInstanceOf(
      PauseNotFoundError,
    );
    await expect(store.resume({ ...acmeKey, interruptId: theirs.interruptId, answer: 'x' })).rejects.toBeInstanceOf(
      PauseNotFoundError,
    );
    expect((await store.getPause({ ...acmeKey, interruptId: mine.interruptId })).prompt).toBe('Ship it?');
    const resumed = await store.resume({
      tenant: 'globex',
      runId: input.runId,
      interruptId: theirs.interruptId,
      answer: 'x',
    });
    expect(resumed.replayed).toBe(false);
    expect((await store.getPause({ ...acmeKey, interruptId: mine.interruptId })).status).toBe('paused');
  });

  it('steps over the chunks a crashed writer left, and never reads them as a pause’s', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const first = await store.pause(input);
    await store.resume({ tenant: 'acme', runId: input.runId, interruptId: first.interruptId, answer: 'ok' });
    // A writer that crashed after its chunks and before its pause item, at the next sequence number.
    const orphan = { pk: Keys.run('acme', input.runId), v: 1, kind: 'chunk', ttl: 1, data: new Uint8Array([1, 2, 3]) };
    for (const index of [0, 1]) {
      await table.client.send(
        new PutCommand({ TableName: table.tableName, Item: { ...orphan, sk: Keys.chunk(2, 'crashedAttempt', index) } }),
      );
    }
    const second = await store.pause(input);
    expect(second.interruptId).toMatch(/^2\./);
    const result = await store.resume({
      tenant: 'acme',
      runId: input.runId,
      interruptId: second.interruptId,
      answer: 'yes',
    });
    expect(result.messages.slice(0, -2)).toEqual(input.messages);
  });

  it('returns the messages of a pause only when asked', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const key = { tenant: 'acme', runId: input.runId, interruptId };
    expect(await store.getPause(key)).not.toHaveProperty('messages');
    expect((await store.getPause(key, { includeMessages: true })).messages).toEqual(input.messages);
  });
});

describe('pause input checks', () => {
  const store = () => storeOn(table);

  it.each([
    ['a runId with a #', { runId: 'a#b' }, '/runId'],
    ['a runId of 129 characters', { runId: 'r'.repeat(129) }, '/runId'],
    ['an empty tenant', { tenant: '' }, '/tenant'],
    ['expiresInSeconds 0', { expiresInSeconds: 0 }, '/expiresInSeconds'],
    ['expiresInSeconds 31,536,001', { expiresInSeconds: 31_536_001 }, '/expiresInSeconds'],
    ['a fractional expiresInSeconds', { expiresInSeconds: 1.5 }, '/expiresInSeconds'],
    ['metadata over 4 KB', { metadata: { note: 'x'.repeat(4090) } }, '/metadata'],
    ['metadata that is an array', { metadata: [] as unknown as Record<string, unknown> }, '/metadata'],
    ['an answerSchema that is not a schema', { answerSchema: { type: 'nonsense' } }, '/answerSchema/type'],
    ['an answerSchema with a dangling $ref', { answerSchema: { $ref: '#/$defs/missing' } }, '/answerSchema'],
    ['an answerSchema that is a string', { answerSchema: 'object' as unknown as boolean }, '/answerSchema'],
    ['a prompt that is not a string', { prompt: 42 as unknown as string }, '/prompt'],
  ])('refuses %s with BadRequestError naming the field', async (_, overrides, path) => {
    const error = await store()
      .pause(pauseInput(overrides))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ name: 'BadRequestError', code: 'bad_request' });
    expect((error as BadRequestError).failures.map((f) => f.path)).toContain(path);
  });

  it.each([
    ['expiresInSeconds 1', { expiresInSeconds: 1 }],
    ['expiresInSeconds 31,536,000', { expiresInSeconds: 31_536_000 }],
    ['metadata of exactly 4 KB', { metadata: { n: 'x'.repeat(4096 - 8) } }],
    ['a boolean answerSchema', { answerSchema: true }],
    [
      'an answerSchema with unknown keywords and formats',
      { answerSchema: { type: 'string', format: 'email', 'x-ui': 'textarea' } },
    ],
  ])('accepts %s', async (_, overrides) => {
    const created = await store().pause(pauseInput(overrides));
    expect(created.status).toBe('paused');
  });

  it('accepts two pauses whose different answerSchemas share an $id, and checks each answer by its own', async () => {
    const first = pauseInput({ answerSchema: { $id: 'https://example.com/answer', type: 'string' } });
    const second = pauseInput({ answerSchema: { $id: 'https://example.com/answer', type: 'number' } });
    const a = await store().pause(first);
    const b = await store().pause(second);
    await expect(
      store().resume({ tenant: 'acme', runId: first.runId, interruptId: a.interruptId, answer: 1 }),
    ).rejects.toMatchObject({ name: 'InvalidAnswerError', code: 'invalid_answer' });
    const resumed = await store().resume({
      tenant: 'acme',
      runId: second.runId,
      interruptId: b.interruptId,
      answer: 1,
    });
    expect(resumed.replayed).toBe(false);
  });

  it('refuses a transcript that fails the strict check with InvalidTranscriptError', async () => {
    const messages = [...chatTranscript(), { role: 'user', content: 'a message after the paused round' }];
    await expect(store().pause(pauseInput({ messages }))).rejects.toBeInstanceOf(InvalidTranscriptError);
    await expect(store().pause(pauseInput({ toolCallId: 'call_9' }))).rejects.toBeInstanceOf(InvalidTranscriptError);
    await expect(store().pause(pauseInput({ format: 'klingon' as 'openai-chat' }))).rejects.toBeInstanceOf(
      InvalidTranscriptError,
    );
  });

  it('refuses an empty transcript with MissingTurnStateError', async () => {
    await expect(store().pause(pauseInput({ messages: [] }))).rejects.toBeInstanceOf(MissingTurnStateError);
  });

  it('refuses a transcript over 16 MB of JSON', async () => {
    const error = await store()
      .pause(pauseInput({ messages: chatTranscript(16 * 1024 * 1024) }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).failures[0]?.path).toBe('/messages');
  });
});
