import { BadRequestError } from '../errors.ts';
import { LIMITS } from '../vocabulary.ts';
import type { MessageFormat, PausedRound, TurnText } from './formats/format.ts';
import { readPause } from './rehydrate.ts';

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

/**
 * `turnContext` of a transcript already read and its paused round already found (the pause checks have both), so
 * the transcript is not checked twice.
 */
export function roundContext(
  module: MessageFormat,
  messages: readonly unknown[],
  round: PausedRound,
  maxChars: number,
): TurnText {
  const { user, assistant } = module.context(messages, round);
  const context: TurnText = {};
  if (user !== undefined) context.user = cut(user, maxChars);
  if (assistant !== undefined) context.assistant = cut(assistant, maxChars);
  return context;
}

/** `text` cut to at most `max` characters (UTF-16 units), the last of them an ellipsis; never half a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
