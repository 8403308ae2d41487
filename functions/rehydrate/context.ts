import { BadRequestError } from '../errors.ts';
import { LIMITS } from '../vocabulary.ts';
import { roundContext } from './core.ts';
import type { TurnText } from './formats/format.ts';
import { readPause } from './rehydrate.ts';

export { roundContext } from './core.ts';

export type { TurnText } from './formats/format.ts';

/** How long each text of `turnContext` is at most, by default. */
export const DEFAULT_CONTEXT_CHARS = LIMITS.contextChars;

/**
 * The turn's context for a person deciding (§12: the inbox shows it): the text of the last user message before the
 * paused round, and the assistant's text in the paused round — text parts only (no tool results, images or
 * reasoning), each cut to at most `maxChars` characters with an ellipsis, and left out when there is none. Validates
 * the transcript's shape and finds its paused round (`InvalidTranscriptError` otherwise); `maxChars` must be a
 * positive integer (`BadRequestError`).
 */
export function turnContext(
  format: string,
  messages: readonly unknown[],
  maxChars: number = DEFAULT_CONTEXT_CHARS,
): TurnText {
  if (!Number.isSafeInteger(maxChars) || maxChars < 1) {
    throw new BadRequestError(`maxChars must be a positive integer, got ${String(maxChars)}.`, [
      { path: '/maxChars', message: 'must be a positive integer' },
    ]);
  }
  const { format: module, messages: checked } = readPause({ format, messages });
  return roundContext(module, checked, module.findRound(checked), maxChars);
}
