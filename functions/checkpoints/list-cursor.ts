import { BadRequestError } from '../errors.ts';

/**
 * The service's listing cursor, pure: base64url of a small JSON holding the persistence's own cursor (opaque here,
 * checked by the backend) and the filter it was made for — the status, and `mine` — so a cursor is refused with
 * another filter than its own.
 */

const CURSOR_VERSION = 2;

/** The cursor that continues a listing with `status` (and `mine`) after the persistence's cursor `after`. */
export function writeCursor(after: string, status: string | undefined, mine: boolean): string {
  const base = { v: CURSOR_VERSION, s: status ?? null };
  const fields = mine ? { ...base, m: true, c: after } : { ...base, c: after };
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

/** The persistence's cursor a listing cursor holds; `BadRequestError` for one malformed or made for another filter. */
export function readCursor(cursor: unknown, status: string | undefined, mine: boolean): string {
  const refuse = (why: string) =>
    new BadRequestError(`The cursor ${why}: pass the cursor of the previous page unchanged, with the same status.`, [
      { path: '/cursor', message: why },
    ]);
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]{1,4096}$/.test(cursor)) throw refuse('is not a cursor');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse('is not a cursor');
  }
  const { v, s, m, c } = (parsed ?? {}) as { v?: unknown; s?: unknown; m?: unknown; c?: unknown };
  if (v !== CURSOR_VERSION || typeof c !== 'string') throw refuse('is not a cursor');
  if (s !== (status ?? null) || (m === true) !== mine) {
    throw refuse('was made for a listing with another status or filter');
  }
  return c;
}
