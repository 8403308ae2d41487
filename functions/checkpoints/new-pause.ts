import { PayloadTooLargeError } from '../errors.ts';
import { LIMITS, Status } from '../vocabulary.ts';
import type { PauseInput } from './checkpoint-store.ts';
import type { TranscriptHeader } from './codec.ts';
import { capitalize, utf8Bytes } from './json.ts';
import type { CheckedPause } from './pause-checks.ts';
import { type Ask, nextDueAt, type PauseRecord } from './record.ts';

/**
 * A new pause's record, pure: what the service writes when a checked pause takes its sequence number. The service
 * brings what is not pure (the time, the random token, the encoded transcript, the number it read); this module says
 * what the record holds and what it keeps of the asks.
 */

/** What a new record is made of besides the checked pause. */
export interface NewPauseParts {
  seq: number;
  /** The write attempt's random token (`ids.ts`). */
  token: string;
  /** The persistence's read hint of the encoded transcript. */
  readHint: string;
  transcript: TranscriptHeader;
  /** The asks as the record keeps them (`fitAsks`). */
  asks: Ask[];
  now: Date;
  /** The hash of the request an `Idempotency-Key` covers, when it has one. */
  requestHash?: string;
}

/** The record of a new pause, open, at revision 1, due at its reminder or its expiry. */
export function newPauseRecord(pause: CheckedPause, parts: NewPauseParts): PauseRecord {
  const { seq, token, readHint, transcript, asks, now, requestHash } = parts;
  const expiresAtMs = now.getTime() + pause.expiresInSeconds * 1000;
  const record: PauseRecord = {
    tenant: pause.tenant,
    runId: pause.runId,
    seq,
    token,
    readHint,
    format: pause.format,
    asks,
    decisions: asks.map(() => undefined),
    createdAt: now.toISOString(),
    expiresAtMs,
    onExpiry: pause.onExpiry,
    status: Status.Paused,
    rev: 1,
    transcript,
    dueAtMs: 0,
    pausedBy: pause.pausedBy,
  };
  if (pause.fourEyes === true) record.fourEyes = true;
  if (pause.metadata !== undefined) record.metadata = pause.metadata;
  if (pause.taskToken !== undefined) record.taskToken = pause.taskToken;
  if (pause.callbackId !== undefined) record.callbackId = pause.callbackId;
  if (Object.keys(pause.context).length > 0) record.context = pause.context;
  if (pause.notify !== undefined) record.notify = pause.notify;
  if (pause.remindBeforeSeconds !== undefined) record.remindAtMs = expiresAtMs - pause.remindBeforeSeconds * 1000;
  if (pause.idempotencyKey !== undefined && requestHash !== undefined) {
    record.idempotency = { key: pause.idempotencyKey, hash: requestHash };
  }
  record.dueAtMs = nextDueAt(record);
  return record;
}

/**
 * The asks as the record keeps them: their definitions must fit the record's budget, and their args are kept while
 * they fit theirs (the rest are read from the transcript when a pause is shown).
 */
export function fitAsks(pause: CheckedPause): Ask[] {
  const bytes = (value: unknown) => (value === undefined ? 0 : utf8Bytes(JSON.stringify(value)));
  const definitions = pause.asks.map(({ args: _, ...ask }) => ask);
  const fixed =
    bytes(definitions) +
    bytes(pause.metadata) +
    bytes(pause.context) +
    bytes(pause.taskToken) +
    bytes(pause.callbackId) +
    bytes(pause.idempotencyKey);
  if (fixed > LIMITS.pauseItemBytes) {
    const message = `the asks (prompts, schemas), metadata, turn context and task token take ${fixed} bytes together, over the limit of ${LIMITS.pauseItemBytes}`;
    throw new PayloadTooLargeError(`${capitalize(message)}.`, [{ path: '', message }]);
  }
  let budget = Math.min(LIMITS.askArgsBytes, LIMITS.pauseItemBytes - fixed);
  return pause.asks.map((ask) => {
    const size = bytes(ask.args);
    if (size <= budget) {
      budget -= size;
      return ask;
    }
    const { args: _, ...rest } = ask;
    return { ...rest, argsOmitted: true };
  });
}

/** The fields of a pause request that its `Idempotency-Key` covers, besides the transcript (hashed on its own). */
export function requestFields(input: PauseInput): Record<string, unknown> {
  const { tenant: _, runId: __, messages: ___, idempotencyKey: ____, ...rest } = input;
  return rest;
}
