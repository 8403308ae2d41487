import { BadRequestError, InvalidTranscriptError, type Violation } from '../../errors.ts';
import * as z from '../../zod.ts';
import type { PausedRound } from './format.ts';
import { Rule } from './format.ts';

/** Whether `value` is a JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `BadRequestError` whose one failure is `message` at `path`. */
export function badRequest(message: string, path: string): BadRequestError {
  return new BadRequestError(message, [{ path, message }]);
}

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
export const callId = z.defer(() =>
  z.string().check(z.minLength(1, 'must not be empty: every call needs an id to pair its result')),
);

/**
 * The index of a call in its round, by id (gemini: by address). Only for the round's own ids: what findRound let
 * through (the round's results) and the reserved calls the results are for.
 */
export function callIndexes(round: PausedRound): (id: string) => number {
  const indexes = new Map<string, number>();
  round.calls.forEach((call, k) => {
    indexes.set(call.id, k);
  });
  return (id) => indexes.get(id) as number;
}

/**
 * Where new results go among a round's existing results so that the round's results are in call order (§3.6, §9):
 * given the call index of each existing result (in transcript order) and of each new result (ascending), the number
 * of existing results before each new one. A new result goes right before the first existing result of a later
 * call; existing results keep their order. Linear: one pointer over the existing results' running maximum.
 */
export function insertionSlots(existing: readonly number[], fresh: readonly number[]): number[] {
  const slots: number[] = [];
  let slot = 0;
  let max = -1;
  for (const k of fresh) {
    while (slot < existing.length && Math.max(max, existing[slot] as number) < k) {
      max = Math.max(max, existing[slot] as number);
      slot++;
    }
    slots.push(slot);
  }
  return slots;
}

/** `existing` with `fresh[f]` placed before `existing[slots[f]]` (at the end when the slot is past it). */
export function interleave<T>(existing: readonly T[], slots: readonly number[], fresh: readonly T[]): T[] {
  const out: T[] = [];
  let f = 0;
  for (let slot = 0; slot <= existing.length; slot++) {
    while (f < fresh.length && slots[f] === slot) out.push(fresh[f++] as T);
    if (slot < existing.length) out.push(existing[slot] as T);
  }
  return out;
}

/** A copy of `items` with the items `edit` returns a new value for replaced; the same array when none is. */
export function replaced<T>(items: readonly T[], edit: (item: T, index: number) => T | undefined): T[] {
  let copy: T[] | undefined;
  items.forEach((item, index) => {
    const next = edit(item, index);
    if (next === undefined) return;
    copy ??= items.slice();
    copy[index] = next;
  });
  return copy ?? (items as T[]);
}

/** The non-blank texts, joined by a newline; `undefined` when there are none. */
export function joinTexts(texts: Iterable<string | undefined>): string | undefined {
  const kept: string[] = [];
  for (const text of texts) if (text !== undefined && !isBlank(text)) kept.push(text);
  return kept.length === 0 ? undefined : kept.join('\n');
}

/** The text of the last message before `before` that `userText` reads a non-blank text from. */
export function lastUserText<M>(
  messages: readonly M[],
  before: number,
  userText: (message: M) => string | undefined,
): string | undefined {
  for (let index = before - 1; index >= 0; index--) {
    const text = userText(messages[index] as M);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** The texts of a content that is a string or an array of parts, read by `textOf` (which skips non-text parts). */
export function contentText(
  content: string | readonly unknown[] | null | undefined,
  textOf: (part: unknown) => string | undefined,
): string | undefined {
  if (content === null || content === undefined) return undefined;
  if (typeof content === 'string') return joinTexts([content]);
  return joinTexts(content.map(textOf));
}

/** A part's `text` when its `type` is one of `types` (and `text` a string). */
export function typedText(...types: string[]): (part: unknown) => string | undefined {
  return (part) => {
    const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
    return typeof type === 'string' && types.includes(type) && typeof text === 'string' ? text : undefined;
  };
}

/** Arguments as JSON text, for the formats that carry them so (openai `arguments`, LangChain's raw copies). */
export function argumentsText(args: Record<string, unknown>): string {
  return JSON.stringify(args);
}

/** A copy of `messages` with `messages[index]` replaced by `message`. */
export function withMessage<M>(messages: readonly M[], index: number, message: M): M[] {
  const copy = messages.slice();
  copy[index] = message;
  return copy;
}
