import { BadRequestError, InvalidTranscriptError, MissingTurnStateError, type Violation } from '../errors.ts';
import { nestsDeeperThan } from '../json.ts';
import { LIMITS } from '../vocabulary.ts';
import type * as z from '../zod.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall, TurnText } from './formats/format.ts';
import { Rule } from './formats/format.ts';
import { NOT_DISPATCHED, resultText } from './texts.ts';

/**
 * The rules of a paused round that take their format module as an argument and never look one up by name, so a
 * Lambda bundle that loads each format on first use (`formats/load.ts`) carries none of the seven until a pause needs
 * it. The library's synchronous entry points (`rehydrate.ts`, `decisions.ts`, `context.ts`, `check-transcript.ts`)
 * look the format up in the eager table and call these.
 */

/** The most asks one pause may hold (§9). */
export const MAX_ASKS = LIMITS.asks.max;

/**
 * The messages of a pause, checked against `format`'s shape. A pause that is not an object, or has no messages (or
 * an empty array of them), is no turn state: `MissingTurnStateError`.
 */
export function readMessages(format: MessageFormat, pause: unknown): unknown[] {
  const messages = pauseMessages(pause);
  throwIfAny(shapeViolations(format, messages), 'The transcript does not have the shape of its format');
  return messages;
}

/** The messages of a pause, not yet checked against a format: `readMessages` without the shape check. */
export function pauseMessages(pause: unknown): unknown[] {
  if (typeof pause !== 'object' || pause === null) {
    throw new MissingTurnStateError(
      `No turn state to rebuild from: the pause is ${pause == null ? String(pause) : `a ${typeof pause}`}, not a checkpoint.`,
    );
  }
  return requireMessages((pause as { messages?: unknown }).messages);
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

/** The shape violations of `messages` for `format`: one per message that fails the schema, naming the field. */
export function shapeViolations(format: MessageFormat, messages: unknown): Violation[] {
  if (!Array.isArray(messages)) {
    return [{ rule: Rule.MessageShape, index: -1, message: `messages must be an array, got ${describe(messages)}.` }];
  }
  const violations: Violation[] = [];
  // An index loop, not forEach: a hole in the array is a message too (an ill-shaped one), never skipped.
  for (let index = 0; index < messages.length; index++) {
    const result = format.message.safeParse(messages[index]);
    if (!result.success) {
      violations.push({ rule: Rule.MessageShape, index, message: describeIssues(index, result.error) });
    }
  }
  return violations;
}

function describeIssues(index: number, error: z.core.$ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
      return `messages[${index}]${path}: ${issue.message}`;
    })
    .join('; ');
}

function describe(value: unknown): string {
  return value === null ? 'null' : typeof value;
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

/**
 * The pause-time check (§4, §9) of a pause whose format module is loaded: the transcript has the format's shape, its
 * paused round is last, each of 1 to 16 distinct `toolCallIds` (`BadRequestError` otherwise) names a reserved call
 * (`InvalidTranscriptError` otherwise), and the transcript minus the reserved calls' missing results passes the
 * strict check. Returns the round, the call of each id in the order given, and the messages it read.
 */
export function readPauseAsksWith(
  format: MessageFormat,
  pause: { messages?: unknown },
  toolCallIds: readonly string[],
): { round: PausedRound; calls: ToolCall[]; format: MessageFormat; messages: unknown[] } {
  const messages = readMessages(format, pause);
  checkAskIds(toolCallIds);
  const round = format.findRound(messages);
  const calls = reservedCalls(round, toolCallIds);
  checkArgsDepth(round);
  throwIfAny(
    format.check(withPlaceholders(format, messages, round, round.calls)),
    'The transcript fails the strict transcript check',
  );
  return { round, calls, format, messages };
}

/**
 * Refuses a call of the paused round whose arguments nest deeper than a request body may (`LIMITS.bodyDepth`): they
 * are hashed, shown, judged by policies and handed back, so they are held to what every door takes, whether they came
 * as an object or as JSON text the format parsed (openai's `arguments`), which no body depth check sees.
 */
function checkArgsDepth(round: PausedRound): void {
  for (const call of round.calls) {
    if (!nestsDeeperThan(call.args, LIMITS.bodyDepth)) continue;
    const message = `the arguments of tool call ${JSON.stringify(call.id)} nest more than ${LIMITS.bodyDepth} levels deep`;
    throw new BadRequestError(`${message.charAt(0).toUpperCase()}${message.slice(1)}.`, [
      { path: `/messages/${round.start}`, message },
    ]);
  }
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
