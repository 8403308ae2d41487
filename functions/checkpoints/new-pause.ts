import {
  BadRequestError,
  IdempotencyKeyReusedError,
  OpenPauseExistsError,
  PayloadTooLargeError,
  UnsupportedRecordError,
} from '../errors.ts';
import { capitalize, utf8Bytes } from '../json.ts';
import type { LadderLevel } from '../policies/port.ts';
import { LIMITS, Status } from '../vocabulary.ts';
import type { TranscriptHeader } from './codec.ts';
import { withLadders } from './escalation.ts';
import { MAX_SEQ } from './ids.ts';
import type { CheckedPause } from './pause-checks.ts';
import { type Ask, interruptIdOf, isKnownStatus, isOpenAt, nextDueAt, type PauseRecord } from './record.ts';

/**
 * A new pause's record, pure: whether a checked pause may take its run's next sequence number, and what the service
 * writes when it does. The service brings what is not pure (the time, the random token, the encoded transcript, the
 * record it read); this module says what the record holds and what it keeps of the asks.
 */

/**
 * The number a pause takes after `latest`, its run's newest record, at `nowMs`: the next one, or `replay` when
 * `latest` is this request's own pause (the same `Idempotency-Key` and request hash: the first answer again). Throws
 * the refusals: the key reused with another request (422), the run's open pause (409), a record of a newer version,
 * a run whose numbers are used up.
 */
export function nextNumber(
  latest: PauseRecord | undefined,
  pause: { runId: string; idempotencyKey?: string; requestHash?: string | undefined },
  nowMs: number,
): number | 'replay' {
  if (latest !== undefined) {
    if (pause.idempotencyKey !== undefined && latest.idempotency?.key === pause.idempotencyKey) {
      if (latest.idempotency.hash === pause.requestHash) return 'replay';
      throw new IdempotencyKeyReusedError(pause.runId, interruptIdOf(latest));
    }
    if (!isKnownStatus(latest.status)) {
      throw new UnsupportedRecordError(pause.runId, interruptIdOf(latest), `status ${JSON.stringify(latest.status)}`);
    }
    if (isOpenAt(latest, nowMs)) throw new OpenPauseExistsError(pause.runId, interruptIdOf(latest));
  }
  const seq = (latest?.seq ?? 0) + 1;
  if (seq > MAX_SEQ)
    throw new BadRequestError(`Run ${pause.runId} has used all ${MAX_SEQ} pause numbers; use a new runId.`);
  return seq;
}

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
  if (pause.traceparent !== undefined) record.traceparent = pause.traceparent;
  if (pause.remindBeforeSeconds !== undefined) record.remindAtMs = expiresAtMs - pause.remindBeforeSeconds * 1000;
  if (pause.idempotencyKey !== undefined && requestHash !== undefined) {
    record.idempotency = { key: pause.idempotencyKey, hash: requestHash };
  }
  record.dueAtMs = nextDueAt(record);
  return record;
}

/**
 * §21: `record` (a new pause, its policies' outcomes in) with each waiting ask's escalation ladder — a policy's, else
 * the deployment's `fallback` — and due at its first level if that comes before its reminder and expiry.
 */
export function laddered(record: PauseRecord, fallback: readonly LadderLevel[] | undefined): PauseRecord {
  const after = withLadders(record, fallback);
  return after === record ? record : { ...after, dueAtMs: nextDueAt(after) };
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
