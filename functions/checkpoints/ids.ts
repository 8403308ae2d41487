/**
 * The public ids of pauses and continuations, pure: `<seq>.<parts>.<token>` — the pause's number in its run, the
 * number of parts its stored transcript was written in, and 128 random bits (base64url). The number and the parts
 * let a reader fetch the pause and its whole transcript in one request by key; the random part is checked against
 * the stored record on every read, so an id cannot be guessed from another.
 */

/** The largest sequence number a run's pauses can reach. */
export const MAX_SEQ = 9_999_999_999;
/** The most parts a stored transcript can have (16 MB of incompressible JSON in 256 KiB parts is 64). */
export const MAX_PARTS = 99;

const ID_PATTERN = /^([1-9][0-9]{0,9})\.([1-9][0-9]?)\.([A-Za-z0-9_-]{22})$/;

/** The parts of an id. */
export interface IdParts {
  seq: number;
  parts: number;
  token: string;
}

/** An id `<seq>.<parts>.<token>`. */
export function formatId(id: IdParts): string {
  return `${id.seq}.${id.parts}.${id.token}`;
}

/** The parts of an id made by `formatId`, or undefined for anything else. */
export function parseId(id: unknown): IdParts | undefined {
  if (typeof id !== 'string') return undefined;
  const match = ID_PATTERN.exec(id);
  if (match === null) return undefined;
  const seq = Number(match[1]);
  const parts = Number(match[2]);
  return seq <= MAX_SEQ && parts <= MAX_PARTS ? { seq, parts, token: match[3] as string } : undefined;
}

/** `size` random bytes as base64url: 16 bytes make the 22 characters of an id's random part. */
export function randomToken(randomBytes: (size: number) => Uint8Array, size = 16): string {
  return Buffer.from(randomBytes(size)).toString('base64url');
}
