import { describe, expect, it } from 'vitest';
import { readCursor, writeCursor } from '../../functions/checkpoints/list-cursor.ts';
import { newPauseRecord } from '../../functions/checkpoints/new-pause.ts';
import type { CheckedPause } from '../../functions/checkpoints/pause-checks.ts';
import { awaitingHandoff, HANDOFF_RETRY_MS, sweepStep } from '../../functions/checkpoints/sweep-step.ts';
import { recordOf } from '../../functions/testing/persistence-spec.ts';

/** The service's pure seams: the sweep's step, a new pause's record, the listing cursor. */

const NOW = Date.parse('2026-01-05T00:00:00.000Z');

describe('the sweep step', () => {
  const due = recordOf({ dueAtMs: NOW, expiresAtMs: NOW + 60_000, remindAtMs: NOW });

  it('does nothing for no record, one not due yet, or one closed', () => {
    expect(sweepStep(undefined, NOW)).toEqual({ do: 'nothing' });
    expect(sweepStep({ ...due, dueAtMs: NOW + 1 }, NOW)).toEqual({ do: 'nothing' });
    const { dueAtMs: _, ...undue } = due;
    expect(sweepStep(undue, NOW)).toEqual({ do: 'nothing' });
    expect(sweepStep({ ...due, status: 'cancelled' }, NOW)).toEqual({ do: 'nothing' });
  });

  it('sends a due reminder once, and is due next at the expiry', () => {
    const step = sweepStep(due, NOW);
    expect(step).toMatchObject({
      do: 'remind',
      after: { remindedAt: new Date(NOW).toISOString(), dueAtMs: NOW + 60_000, rev: due.rev + 1 },
    });
    if (step.do !== 'remind') throw new Error('not a reminder');
    // Looked at again while still due (a stale index): never a second reminder, only due again at the expiry.
    expect(sweepStep({ ...step.after, dueAtMs: NOW }, NOW)).toMatchObject({
      do: 'reschedule',
      after: { remindedAt: new Date(NOW).toISOString(), dueAtMs: NOW + 60_000 },
    });
    expect(due.remindedAt).toBeUndefined();
  });

  it('writes expired, due no more, for onExpiry fail; closes for onExpiry reject', () => {
    const expired = { ...due, expiresAtMs: NOW, remindAtMs: undefined };
    const step = sweepStep({ ...expired, onExpiry: 'fail' }, NOW);
    expect(step).toMatchObject({ do: 'expire', after: { status: 'expired', rev: due.rev + 1 } });
    if (step.do !== 'expire') throw new Error('not an expiry');
    expect(step.after).not.toHaveProperty('dueAtMs');
    expect(sweepStep({ ...expired, onExpiry: 'reject' }, NOW)).toEqual({ do: 'close' });
  });

  it('delivers again a closing of its own whose hand-off was not acknowledged, and comes back a minute later', () => {
    const closed = awaitingHandoff(
      {
        ...due,
        status: 'expired',
        closing: {
          continuationId: 'c',
          closedAt: new Date(NOW).toISOString(),
          outcome: 'expired',
          continuationSha256: 'h',
        },
      },
      NOW - HANDOFF_RETRY_MS,
    );
    expect(closed).toMatchObject({ handoffDue: true, dueAtMs: NOW });
    expect(sweepStep(closed, NOW)).toMatchObject({
      do: 'redeliver',
      after: { dueAtMs: NOW + HANDOFF_RETRY_MS, rev: closed.rev + 1 },
    });
  });
});

describe('a new pause record', () => {
  const pause: CheckedPause = {
    tenant: 'acme',
    runId: 'run-1',
    format: 'openai-chat',
    messages: [],
    roundStart: 0,
    asks: [{ toolCallId: 'call_1', name: 'ask_human', args: {}, kind: 'answer' }],
    context: {},
    expiresInSeconds: 3600,
    onExpiry: 'reject',
    pausedBy: { kind: 'person', subject: 'ann', via: 'api' },
    requestFields: {},
  };
  const parts = {
    seq: 3,
    token: 'tok',
    readHint: '1',
    transcript: { codec: 'br' as const, byteLength: 1, rawLength: 1, sha256: 'h' },
    asks: pause.asks,
    now: new Date(NOW),
  };

  it('is open at revision 1, undecided, due at its expiry, with nothing it was not given', () => {
    expect(newPauseRecord(pause, parts)).toEqual({
      tenant: 'acme',
      runId: 'run-1',
      seq: 3,
      token: 'tok',
      readHint: '1',
      format: 'openai-chat',
      asks: pause.asks,
      decisions: [undefined],
      createdAt: new Date(NOW).toISOString(),
      expiresAtMs: NOW + 3_600_000,
      onExpiry: 'reject',
      status: 'paused',
      rev: 1,
      transcript: parts.transcript,
      dueAtMs: NOW + 3_600_000,
      pausedBy: pause.pausedBy,
    });
  });

  it('is due first at its reminder, and keeps the idempotency key with the request hash', () => {
    const record = newPauseRecord(
      { ...pause, remindBeforeSeconds: 600, idempotencyKey: 'k', fourEyes: true, context: { user: 'hi' } },
      { ...parts, requestHash: 'rh' },
    );
    expect(record).toMatchObject({
      remindAtMs: NOW + 3_000_000,
      dueAtMs: NOW + 3_000_000,
      idempotency: { key: 'k', hash: 'rh' },
      fourEyes: true,
      context: { user: 'hi' },
    });
  });
});

describe('the listing cursor', () => {
  it('gives back the persistence cursor for the filter it was made for', () => {
    expect(readCursor(writeCursor('abc', 'paused', false), 'paused', false)).toBe('abc');
    expect(readCursor(writeCursor('abc', undefined, true), undefined, true)).toBe('abc');
  });

  it('refuses another filter, or what is not a cursor, as 400 bad_request on /cursor', () => {
    for (const [cursor, status, mine] of [
      [writeCursor('abc', 'paused', false), undefined, false],
      [writeCursor('abc', undefined, false), undefined, true],
      ['not a cursor!', undefined, false],
      [Buffer.from('{"v":1,"c":"x"}').toString('base64url'), undefined, false],
    ] as const) {
      expect(() => readCursor(cursor, status, mine)).toThrow(
        expect.objectContaining({ code: 'bad_request', failures: [expect.objectContaining({ path: '/cursor' })] }),
      );
    }
  });
});
