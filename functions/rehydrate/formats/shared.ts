import { InvalidTranscriptError, type Violation } from '../../errors.ts';
import * as z from '../../zod.ts';
import { Rule } from './format.ts';

/** An `InvalidTranscriptError` for a transcript whose paused round cannot be found or is not last (§4, pause time). */
export function pausedRoundError(index: number, message: string): InvalidTranscriptError {
  return new InvalidTranscriptError(message, [{ rule: Rule.PausedRound, index, message }]);
}

/** The ids that occur more than once in `ids`, each once, in order of first repeat. */
export function duplicates(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) repeated.add(id);
    seen.add(id);
  }
  return [...repeated];
}

/** A violation. */
export function violation(rule: Rule, index: number, message: string): Violation {
  return { rule, index, message };
}

/** Whether `text` is empty or whitespace only, which several providers reject as blank. */
export function isBlank(text: string): boolean {
  return text.trim().length === 0;
}

/** Ids as a provider lists them in its error text. */
export function listIds(ids: Iterable<string>): string {
  return [...ids].join(', ');
}

/** A call id, or the id a result names: never empty, as no provider can pair a result to a call by an empty id. */
export const callId = z.string().check(z.minLength(1, 'must not be empty: every call needs an id to pair its result'));
