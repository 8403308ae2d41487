import { PauseNotFoundError } from '../errors.ts';

/**
 * The public ids of pauses and continuations, pure: `<seq>.<hint>.<token>` — the pause's number in its run, the
 * persistence's read hint (opaque here: see `CheckpointPersistence.readHint`), and 128 random bits (base64url). The
 * number and the hint let a backend fetch the pause and its whole transcript in one request by key; the random part
 * is checked against the stored record on every read, so an id cannot be guessed from another.
 *
 * Ids made before the hint was opaque carried the DynamoDB adapter's part count there (`1`–`99`): they are ids of
 * this shape, and that adapter still reads its hint so.
 */

/** The largest sequence number a run's pauses can reach. */
export const MAX_SEQ = 9_999_999_999;

/** What a read hint may be: 1–16 ASCII letters and digits (so an id stays one URL path segment). */
export const READ_HINT_PATTERN = /^[A-Za-z0-9]{1,16}$/;

const ID_PATTERN = /^([1-9][0-9]{0,9})\.([A-Za-z0-9]{1,16})\.([A-Za-z0-9_-]{22})$/;

/** The parts of an id. */
export interface IdParts {
  seq: number;
  /** The persistence's read hint, opaque to the rules. */
  hint: string;
  token: string;
}

/** An id `<seq>.<hint>.<token>`. */
export function formatId(id: IdParts): string {
  return `${id.seq}.${id.hint}.${id.token}`;
}

/** The parts of an id made by `formatId`, or undefined for anything else. */
export function parseId(id: unknown): IdParts | undefined {
  if (typeof id !== 'string') return undefined;
  const match = ID_PATTERN.exec(id);
  if (match === null) return undefined;
  const seq = Number(match[1]);
  return seq <= MAX_SEQ ? { seq, hint: match[2] as string, token: match[3] as string } : undefined;
}

/** The parts of a pause's id, or `PauseNotFoundError` (of `runId`) for anything that is not one: it names no pause. */
export function pauseIdOf(runId: string, interruptId: string): IdParts {
  const id = parseId(interruptId);
  if (id === undefined) throw new PauseNotFoundError(runId, interruptId);
  return id;
}

/** `size` random bytes as base64url: 16 bytes make the 22 characters of an id's random part. */
export function randomToken(randomBytes: (size: number) => Uint8Array, size = 16): string {
  return Buffer.from(randomBytes(size)).toString('base64url');
}
