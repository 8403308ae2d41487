import { InvalidAnswerError } from '../errors.ts';
import { LIMITS } from '../vocabulary.ts';
import type { MessageFormat } from './formats/format.ts';

/**
 * The result of every reserved call that no one decided (§3.5): the call was not run because the turn paused for a
 * person, and the model may call it again.
 */
export const NOT_DISPATCHED =
  'Not run: this turn paused for a person to answer another tool call, so this call was never dispatched. Call it again if you still need its result.';

/**
 * The result of a call a person rejected (§9): it was not run, and the model should not try it again on its own —
 * a rejection must not make the model loop.
 */
export const REJECTED =
  'Not run: a person reviewed this tool call and declined it, so it was not carried out. Do not call it again unless the person asks for it; go on without it, or ask the person what to do instead.';

/** `REJECTED`, then `Reason: <reason>` on its own line when a reason is given (an empty one is no reason). */
export function rejectionText(reason?: string): string {
  return reason === undefined || reason === '' ? REJECTED : `${REJECTED}\nReason: ${reason}`;
}

/**
 * The answer as a call's observation (§3.4): a string verbatim, any other JSON value as its JSON text. Throws
 * `InvalidAnswerError` for a value that is not JSON (undefined, a function, a class instance, a cycle, a hole,
 * `NaN`…) or that nests more than `LIMITS.bodyDepth` levels deep (as deep as the HTTP edge lets a request nest); `at`, a JSON pointer to where the value sits in
 * a request (`/decisions/0/answer`), prefixes the failure's path.
 */
export function answerText(answer: unknown, at = ''): string {
  const problem = jsonProblem(answer);
  if (problem !== undefined) {
    const path = problem.path || '/';
    throw new InvalidAnswerError(`${at === '' ? 'The answer' : at} is not a JSON value: ${path} ${problem.message}.`, [
      { path: at === '' ? path : `${at}${problem.path}`, message: `${path} ${problem.message}` },
    ]);
  }
  return typeof answer === 'string' ? answer : JSON.stringify(answer);
}

/** `answerText`, and refused with `InvalidAnswerError` when the format's provider cannot carry the text (§3.8). */
export function resultText(format: MessageFormat, value: unknown, at = ''): string {
  const text = answerText(value, at);
  const refusal = format.refuseAnswerText?.(text);
  if (refusal !== undefined) throw new InvalidAnswerError(refusal, [{ path: at, message: refusal }]);
  return text;
}

interface Problem {
  /** A JSON pointer into the value. */
  path: string;
  message: string;
}

/** One object or array being walked: its keys (`undefined` for an array), the next one, and how it was reached. */
interface Frame {
  value: object;
  keys: string[] | undefined;
  size: number;
  next: number;
  key: string;
}

/**
 * The first reason `value` is not JSON, walked without recursion (so no input overflows the stack) and in time
 * linear in its size; `undefined` when it is JSON. Shared references are fine; only a value inside itself is a cycle.
 */
function jsonProblem(value: unknown): Problem | undefined {
  const frames: Frame[] = [];
  const open = new Set<object>();
  const pathTo = (key: string) =>
    [...frames.slice(1).map((frame) => frame.key), ...(frames.length > 0 ? [key] : [])]
      .map((part) => `/${part.replaceAll('~', '~0').replaceAll('/', '~1')}`)
      .join('');
  let current: unknown = value;
  let key = '';
  for (;;) {
    const problem = valueProblem(current);
    if (problem !== undefined) return { path: pathTo(key), message: problem };
    if (typeof current === 'object' && current !== null) {
      if (open.has(current)) return { path: pathTo(key), message: 'refers to itself' };
      if (frames.length >= LIMITS.bodyDepth) {
        return { path: pathTo(key), message: `nests more than ${LIMITS.bodyDepth} levels deep` };
      }
      const keys = Array.isArray(current) ? undefined : Object.keys(current);
      const size = keys === undefined ? (current as unknown[]).length : keys.length;
      frames.push({ value: current, keys, size, next: 0, key });
      open.add(current);
    }
    // The next value to look at: the next child of the innermost open object, closing the finished ones.
    let frame = frames.at(-1);
    while (frame !== undefined && frame.next >= frame.size) {
      open.delete(frame.value);
      frames.pop();
      frame = frames.at(-1);
    }
    if (frame === undefined) return undefined;
    const index = frame.next++;
    if (frame.keys === undefined) {
      key = String(index);
      if (!(index in frame.value))
        return { path: pathTo(key), message: 'is a hole in an array, which JSON cannot carry' };
      current = (frame.value as unknown[])[index];
    } else {
      key = frame.keys[index] as string;
      current = (frame.value as Record<string, unknown>)[key];
      // A member whose value is undefined is left out of JSON text, as JSON.stringify leaves it out: SDKs write such
      // members (the AI SDK's `providerOptions: undefined`), and no provider can tell them from an absent one.
      if (current === undefined) current = null;
    }
  }
}

/** Why a single value is not JSON, without looking inside it. */
function valueProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `is ${value}, which JSON cannot carry`;
    case 'object': {
      if (value === null || Array.isArray(value)) return undefined;
      const proto = Object.getPrototypeOf(value);
      return proto === Object.prototype || proto === null
        ? undefined
        : `is a ${proto?.constructor?.name ?? 'non-plain'} object, not a JSON object`;
    }
    default:
      return `is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}, which JSON cannot carry`;
  }
}
