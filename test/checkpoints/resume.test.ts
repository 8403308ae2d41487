import { describe, expect, it } from 'vitest';
import {
  AlreadyResumedError,
  BadRequestError,
  ContinuationNotFoundError,
  InvalidAnswerError,
  PauseExpiredError,
  PauseNotFoundError,
} from '../../functions/errors.ts';
import { NOT_DISPATCHED } from '../../functions/rehydrate/rehydrate.ts';
import { recordingClient, useTestTable } from '../support/dynamodb.ts';
import { expectedContinuation, pauseInput, storeOn, testClock } from './support.ts';

const table = useTestTable();

describe('resume', () => {
  it('folds the answer into the stored transcript and marks the other reserved call not dispatched', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const result = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'yes' });
    expect(result).toMatchObject({ runId: input.runId, interruptId, format: 'openai-chat', replayed: false });
    expect(result.continuationId).toMatch(/^1\.[A-Za-z0-9_-]{22}$/);
    expect(result.messages).toEqual(expectedContinuation(input.messages, 'yes', NOT_DISPATCHED));
  });

  it('returns the same continuation for the same answer again, key order aside', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const key = { tenant: 'acme', runId: input.runId, interruptId };
    const first = await store.resume({ ...key, answer: { approved: true, note: 'ok', nested: { b: 1, a: [2, 3] } } });
    const again = await store.resume({ ...key, answer: { nested: { a: [2, 3], b: 1 }, note: 'ok', approved: true } });
    expect(again).toEqual({ ...first, replayed: true });
  });

  it('refuses a different answer with AlreadyResumedError naming the continuation', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const key = { tenant: 'acme', runId: input.runId, interruptId };
    const first = await store.resume({ ...key, answer: 'yes' });
    const error = await store.resume({ ...key, answer: 'no' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyResumedError);
    expect(error).toMatchObject({
      name: 'AlreadyResumedError',
      code: 'already_resumed',
      continuationId: first.continuationId,
    });
  });

  it('lets exactly one of 100 concurrent resumes with different answers win; the 99 others name the winner', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, (_, n) =>
        store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: `answer ${n}` }),
      ),
    );
    const winners = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    const losers = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as unknown);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(99);
    for (const loser of losers) {
      expect(loser).toBeInstanceOf(AlreadyResumedError);
      expect((loser as AlreadyResumedError).continuationId).toBe(winners[0]?.continuationId);
    }
    const stored = await store.getContinuation({
      tenant: 'acme',
      runId: input.runId,
      continuationId: winners[0]?.continuationId ?? '',
    });
    expect(stored.messages).toEqual(winners[0]?.messages);
  });

  it('yields one continuation for 100 concurrent resumes with the same answer', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: { ok: true } }),
      ),
    );
    expect(new Set(results.map((r) => r.continuationId)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    for (const result of results) expect(result.messages).toEqual(results[0]?.messages);
  });

  it('validates the answer against answerSchema and lists every failure', async () => {
    const store = storeOn(table);
    const input = pauseInput({
      answerSchema: {
        type: 'object',
        properties: { approved: { type: 'boolean' }, reason: { type: 'string', minLength: 3 } },
        required: ['approved', 'reason'],
        additionalProperties: false,
      },
    });
    const { interruptId } = await store.pause(input);
    const key = { tenant: 'acme', runId: input.runId, interruptId };
    const error = await store.resume({ ...key, answer: { approved: 'yes', extra: 1 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAnswerError);
    const failures = (error as InvalidAnswerError).failures;
    expect(failures).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/approved', message: 'must be boolean' }),
        expect.objectContaining({ path: '', message: expect.stringContaining("must have required property 'reason'") }),
        expect.objectContaining({ path: '', message: expect.stringContaining('extra') }),
      ]),
    );
    const result = await store.resume({ ...key, answer: { approved: true, reason: 'fine' } });
    expect(result.replayed).toBe(false);
  });

  it('refuses answers that are not JSON or over 256 KB', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const key = { tenant: 'acme', runId: input.runId, interruptId };
    await expect(store.resume({ ...key, answer: undefined })).rejects.toBeInstanceOf(InvalidAnswerError);
    await expect(store.resume({ ...key, answer: Number.NaN })).rejects.toBeInstanceOf(InvalidAnswerError);
    await expect(store.resume({ ...key, answer: 'x'.repeat(256 * 1024) })).rejects.toBeInstanceOf(BadRequestError);
    const largest = await store.resume({ ...key, answer: 'x'.repeat(256 * 1024 - 2) });
    expect(largest.replayed).toBe(false);
  });

  it('throws PauseExpiredError for an unanswered pause past expiresAt, by the injected clock', async () => {
    const clock = testClock();
    const store = storeOn(table, { clock: clock.now });
    const input = pauseInput({ expiresInSeconds: 60 });
    const created = await store.pause(input);
    expect(created.expiresAt).toBe('2026-01-01T00:01:00.000Z');
    clock.advance(60);
    const error = await store
      .resume({ tenant: 'acme', runId: input.runId, interruptId: created.interruptId, answer: 'late' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PauseExpiredError);
    expect(error).toMatchObject({
      code: 'pause_expired',
      expiresAt: created.expiresAt,
      interruptId: created.interruptId,
    });
    const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId: created.interruptId });
    expect(view.status).toBe('expired');
  });

  it('keeps a pause resumed in time resumed: a same-answer replay after expiry returns the continuation', async () => {
    const clock = testClock();
    const store = storeOn(table, { clock: clock.now });
    const input = pauseInput({ expiresInSeconds: 60 });
    const { interruptId } = await store.pause(input);
    clock.advance(59);
    const first = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'in time' });
    clock.advance(3600);
    const again = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'in time' });
    expect(again).toEqual({ ...first, replayed: true });
    await expect(
      store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'other' }),
    ).rejects.toBeInstanceOf(AlreadyResumedError);
    const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId });
    expect(view).toMatchObject({
      status: 'resumed',
      continuationId: first.continuationId,
      resumedAt: '2026-01-01T00:00:59.000Z',
    });
  });

  it.each([
    ['an unknown interruptId', (id: string) => `${id.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAA`],
    ['a malformed interruptId', () => 'not-an-id'],
    ['a sequence number with no pause', (id: string) => `7.${id.split('.')[1]}`],
  ])('throws PauseNotFoundError for %s', async (_, mangle) => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const error = await store
      .resume({ tenant: 'acme', runId: input.runId, interruptId: mangle(interruptId), answer: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PauseNotFoundError);
    expect(error).toMatchObject({ code: 'pause_not_found' });
  });

  it('costs one strongly consistent read request and one write request, measured with ReturnConsumedCapacity', async () => {
    const input = pauseInput();
    const { interruptId } = await storeOn(table).pause(input);
    const { client, commands } = recordingClient(table);
    const result = await storeOn(table, { client }).resume({
      tenant: 'acme',
      runId: input.runId,
      interruptId,
      answer: 'yes',
    });
    expect(result.replayed).toBe(false);
    expect(commands.map((c) => c.command)).toEqual(['QueryCommand', 'UpdateItemCommand']);
    const [read, write] = commands;
    expect(read?.input).toMatchObject({ ConsistentRead: true });
    expect(read?.consumedCapacity).toMatchObject({ CapacityUnits: 1 });
    expect(write?.consumedCapacity).toMatchObject({ CapacityUnits: 1 });
    // O(answer): the claim carries the answer and a few ids and hashes, never the transcript.
    expect(JSON.stringify(write?.input).length).toBeLessThan(2_000);
  });
});

describe('getContinuation', () => {
  it('rebuilds the continuation the resume returned', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const {
      replayed: _,
      taskToken: __,
      ...resumed
    } = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: [1, 'two'] });
    const read = await store.getContinuation({
      tenant: 'acme',
      runId: input.runId,
      continuationId: resumed.continuationId,
    });
    expect(read).toEqual(resumed);
    expect(read.messages.at(-2)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '[1,"two"]' });
  });

  it('returns the task token with the resume, for the hand-off', async () => {
    const store = storeOn(table);
    const input = pauseInput({ taskToken: 'AQCEAAAAKgAAAAMAAAAA-token' });
    const { interruptId } = await store.pause(input);
    const result = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'yes' });
    expect(result.taskToken).toBe('AQCEAAAAKgAAAAMAAAAA-token');
  });

  it('throws ContinuationNotFoundError for an unknown id, another tenant, or a pause not resumed', async () => {
    const store = storeOn(table);
    const input = pauseInput();
    const { interruptId } = await store.pause(input);
    const notYet = store.getContinuation({ tenant: 'acme', runId: input.runId, continuationId: interruptId });
    await expect(notYet).rejects.toBeInstanceOf(ContinuationNotFoundError);
    const { continuationId } = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'yes' });
    await expect(store.getContinuation({ tenant: 'other', runId: input.runId, continuationId })).rejects.toMatchObject({
      name: 'ContinuationNotFoundError',
      code: 'continuation_not_found',
    });
    await expect(
      store.getContinuation({ tenant: 'acme', runId: input.runId, continuationId: 'nope' }),
    ).rejects.toBeInstanceOf(ContinuationNotFoundError);
  });
});
