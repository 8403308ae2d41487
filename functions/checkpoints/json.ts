import { answerText } from '../rehydrate/rehydrate.ts';

/** Small JSON helpers shared by the checks of the store and the edge. */

/** Whether `value` is a plain JSON object (not an array, not a class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Bytes of `value` as JSON text (UTF-8), or undefined when it is not JSON. */
export function jsonBytes(value: unknown): number | undefined {
  try {
    answerText(value);
  } catch {
    return undefined;
  }
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
