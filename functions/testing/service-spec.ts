import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { CheckpointService } from '../checkpoints/checkpoint-service.ts';
import type { CheckpointStore, PauseInput } from '../checkpoints/checkpoint-store.ts';
import { ALL_CHECKS } from '../checkpoints/checks.ts';
import type { CheckpointPersistence } from '../checkpoints/persistence.ts';
import { argsHashOf } from '../checkpoints/tally.ts';
import {
  AlreadyDecidedError,
  AlreadyResumedError,
  BadRequestError,
  ContinuationNotFoundError,
  IdempotencyKeyReusedError,
  InvalidAnswerError,
  InvalidTranscriptError,
  OpenPauseExistsError,
  PauseCancelledError,
  PauseExpiredError,
  PauseNotFoundError,
  PayloadTooLargeError,
} from '../errors.ts';
import { checkTranscript } from '../rehydrate/check-transcript.ts';
import { REJECTED } from '../rehydrate/decisions.ts';
import { NOT_DISPATCHED } from '../rehydrate/rehydrate.ts';
import { chatTranscript, pauseInput, testClock } from './fixtures.ts';
import type { SpecInitializer } from './persistence-spec.ts';

/**
 * The rules of the checkpoint store, one suite for every backend: `serviceSpec(initializer)` runs the
 * same cases through `CheckpointService` on the in-memory adapter, on the DynamoDB adapter (dynalite) and on a user's
 * own (`handback/testing`). Each case gets a fresh persistence from `initializer.create`: the sweep reads every due
 * pause of the backend, so a case must not see another's.
 */

/** The library's principal, which the store records when a caller names none (§13). */
const LIBRARY = { kind: 'service', subject: 'library', via: 'library' };

/** An openai-chat round of four calls: a question, two approval-gated tools, and one call nobody is asked about. */
export function approvalTranscript(): unknown[] {
  return [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: 'Refund order A-1042 and tell the customer.' },
    {
      role: 'assistant',
      content: 'I will ask, refund and write.',
      tool_calls: [
        call('call_ask', 'ask_human', { question: 'Full or partial refund?' }),
        call('call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }),
        call('call_email', 'send_email', { to: 'c@example.com', body: 'Refunded.' }),
        call('call_lookup', 'lookup_order', { orderId: 'A-1042' }),
      ],
    },
  ];
}

function call(id: string, name: string, args: unknown) {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/** The three asks of `approvalTranscript`; `call_lookup` is not asked. */
const ASKS: NonNullable<PauseInput['asks']> = [
  { toolCallId: 'call_ask', kind: 'answer', prompt: 'Full or partial?', answerSchema: { enum: ['full', 'partial'] } },
  {
    toolCallId: 'call_refund',
    kind: 'approval',
    prompt: 'Refund EUR 120?',
    argsSchema: {
      type: 'object',
      properties: { orderId: { type: 'string' }, amount: { type: 'number', maximum: 120 } },
      required: ['orderId', 'amount'],
    },
  },
  { toolCallId: 'call_email', kind: 'approval', editable: false },
];

function withAsks(overrides: Partial<PauseInput> = {}): PauseInput {
  return {
    tenant: 'acme',
    runId: `run-${randomUUID()}`,
    format: 'openai-chat',
    messages: approvalTranscript(),
    asks: ASKS,
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** The rules' spec suite: every case through `CheckpointService` on a fresh persistence from `initializer.create`. */
export function serviceSpec<T extends CheckpointPersistence>(initializer: SpecInitializer<T>): void {
  const made: T[] = [];
  /** A store on a backend of its own (so a sweep sees only this test's pauses), its clock and its changes. */
  const setup = async (start?: string) => {
    const clock = testClock(start);
    const changes: PauseChange[] = [];
    const persistence = await initializer.create();
    made.push(persistence);
    const storeOn = (options: { clock: () => Date; onChange?: (change: PauseChange) => void }): CheckpointStore =>
      new CheckpointService({ checks: ALL_CHECKS, ...options, persistence });
    const store = storeOn({ clock: clock.now, onChange: (change) => changes.push(change) });
    /** Another store on the same backend, with a clock of its own (another Lambda, another clock). */
    const sibling = (now: () => Date) => storeOn({ clock: now });
    return { clock, store, changes, sibling };
  };

  describe(`the checkpoint rules on ${initializer.name}`, () => {
    if (initializer.beforeAll !== undefined) beforeAll(initializer.beforeAll);
    if (initializer.afterAll !== undefined) afterAll(initializer.afterAll);
    afterEach(async () => {
      for (const persistence of made.splice(0)) await initializer.destroy?.(persistence);
    });

    describe('pause', () => {
      it('records a part-one pause and shows it with its one answer ask', async () => {
        const { store } = await setup('2026-03-01T12:00:00.000Z');
        const input = pauseInput({ metadata: { ticket: 'T-1' }, answerSchema: { type: 'boolean' } });
        const created = await store.pause(input);
        expect(created).toEqual({
          runId: input.runId,
          interruptId: expect.stringMatching(/^1\.1\.[A-Za-z0-9_-]{22}$/),
          toolCallId: 'call_1',
          asks: ['call_1'],
          status: 'paused',
          createdAt: '2026-03-01T12:00:00.000Z',
          expiresAt: '2026-03-08T12:00:00.000Z',
        });
        const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId: created.interruptId });
        expect(view).toMatchObject({
          status: 'paused',
          format: 'openai-chat',
          toolCall: { id: 'call_1', name: 'ask_human', args: { question: 'Ship it?' } },
          prompt: 'Ship it?',
          answerSchema: { type: 'boolean' },
          metadata: { ticket: 'T-1' },
          onExpiry: 'fail',
          decided: [],
          pending: ['call_1'],
          asks: [
            {
              toolCallId: 'call_1',
              name: 'ask_human',
              args: { question: 'Ship it?' },
              kind: 'answer',
              prompt: 'Ship it?',
              answerSchema: { type: 'boolean' },
            },
          ],
        });
        expect(view).not.toHaveProperty('messages');
      });

      it('records asks of both kinds, with their prompts, schemas and editability, and the turn’s context', async () => {
        const { store } = await setup();
        const input = withAsks();
        const created = await store.pause(input);
        expect(created.asks).toEqual(['call_ask', 'call_refund', 'call_email']);
        const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId: created.interruptId });
        expect(view.asks).toEqual([
          {
            toolCallId: 'call_ask',
            name: 'ask_human',
            args: { question: 'Full or partial refund?' },
            kind: 'answer',
            prompt: 'Full or partial?',
            answerSchema: { enum: ['full', 'partial'] },
            argsHash: argsHashOf({ question: 'Full or partial refund?' }),
            tally: { have: 0, need: 1 },
          },
          {
            toolCallId: 'call_refund',
            name: 'refund_order',
            args: { orderId: 'A-1042', amount: 120 },
            kind: 'approval',
            prompt: 'Refund EUR 120?',
            argsSchema: ASKS[1]?.argsSchema,
            editable: true,
            argsHash: argsHashOf({ orderId: 'A-1042', amount: 120 }),
            tally: { have: 0, need: 1 },
          },
          {
            toolCallId: 'call_email',
            name: 'send_email',
            args: { to: 'c@example.com', body: 'Refunded.' },
            kind: 'approval',
            prompt: null,
            editable: false,
            argsHash: argsHashOf({ to: 'c@example.com', body: 'Refunded.' }),
            tally: { have: 0, need: 1 },
          },
        ]);
        expect(view.context).toEqual({
          user: 'Refund order A-1042 and tell the customer.',
          assistant: 'I will ask, refund and write.',
        });
      });

      it.each([
        ['both forms at once', { toolCallId: 'call_ask' }, BadRequestError],
        ['an unknown kind', { asks: [{ toolCallId: 'call_ask', kind: 'vote' as never }] }, BadRequestError],
        [
          'an argsSchema on an answer ask',
          { asks: [{ toolCallId: 'call_ask', argsSchema: { type: 'object' } }] },
          BadRequestError,
        ],
        [
          'an answerSchema on an approval ask',
          { asks: [{ toolCallId: 'call_refund', kind: 'approval' as const, answerSchema: { type: 'string' } }] },
          BadRequestError,
        ],
        [
          'the same call asked twice',
          { asks: [{ toolCallId: 'call_ask' }, { toolCallId: 'call_ask' }] },
          BadRequestError,
        ],
        ['no asks', { asks: [] }, BadRequestError],
        ['17 asks', { asks: Array.from({ length: 17 }, () => ({ toolCallId: 'call_ask' })) }, BadRequestError],
        ['a call that is not in the round', { asks: [{ toolCallId: 'call_nope' }] }, InvalidTranscriptError],
        [
          'an answerSchema of another draft',
          { asks: [{ toolCallId: 'call_ask', answerSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } }] },
          BadRequestError,
        ],
        ['onExpiry "maybe"', { onExpiry: 'maybe' as never }, BadRequestError],
        ['a reminder after the expiry', { expiresInSeconds: 60, remindBeforeSeconds: 60 }, BadRequestError],
      ])('refuses %s and records nothing', async (_, overrides, errorClass) => {
        const { store } = await setup();
        const input = withAsks(overrides as Partial<PauseInput>);
        await expect(store.pause(input)).rejects.toBeInstanceOf(errorClass);
        const page = await store.listPauses({ tenant: 'acme', limit: 100 });
        expect(page.items.filter((item) => item.runId === input.runId)).toEqual([]);
      });

      it('refuses an empty transcript, a transcript failing the strict check, and one over 16 MB', async () => {
        const { store } = await setup();
        // No messages is a pause body without its field (§5: 400), as over HTTP, not a stored pause without them.
        await expect(store.pause(pauseInput({ messages: [] }))).rejects.toMatchObject({
          name: 'BadRequestError',
          failures: [{ path: '/messages' }],
        });
        const orphan = [{ role: 'tool', tool_call_id: 'x', content: 'r' }, ...chatTranscript()];
        await expect(store.pause(pauseInput({ messages: orphan }))).rejects.toBeInstanceOf(InvalidTranscriptError);
        const huge = chatTranscript(16 * 1024 * 1024);
        await expect(store.pause(pauseInput({ messages: huge }))).rejects.toBeInstanceOf(PayloadTooLargeError);
      });

      it('allows one open pause per run, and a new one once it is closed', async () => {
        const { store, clock } = await setup();
        const input = pauseInput({ expiresInSeconds: 60 });
        const first = await store.pause(input);
        const error = await rejection(store.pause(input));
        expect(error).toBeInstanceOf(OpenPauseExistsError);
        expect(error).toMatchObject({ interruptId: first.interruptId });
        await store.resume({ tenant: 'acme', runId: input.runId, interruptId: first.interruptId, answer: 'ok' });
        const second = await store.pause(input);
        expect(second.interruptId).toMatch(/^2\./);
        clock.advance(61);
        const third = await store.pause(input);
        expect(third.interruptId).toMatch(/^3\./);
      });

      it('returns the first pause again for a retry with the same Idempotency-Key and body, and refuses another body', async () => {
        const { store } = await setup();
        const input = pauseInput({ idempotencyKey: 'req-7' });
        const first = await store.pause(input);
        const again = await store.pause({ ...input, metadata: undefined });
        expect(again).toEqual({ ...first, replayed: true });
        const error = await rejection(store.pause({ ...input, prompt: 'Something else?' }));
        expect(error).toBeInstanceOf(IdempotencyKeyReusedError);
        expect(error).toMatchObject({ code: 'idempotency_key_reused', interruptId: first.interruptId });
      });

      it('makes one pause of ten concurrent retries with the same Idempotency-Key', async () => {
        const { store } = await setup();
        const input = pauseInput({ idempotencyKey: 'same' });
        const results = await Promise.all(Array.from({ length: 10 }, () => store.pause(input)));
        expect(new Set(results.map((r) => r.interruptId)).size).toBe(1);
        expect(results.filter((r) => !r.replayed)).toHaveLength(1);
      });

      it('lets one of ten concurrent pauses of a run win; the others see it open', async () => {
        const { store } = await setup();
        const input = pauseInput();
        const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => store.pause(input)));
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const lost of outcomes.filter((o) => o.status === 'rejected')) {
          expect((lost as PromiseRejectedResult).reason).toBeInstanceOf(OpenPauseExistsError);
        }
      });

      it('keeps two tenants with the same runId apart', async () => {
        const { store } = await setup();
        const input = pauseInput();
        const mine = await store.pause(input);
        const theirs = await store.pause({ ...input, tenant: 'globex' });
        await expect(
          store.getPause({ tenant: 'globex', runId: input.runId, interruptId: mine.interruptId }),
        ).rejects.toBeInstanceOf(PauseNotFoundError);
        await store.resume({ tenant: 'globex', runId: input.runId, interruptId: theirs.interruptId, answer: 'x' });
        const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId: mine.interruptId });
        expect(view.status).toBe('paused');
      });

      it('keeps args too large for the record out of listings, and shows them from the transcript', async () => {
        const { store } = await setup();
        const messages = approvalTranscript();
        const big = { orderId: 'A-1042', amount: 1, note: 'x'.repeat(70 * 1024) };
        (messages[2] as { tool_calls: Array<{ function: { arguments: string } }> }).tool_calls[1] = call(
          'call_refund',
          'refund_order',
          big,
        ) as never;
        const input = withAsks({ messages, asks: [{ toolCallId: 'call_refund', kind: 'approval' }] });
        const created = await store.pause(input);
        const listed = (await store.listPauses({ tenant: 'acme', limit: 100 })).items.find(
          (item) => item.interruptId === created.interruptId,
        );
        expect(listed?.asks[0]).toMatchObject({ args: null, argsOmitted: true });
        const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId: created.interruptId });
        expect(view.asks[0]?.args).toEqual(big);
        expect(view.asks[0]).not.toHaveProperty('argsOmitted');
      });
    });

    describe('resume (part one)', () => {
      it('answers the call and marks every other reserved call not dispatched, in call order', async () => {
        const { store } = await setup();
        const input = pauseInput();
        const { interruptId } = await store.pause(input);
        const result = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'yes' });
        expect(result).toMatchObject({ outcome: 'resumed', dispatch: [], replayed: false, format: 'openai-chat' });
        expect(result.continuationId).toMatch(/^1\.1\.[A-Za-z0-9_-]{22}$/);
        expect(result.messages).toEqual([
          ...input.messages,
          { role: 'tool', tool_call_id: 'call_1', content: 'yes' },
          { role: 'tool', tool_call_id: 'call_2', content: NOT_DISPATCHED },
        ]);
        expect(checkTranscript('openai-chat', result.messages)).toEqual([]);
      });

      it('replays the same answer, key order aside, and refuses another with AlreadyResumedError', async () => {
        const { store } = await setup();
        const input = pauseInput();
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        const first = await store.resume({ ...key, answer: { a: 1, b: [2, { c: 3, d: 4 }] } });
        const again = await store.resume({ ...key, answer: { b: [2, { d: 4, c: 3 }], a: 1 } });
        expect(again).toEqual({ ...first, replayed: true });
        const error = await rejection(store.resume({ ...key, answer: 'no' }));
        expect(error).toBeInstanceOf(AlreadyResumedError);
        expect(error).toMatchObject({ continuationId: first.continuationId });
      });

      it('lets exactly one of 50 concurrent resumes with different answers win', async () => {
        const { store } = await setup();
        const input = pauseInput();
        const { interruptId } = await store.pause(input);
        const outcomes = await Promise.allSettled(
          Array.from({ length: 50 }, (_, n) =>
            store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: n }),
          ),
        );
        const winners = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
        expect(winners).toHaveLength(1);
        for (const lost of outcomes.filter((o) => o.status === 'rejected')) {
          expect((lost as PromiseRejectedResult).reason).toBeInstanceOf(AlreadyResumedError);
          expect((lost as PromiseRejectedResult).reason.continuationId).toBe(winners[0]?.continuationId);
        }
      });

      it('gives 50 concurrent resumes with the same answer one continuation', async () => {
        const { store } = await setup();
        const input = pauseInput();
        const { interruptId } = await store.pause(input);
        const results = await Promise.all(
          Array.from({ length: 50 }, () =>
            store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'ok' }),
          ),
        );
        expect(new Set(results.map((r) => r.continuationId)).size).toBe(1);
        expect(results.filter((r) => !r.replayed)).toHaveLength(1);
      });

      it('checks the answer against answerSchema, listing every failure, and records nothing', async () => {
        const { store } = await setup();
        const input = pauseInput({
          answerSchema: {
            type: 'object',
            properties: { approved: { type: 'boolean' } },
            required: ['approved', 'reason'],
            additionalProperties: false,
          },
        });
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        const error = await rejection(store.resume({ ...key, answer: { approved: 'yes', extra: 1 } }));
        expect(error).toBeInstanceOf(InvalidAnswerError);
        expect((error as InvalidAnswerError).failures).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ path: '/approved', message: 'must be boolean' }),
            expect.objectContaining({ message: expect.stringContaining('reason') }),
            expect.objectContaining({ message: expect.stringContaining('extra') }),
          ]),
        );
        expect((await store.getPause(key)).decided).toEqual([]);
      });

      it('refuses answers that are missing, not JSON or over 256 KB', async () => {
        const { store } = await setup();
        const input = pauseInput();
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        // Missing is a field the request lacks (§5: 400), as over HTTP; a value JSON cannot carry is the answer's (422).
        await expect(store.resume({ ...key, answer: undefined })).rejects.toMatchObject({
          name: 'BadRequestError',
          failures: [{ path: '/answer', message: 'is required' }],
        });
        await expect(store.resume({ ...key, answer: Number.NaN })).rejects.toBeInstanceOf(InvalidAnswerError);
        await expect(store.resume({ ...key, answer: 'x'.repeat(256 * 1024) })).rejects.toBeInstanceOf(
          PayloadTooLargeError,
        );
        expect((await store.resume({ ...key, answer: 'x'.repeat(256 * 1024 - 2) })).replayed).toBe(false);
      });

      it('refuses a late answer with PauseExpiredError, and keeps a pause resumed in time resumed', async () => {
        const { store, clock } = await setup();
        const late = pauseInput({ expiresInSeconds: 60 });
        const lateId = (await store.pause(late)).interruptId;
        const onTime = pauseInput({ expiresInSeconds: 60 });
        const onTimeId = (await store.pause(onTime)).interruptId;
        const first = await store.resume({ tenant: 'acme', runId: onTime.runId, interruptId: onTimeId, answer: 'ok' });
        clock.advance(60);
        const error = await rejection(
          store.resume({ tenant: 'acme', runId: late.runId, interruptId: lateId, answer: 1 }),
        );
        expect(error).toBeInstanceOf(PauseExpiredError);
        expect(error).toMatchObject({ expiresAt: '2026-01-01T00:01:00.000Z' });
        const view = await store.getPause({ tenant: 'acme', runId: late.runId, interruptId: lateId });
        expect(view.status).toBe('expired');
        const replay = await store.resume({ tenant: 'acme', runId: onTime.runId, interruptId: onTimeId, answer: 'ok' });
        expect(replay).toEqual({ ...first, replayed: true });
      });

      it('refuses an answer for a pause with several asks: they take decisions', async () => {
        const { store } = await setup();
        const input = withAsks();
        const { interruptId } = await store.pause(input);
        const error = await rejection(
          store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'full' }),
        );
        expect(error).toBeInstanceOf(BadRequestError);
        expect((error as Error).message).toContain('send decisions');
      });

      it.each([
        ['an id that is not an id', () => 'nope'],
        ['an unknown random part', (id: string) => `${id.slice(0, id.lastIndexOf('.'))}.AAAAAAAAAAAAAAAAAAAAAA`],
        ['a sequence number with no pause', (id: string) => `7${id.slice(id.indexOf('.'))}`],
        ['another part count', (id: string) => id.replace(/^(\d+)\.\d+\./, '$1.9.')],
      ])('answers PauseNotFoundError for %s', async (_, forge) => {
        const { store } = await setup();
        const input = pauseInput();
        const { interruptId } = await store.pause(input);
        const forged = forge(interruptId);
        const error = await rejection(
          store.resume({ tenant: 'acme', runId: input.runId, interruptId: forged, answer: 1 }),
        );
        expect(error).toBeInstanceOf(PauseNotFoundError);
      });
    });

    describe('decide', () => {
      it('records decisions one request at a time: pending while asks wait, the last one commits the continuation', async () => {
        const { store } = await setup();
        const input = withAsks();
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        const first = await store.decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'partial' }] });
        expect(first).toEqual({
          kind: 'pending',
          runId: input.runId,
          interruptId,
          status: 'paused',
          decided: ['call_ask'],
          pending: ['call_refund', 'call_email'],
          replayed: false,
        });
        const second = await store.decide({
          ...key,
          decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 60 } }],
        });
        expect(second).toMatchObject({ kind: 'pending', pending: ['call_email'] });
        const last = await store.decide({
          ...key,
          decisions: [{ toolCallId: 'call_email', decision: 'reject', reason: 'Write it myself.' }],
        });
        if (last.kind !== 'closed') throw new Error('expected the continuation');
        expect(last.outcome).toBe('resumed');
        expect(last.dispatch).toEqual([
          { toolCallId: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 60 } },
        ]);
        const round = last.messages[2] as { tool_calls: Array<{ id: string; function: { arguments: string } }> };
        expect(JSON.parse(round.tool_calls[1]?.function.arguments ?? '')).toEqual({ orderId: 'A-1042', amount: 60 });
        expect(last.messages.slice(3)).toEqual([
          { role: 'tool', tool_call_id: 'call_ask', content: 'partial' },
          { role: 'tool', tool_call_id: 'call_email', content: `${REJECTED}\nReason: Write it myself.` },
          { role: 'tool', tool_call_id: 'call_lookup', content: NOT_DISPATCHED },
        ]);
        const violations = checkTranscript('openai-chat', last.messages);
        expect(violations.map((v) => v.rule)).toEqual(['missing-result']);
        expect(violations[0]?.message).toContain('call_refund');
        const view = await store.getPause(key);
        expect(view).toMatchObject({ status: 'resumed', outcome: 'resumed', continuationId: last.continuationId });
        expect(view.asks[1]).toMatchObject({
          args: { orderId: 'A-1042', amount: 120 },
          decision: { decision: 'edit', args: { orderId: 'A-1042', amount: 60 } },
          decidedAt: '2026-01-01T00:00:00.000Z',
        });
      });

      it('replays a decision already recorded, and refuses a different one naming the ask, changing nothing', async () => {
        const { store } = await setup();
        const input = withAsks();
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
        const replay = await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
        expect(replay).toMatchObject({ kind: 'pending', replayed: true, decided: ['call_refund'] });
        const error = await rejection(
          store.decide({
            ...key,
            decisions: [
              { toolCallId: 'call_ask', answer: 'full' },
              { toolCallId: 'call_refund', decision: 'reject' },
            ],
          }),
        );
        expect(error).toBeInstanceOf(AlreadyDecidedError);
        expect(error).toMatchObject({ code: 'already_decided', toolCallId: 'call_refund' });
        expect((await store.getPause(key)).decided).toEqual(['call_refund']);
      });

      it.each([
        [
          'a decision for a call that is not an ask',
          [{ toolCallId: 'call_lookup', decision: 'approve' }],
          BadRequestError,
        ],
        ['an approval of an answer ask', [{ toolCallId: 'call_ask', decision: 'approve' }], BadRequestError],
        ['an answer to an approval ask', [{ toolCallId: 'call_refund', answer: 'yes' }], BadRequestError],
        [
          'two decisions for one ask',
          [
            { toolCallId: 'call_refund', decision: 'approve' },
            { toolCallId: 'call_refund', decision: 'reject' },
          ],
          BadRequestError,
        ],
        ['an answer failing answerSchema', [{ toolCallId: 'call_ask', answer: 'half' }], InvalidAnswerError],
        [
          'edited args failing argsSchema',
          [{ toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 500 } }],
          InvalidAnswerError,
        ],
        [
          'edited args that are not an object',
          [{ toolCallId: 'call_refund', decision: 'edit', args: [1] }],
          InvalidAnswerError,
        ],
        [
          'an edit of a call that is not editable',
          [{ toolCallId: 'call_email', decision: 'edit', args: {} }],
          InvalidAnswerError,
        ],
        [
          'a reason over 2 KB',
          [{ toolCallId: 'call_email', decision: 'reject', reason: 'x'.repeat(2049) }],
          BadRequestError,
        ],
        ['no decisions', [], BadRequestError],
      ])('refuses %s and changes nothing', async (_, decisions, errorClass) => {
        const { store } = await setup();
        const input = withAsks();
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        await expect(store.decide({ ...key, decisions: decisions as never })).rejects.toBeInstanceOf(errorClass);
        expect(await store.getPause(key)).toMatchObject({ status: 'paused', decided: [] });
      });

      it('records 16 asks decided by 16 concurrent requests once each, committing exactly one continuation', async () => {
        const { store } = await setup();
        const calls = Array.from({ length: 16 }, (_, n) => call(`call_${n}`, 'refund_order', { n }));
        const messages = [
          { role: 'user', content: 'Refund all sixteen.' },
          { role: 'assistant', content: null, tool_calls: calls },
        ];
        const asks = calls.map((c) => ({ toolCallId: c.id, kind: 'approval' as const }));
        const input = withAsks({ messages, asks });
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        const results = await Promise.all(
          calls.map((c, n) =>
            store.decide({
              ...key,
              decisions: [
                n % 2 === 0 ? { toolCallId: c.id, decision: 'approve' } : { toolCallId: c.id, decision: 'reject' },
              ],
            }),
          ),
        );
        const closed = results.filter((r) => r.kind === 'closed');
        expect(closed).toHaveLength(1);
        for (const result of results.filter((r) => r.kind === 'pending')) {
          if (result.kind !== 'pending') continue;
          expect(result.decided.length + result.pending.length).toBe(16);
          expect(result.pending.length).toBeGreaterThan(0);
        }
        const view = await store.getPause(key);
        expect(view.decided).toHaveLength(16);
        expect(view.continuationId).toBe(closed[0]?.kind === 'closed' ? closed[0].continuationId : undefined);
        const continuation = await store.getContinuation({ ...key, continuationId: view.continuationId as string });
        expect(continuation.dispatch.map((d) => d.toolCallId)).toEqual(
          calls.filter((_, n) => n % 2 === 0).map((c) => c.id),
        );
      });

      it('names the decision of the request a schema failure belongs to, when several asks are decided at once', async () => {
        const { store } = await setup();
        const input = withAsks();
        const { interruptId } = await store.pause(input);
        const error = await rejection(
          store.decide({
            tenant: 'acme',
            runId: input.runId,
            interruptId,
            decisions: [
              { toolCallId: 'call_ask', answer: 'full' },
              { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 500 } },
            ],
          }),
        );
        expect(error).toBeInstanceOf(InvalidAnswerError);
        expect((error as InvalidAnswerError).failures).toEqual([
          expect.objectContaining({ path: '/decisions/1/args/amount' }),
        ]);
      });

      it('lets one of two racers on the same ask win; the other is told it was already decided', async () => {
        const { store } = await setup();
        const input = withAsks();
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        const outcomes = await Promise.allSettled([
          store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] }),
          store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'reject', reason: 'No.' }] }),
        ]);
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
        expect(lost.reason).toBeInstanceOf(AlreadyDecidedError);
      });

      it('replays the continuation to a decision repeated after the pause resumed, and refuses a different one', async () => {
        const { store } = await setup();
        const input = withAsks({ asks: [{ toolCallId: 'call_refund', kind: 'approval' }] });
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        const first = await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
        const again = await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
        expect(again).toEqual({ ...first, replayed: true });
        const error = await rejection(
          store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'reject' }] }),
        );
        expect(error).toBeInstanceOf(AlreadyDecidedError);
      });
    });

    describe('cancel', () => {
      it('rejects every undecided ask and every recorded approval, keeps answers, and dispatches nothing', async () => {
        const { store } = await setup();
        const input = withAsks();
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        await store.decide({
          ...key,
          decisions: [
            { toolCallId: 'call_ask', answer: 'full' },
            { toolCallId: 'call_refund', decision: 'approve' },
          ],
        });
        const cancelled = await store.cancel({ ...key, reason: 'The customer withdrew.' });
        const rejected = `${REJECTED}\nReason: The customer withdrew.`;
        expect(cancelled).toMatchObject({ outcome: 'cancelled', dispatch: [], replayed: false });
        expect(cancelled.messages.slice(3)).toEqual([
          { role: 'tool', tool_call_id: 'call_ask', content: 'full' },
          { role: 'tool', tool_call_id: 'call_refund', content: rejected },
          { role: 'tool', tool_call_id: 'call_email', content: rejected },
          { role: 'tool', tool_call_id: 'call_lookup', content: NOT_DISPATCHED },
        ]);
        expect(checkTranscript('openai-chat', cancelled.messages)).toEqual([]);
        const view = await store.getPause(key);
        expect(view).toMatchObject({ status: 'cancelled', outcome: 'cancelled', decided: ['call_ask', 'call_refund'] });
        // The approval stays in the audit trail as recorded, with who made it; the cancel says who cancelled.
        expect(view.asks[1]?.decision).toEqual({ decision: 'approve', by: LIBRARY });
        expect(view.cancelledBy).toEqual(LIBRARY);
      });

      it('answers a second cancel with the same continuation, and refuses decisions after it', async () => {
        const { store } = await setup();
        const input = withAsks();
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        const first = await store.cancel(key);
        expect(await store.cancel({ ...key, reason: 'again' })).toEqual({ ...first, replayed: true });
        const error = await rejection(
          store.decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'full' }] }),
        );
        expect(error).toBeInstanceOf(PauseCancelledError);
        expect(error).toMatchObject({ continuationId: first.continuationId });
      });

      it('refuses to cancel a resumed pause or an expired one', async () => {
        const { store, clock } = await setup();
        const resumed = pauseInput();
        const resumedId = (await store.pause(resumed)).interruptId;
        await store.resume({ tenant: 'acme', runId: resumed.runId, interruptId: resumedId, answer: 'ok' });
        await expect(
          store.cancel({ tenant: 'acme', runId: resumed.runId, interruptId: resumedId }),
        ).rejects.toBeInstanceOf(AlreadyResumedError);
        const expired = pauseInput({ expiresInSeconds: 5 });
        const expiredId = (await store.pause(expired)).interruptId;
        clock.advance(5);
        await expect(
          store.cancel({ tenant: 'acme', runId: expired.runId, interruptId: expiredId }),
        ).rejects.toBeInstanceOf(PauseExpiredError);
      });

      it('races a cancel against decisions 100 times over: always exactly one outcome, and the loser is told', async () => {
        const { store } = await setup();
        for (let round = 0; round < 100; round++) {
          const input = withAsks({ asks: [{ toolCallId: 'call_refund', kind: 'approval' }] });
          const { interruptId } = await store.pause(input);
          const key = { tenant: 'acme', runId: input.runId, interruptId };
          const [decided, cancelled] = await Promise.allSettled([
            store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] }),
            store.cancel(key),
          ]);
          const view = await store.getPause(key);
          if (view.status === 'resumed') {
            expect(decided.status).toBe('fulfilled');
            expect((cancelled as PromiseRejectedResult).reason).toBeInstanceOf(AlreadyResumedError);
          } else {
            expect(view.status).toBe('cancelled');
            expect(cancelled.status).toBe('fulfilled');
            expect((decided as PromiseRejectedResult).reason).toBeInstanceOf(PauseCancelledError);
          }
        }
      });
    });

    describe('expiry and the sweep', () => {
      it('marks an onExpiry "fail" pause expired when it is due, once, and writes nothing into a transcript', async () => {
        const { store, clock } = await setup();
        const input = pauseInput({ expiresInSeconds: 60 });
        const { interruptId } = await store.pause(input);
        expect(await store.closeDue()).toEqual({ reminded: [], expired: [], closed: [] });
        clock.advance(60);
        const swept = await store.closeDue();
        expect(swept.expired.map((view) => view.interruptId)).toEqual([interruptId]);
        expect(swept.expired[0]).toMatchObject({ status: 'expired' });
        expect(swept.expired[0]).not.toHaveProperty('continuationId');
        expect(await store.closeDue()).toEqual({ reminded: [], expired: [], closed: [] });
        const error = await rejection(
          store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'late' }),
        );
        expect(error).toBeInstanceOf(PauseExpiredError);
      });

      it('closes an onExpiry "reject" pause with its continuation: undecided asks rejected, recorded approvals kept', async () => {
        const { store, clock } = await setup();
        const input = withAsks({ expiresInSeconds: 60, onExpiry: 'reject', taskToken: 'token-1' });
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
        clock.advance(61);
        const swept = await store.closeDue();
        expect(swept.closed).toHaveLength(1);
        const closed = swept.closed[0];
        expect(closed).toMatchObject({ outcome: 'expired', taskToken: 'token-1', interruptId });
        expect(closed?.dispatch.map((d) => d.toolCallId)).toEqual(['call_refund']);
        const reason = `${REJECTED}\nReason: No one decided before 2026-01-01T00:01:00.000Z`;
        expect(closed?.messages.slice(3)).toEqual([
          { role: 'tool', tool_call_id: 'call_ask', content: reason },
          { role: 'tool', tool_call_id: 'call_email', content: reason },
          { role: 'tool', tool_call_id: 'call_lookup', content: NOT_DISPATCHED },
        ]);
        const view = await store.getPause(key);
        expect(view).toMatchObject({ status: 'expired', outcome: 'expired', continuationId: closed?.continuationId });
        // Nothing waits once it is closed; what people decided stays as the audit trail, and each ask the expiry
        // rejected names the sweep as its decider (§13).
        expect(view).toMatchObject({ decided: ['call_ask', 'call_refund', 'call_email'], pending: [] });
        expect(view.asks.map((ask) => ask.decision?.by?.subject)).toEqual([
          'service:sweep',
          'library',
          'service:sweep',
        ]);
        const continuation = await store.getContinuation({ ...key, continuationId: closed?.continuationId as string });
        expect(continuation.messages).toEqual(closed?.messages);
        expect(await store.closeDue()).toEqual({ reminded: [], expired: [], closed: [] });
      });

      it('closes a due pause once when two sweeps run at the same time', async () => {
        const { store, clock } = await setup();
        const input = pauseInput({ expiresInSeconds: 1, onExpiry: 'reject' });
        await store.pause(input);
        clock.advance(1);
        const [a, b] = await Promise.all([store.closeDue(), store.closeDue()]);
        expect(a.closed.length + b.closed.length).toBe(1);
      });

      it('races a late decision against the closing sweep 100 times over: exactly one outcome, the loser told', async () => {
        // The person's request runs where the clock says the pause is still open, the sweep where it says it is not:
        // two Lambdas with skewed clocks. Only the conditional writes decide who wins.
        const { store, clock, sibling } = await setup();
        const sweeper = sibling(() => new Date(clock.now().getTime() + 1));
        const outcomes = new Set<string>();
        for (let round = 0; round < 100; round++) {
          const input = pauseInput({ expiresInSeconds: 10, onExpiry: 'reject' });
          const { interruptId } = await store.pause(input);
          clock.advance(9.9995);
          // Each side starts first in every other round; the other follows within 60 ms (the sweep reads every shard of the due index first).
          const later = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 60));
          const [decided, swept] = await Promise.allSettled([
            (round % 2 === 0 ? later() : Promise.resolve()).then(() =>
              store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'just in time' }),
            ),
            (round % 2 === 1 ? later() : Promise.resolve()).then(() => sweeper.closeDue()),
          ]);
          clock.advance(0.0005);
          const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId });
          const closedBySweep =
            swept.status === 'fulfilled' && swept.value.closed.some((closed) => closed.interruptId === interruptId);
          outcomes.add(String(view.outcome));
          if (decided.status === 'fulfilled') {
            expect(view.outcome).toBe('resumed');
            expect(closedBySweep).toBe(false);
            expect(decided.value.continuationId).toBe(view.continuationId);
          } else {
            expect(decided.reason).toBeInstanceOf(PauseExpiredError);
            expect(closedBySweep).toBe(true);
            expect(view.outcome).toBe('expired');
          }
        }
        // Both sides won some rounds: the race is real.
        expect(outcomes).toEqual(new Set(['resumed', 'expired']));
      });

      it('sends a reminder once at expiresAt − remindBeforeSeconds, then closes at expiry', async () => {
        const { store, clock, changes } = await setup();
        const input = pauseInput({ expiresInSeconds: 100, remindBeforeSeconds: 30, onExpiry: 'reject' });
        const { interruptId } = await store.pause(input);
        const view = await store.getPause({ tenant: 'acme', runId: input.runId, interruptId });
        expect(view.remindAt).toBe('2026-01-01T00:01:10.000Z');
        clock.advance(69);
        expect((await store.closeDue()).reminded).toEqual([]);
        clock.advance(1);
        expect((await store.closeDue()).reminded.map((v) => v.interruptId)).toEqual([interruptId]);
        expect((await store.closeDue()).reminded).toEqual([]);
        clock.advance(30);
        expect((await store.closeDue()).closed.map((c) => c.interruptId)).toEqual([interruptId]);
        expect(changes.map((c) => [c.before?.status ?? null, c.after.status, c.after.remindedAt ?? null])).toEqual([
          [null, 'paused', null],
          ['paused', 'paused', '2026-01-01T00:01:10.000Z'],
          ['paused', 'expired', '2026-01-01T00:01:10.000Z'],
        ]);
      });
    });

    describe('listPauses', () => {
      it('lists the tenant’s pauses newest first, by status derived on read', async () => {
        const { store, clock } = await setup();
        const tenant = `t-${randomUUID()}`;
        const open = pauseInput({ tenant });
        const openId = (await store.pause(open)).interruptId;
        clock.advance(1);
        const resumed = pauseInput({ tenant });
        const resumedId = (await store.pause(resumed)).interruptId;
        await store.resume({ tenant, runId: resumed.runId, interruptId: resumedId, answer: 'ok' });
        clock.advance(1);
        const cancelled = withAsks({ tenant });
        const cancelledId = (await store.pause(cancelled)).interruptId;
        await store.cancel({ tenant, runId: cancelled.runId, interruptId: cancelledId });
        clock.advance(1);
        const expired = pauseInput({ tenant, expiresInSeconds: 1 });
        const expiredId = (await store.pause(expired)).interruptId;
        clock.advance(1);
        const all = await store.listPauses({ tenant });
        expect(all.items.map((item) => [item.interruptId, item.status])).toEqual([
          [expiredId, 'expired'],
          [cancelledId, 'cancelled'],
          [resumedId, 'resumed'],
          [openId, 'paused'],
        ]);
        for (const status of ['paused', 'resumed', 'expired', 'cancelled'] as const) {
          const page = await store.listPauses({ tenant, status });
          expect(page.items.map((item) => item.status)).toEqual([status]);
        }
      });

      it('pages with an opaque cursor, no page repeating or skipping a pause', async () => {
        const { store, clock } = await setup();
        const tenant = `t-${randomUUID()}`;
        const ids: string[] = [];
        for (let n = 0; n < 7; n++) {
          ids.unshift((await store.pause(pauseInput({ tenant }))).interruptId);
          clock.advance(1);
        }
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.listPauses({ tenant, status: 'paused', limit: 3, ...(cursor ? { cursor } : {}) });
          expect(page.items.length).toBeLessThanOrEqual(3);
          seen.push(...page.items.map((item) => item.interruptId));
          cursor = page.cursor;
        } while (cursor !== undefined);
        expect(seen).toEqual(ids);
      });

      it('refuses a limit outside 1–100, an unknown status, and a cursor made for another status', async () => {
        const { store } = await setup();
        const tenant = `t-${randomUUID()}`;
        for (let n = 0; n < 3; n++) await store.pause(pauseInput({ tenant }));
        await expect(store.listPauses({ tenant, limit: 0 })).rejects.toBeInstanceOf(BadRequestError);
        await expect(store.listPauses({ tenant, limit: 101 })).rejects.toBeInstanceOf(BadRequestError);
        await expect(store.listPauses({ tenant, status: 'lost' as never })).rejects.toBeInstanceOf(BadRequestError);
        const { cursor } = await store.listPauses({ tenant, limit: 1 });
        await expect(store.listPauses({ tenant, status: 'paused', cursor: cursor as string })).rejects.toBeInstanceOf(
          BadRequestError,
        );
        await expect(store.listPauses({ tenant, cursor: 'garbage!' })).rejects.toBeInstanceOf(BadRequestError);
      });
    });

    describe('getContinuation', () => {
      it('rebuilds the continuation the closing returned, and finds none for another tenant or an open pause', async () => {
        const { store } = await setup();
        const input = withAsks();
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        const result = await store.cancel(key);
        const continuation = await store.getContinuation({ ...key, continuationId: result.continuationId });
        const { replayed: _, ...expected } = result;
        expect(continuation).toEqual(expected);
        await expect(
          store.getContinuation({ tenant: 'globex', runId: input.runId, continuationId: result.continuationId }),
        ).rejects.toBeInstanceOf(ContinuationNotFoundError);
        const open = pauseInput();
        const openId = (await store.pause(open)).interruptId;
        await expect(
          store.getContinuation({ tenant: 'acme', runId: open.runId, continuationId: openId }),
        ).rejects.toBeInstanceOf(ContinuationNotFoundError);
      });
    });

    describe('changes', () => {
      it('tells the observer of every committed change, once, with the record before and after', async () => {
        const { store, changes } = await setup();
        const input = withAsks();
        const { interruptId } = await store.pause(input);
        const key = { tenant: 'acme', runId: input.runId, interruptId };
        await store.decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'full' }] });
        await store.decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'full' }] });
        await store.cancel(key);
        expect(changes.map((c) => [c.before?.rev ?? null, c.after.rev, c.after.status])).toEqual([
          [null, 1, 'paused'],
          [1, 2, 'paused'],
          [2, 3, 'cancelled'],
        ]);
      });
    });
  });
}
