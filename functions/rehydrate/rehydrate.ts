import { BadRequestError, InvalidTranscriptError, MissingTurnStateError, type Violation } from '../errors.ts';
import { LIMITS } from '../vocabulary.ts';
import { shapeViolations } from './check-transcript.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './formats/format.ts';
import { Rule } from './formats/format.ts';
import { formatOf } from './formats/index.ts';
import { NOT_DISPATCHED, resultText } from './texts.ts';

export { answerText, NOT_DISPATCHED } from './texts.ts';

/**
 * What `rehydrate` needs of a pause: its format, its messages and the answered call — as `toolCallId`, or as the
 * `toolCall` of a stored pause record (`store.getPause(key, { includeMessages: true })`).
 */
export type PauseLike = { format: string; messages?: unknown } & (
  | { toolCallId: string; toolCall?: { id: string } }
  | { toolCallId?: undefined; toolCall: { id: string } }
);

/** The most asks one pause may hold (§9). */
export const MAX_ASKS = LIMITS.asks.max;

/** The id of the call a pause's person answers. */
function answeredCallId(pause: unknown): string {
  if (typeof pause !== 'object' || pause === null) return '';
  const { toolCallId, toolCall } = pause as { toolCallId?: unknown; toolCall?: unknown };
  if (toolCallId !== undefined) return String(toolCallId);
  const id = typeof toolCall === 'object' && toolCall !== null ? (toolCall as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : '';
}

/**
 * Rebuilds a paused turn's transcript with the person's answer folded in (§3): the answered call gets the answer,
 * every other reserved call gets `NOT_DISPATCHED`, placed as the format requires and in call order. Pure; never
 * mutates its input.
 *
 * Throws `MissingTurnStateError` for a missing pause or a missing or empty transcript, `InvalidTranscriptError` for a
 * transcript that is ill-shaped, has no paused round, or whose `toolCallId` is not a reserved call, and
 * `InvalidAnswerError` for an answer that is not JSON or that the format cannot carry.
 */
export function rehydrate(pause: PauseLike, answer: unknown): unknown[] {
  const { format, messages } = readPause(pause);
  const rebuilt = rebuildTranscript(format, messages, answeredCallId(pause), answer);
  throwIfAny(format.check(rebuilt), 'The rebuilt transcript fails the strict transcript check');
  return rebuilt;
}

/**
 * `rehydrate` for a transcript already validated by `validatePause` (a stored checkpoint whose hash matched):
 * finds the round and adds the results without scanning the earlier messages again.
 */
export function rebuildTranscript(
  format: MessageFormat,
  messages: readonly unknown[],
  toolCallId: string,
  answer: unknown,
): unknown[] {
  const text = resultText(format, answer);
  const round = format.findRound(messages);
  reservedCalls(round, [toolCallId]);
  const results: NewResult[] = [];
  for (const call of round.calls) {
    if (round.answered.has(call.id)) continue;
    results.push(call.id === toolCallId ? { call, text, failed: false } : { call, text: NOT_DISPATCHED, failed: true });
  }
  return format.appendResults(messages, round, results);
}

/** What a valid pause's transcript tells about its paused round. */
export interface PauseCheck {
  round: PausedRound;
  /** The call the person answers. */
  toolCall: ToolCall;
}

/**
 * The pause-time check (§4): the transcript has its format's shape, its paused round is last, `toolCallId` names a
 * reserved call, and the transcript minus the reserved calls' missing results passes the strict check. Throws
 * `InvalidTranscriptError` listing the violations.
 */
export function validatePause(pause: PauseLike): PauseCheck {
  const { round, calls } = validatePauseAsks(pause, [answeredCallId(pause)]);
  return { round, toolCall: calls[0] as ToolCall };
}

/**
 * The pause-time check for a pause with several asks (§9): like `validatePause`, for a list of 1 to 16 distinct
 * `toolCallIds` (`BadRequestError` otherwise), each a reserved call of the paused round (`InvalidTranscriptError`
 * otherwise). Returns the round and the call of each id, in the order given.
 */
export function validatePauseAsks(
  pause: { format: string; messages?: unknown },
  toolCallIds: readonly string[],
): { round: PausedRound; calls: ToolCall[] } {
  const { round, calls } = readPauseAsks(pause, toolCallIds);
  return { round, calls };
}

/** `validatePauseAsks`, also returning the format and the messages it read (the store's pause checks use both). */
export function readPauseAsks(
  pause: { format: string; messages?: unknown },
  toolCallIds: readonly string[],
): { round: PausedRound; calls: ToolCall[]; format: MessageFormat; messages: unknown[] } {
  const { format, messages } = readPause(pause);
  checkAskIds(toolCallIds);
  const round = format.findRound(messages);
  const calls = reservedCalls(round, toolCallIds);
  throwIfAny(
    format.check(withPlaceholders(format, messages, round, round.calls)),
    'The transcript fails the strict transcript check',
  );
  return { round, calls, format, messages };
}

function checkAskIds(toolCallIds: unknown): asserts toolCallIds is readonly string[] {
  if (!Array.isArray(toolCallIds) || toolCallIds.length < 1 || toolCallIds.length > MAX_ASKS) {
    throw new BadRequestError(`A pause asks about 1 to ${MAX_ASKS} tool calls.`, [
      { path: '/asks', message: `must list 1 to ${MAX_ASKS} tool calls` },
    ]);
  }
  const seen = new Set<string>();
  toolCallIds.forEach((id: unknown, i) => {
    if (typeof id !== 'string') {
      throw new BadRequestError('Each ask names its tool call by a toolCallId string.', [
        { path: `/asks/${i}/toolCallId`, message: 'must be a string' },
      ]);
    }
    if (seen.has(id)) {
      throw new BadRequestError(`Two asks name the same tool call ${JSON.stringify(id)}; each call is asked once.`, [
        { path: `/asks/${i}/toolCallId`, message: `repeats ${JSON.stringify(id)}` },
      ]);
    }
    seen.add(id);
  });
}

/**
 * The format module and the messages of a pause, the messages checked against the format's shape. A pause that is
 * not an object, or has no messages (or an empty array of them), is no turn state: `MissingTurnStateError`.
 */
export function readPause(pause: unknown): { format: MessageFormat; messages: unknown[] } {
  if (typeof pause !== 'object' || pause === null) {
    throw new MissingTurnStateError(
      `No turn state to rebuild from: the pause is ${pause == null ? String(pause) : `a ${typeof pause}`}, not a checkpoint.`,
    );
  }
  const { format: name, messages: raw } = pause as { format?: unknown; messages?: unknown };
  const messages = requireMessages(raw);
  const format = formatOf(name);
  throwIfAny(shapeViolations(format, messages), 'The transcript does not have the shape of its format');
  return { format, messages };
}

function requireMessages(messages: unknown): unknown[] {
  if (messages === undefined || messages === null || (Array.isArray(messages) && messages.length === 0)) {
    throw new MissingTurnStateError();
  }
  if (!Array.isArray(messages)) {
    throw new InvalidTranscriptError('The transcript must be an array of messages.', [
      { rule: Rule.MessageShape, index: -1, message: 'messages must be an array.' },
    ]);
  }
  return messages;
}

/**
 * The reserved call of each id, in the order given; `InvalidTranscriptError` for an id that is not a reserved call
 * of the round. One pass over the round, whatever the number of ids.
 */
export function reservedCalls(round: PausedRound, toolCallIds: readonly string[]): ToolCall[] {
  const reserved = reservedById(round);
  return toolCallIds.map((toolCallId) => {
    const call = reserved.get(toolCallId);
    if (call === undefined) {
      const message = `toolCallId ${JSON.stringify(toolCallId)} is not a reserved call of the paused round; reserved calls: ${listSome(reserved.keys())}.`;
      throw new InvalidTranscriptError(message, [{ rule: Rule.PausedRound, index: round.start, message }]);
    }
    return call;
  });
}

/** The round's calls that have no result yet, by id. */
export function reservedById(round: PausedRound): Map<string, ToolCall> {
  const reserved = new Map<string, ToolCall>();
  for (const call of round.calls) if (!round.answered.has(call.id)) reserved.set(call.id, call);
  return reserved;
}

/** At most ten ids, quoted, and how many more there are: an error names a few, never a round of thousands. */
export function listSome(ids: Iterable<string>): string {
  const shown: string[] = [];
  let more = 0;
  for (const id of ids) {
    if (shown.length < 10) shown.push(JSON.stringify(id));
    else more++;
  }
  if (shown.length === 0) return 'none';
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/**
 * `messages` with a placeholder result for each of `calls` that has none: what the strict check sees of a transcript
 * whose reserved (or dispatched) calls are still waiting for their results.
 */
export function withPlaceholders(
  format: MessageFormat,
  messages: readonly unknown[],
  round: PausedRound,
  calls: readonly ToolCall[],
): unknown[] {
  const results: NewResult[] = [];
  for (const call of calls) {
    if (!round.answered.has(call.id)) results.push({ call, text: 'placeholder', failed: false });
  }
  return results.length === 0 ? messages.slice() : format.appendResults(messages, round, results);
}

/** Throws `InvalidTranscriptError` naming the first violation (and how many more) when there is any. */
export function throwIfAny(violations: Violation[], summary: string): void {
  if (violations.length === 0) return;
  const first = violations[0];
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  throw new InvalidTranscriptError(
    `${summary}: rule ${first?.rule} at messages[${first?.index}]: ${first?.message}${more}`,
    violations,
  );
}
