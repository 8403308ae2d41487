import { InvalidAnswerError, InvalidTranscriptError, MissingTurnStateError, type Violation } from '../errors.ts';
import { shapeViolations } from './check-transcript.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './formats/format.ts';
import { Rule } from './formats/format.ts';
import { formatOf } from './formats/index.ts';

/**
 * The result of every reserved call the person did not answer (§3.5): the call was not run because the turn
 * paused for a person, and the model may call it again.
 */
export const NOT_DISPATCHED =
  'Not run: this turn paused for a person to answer another tool call, so this call was never dispatched. Call it again if you still need its result.';

/**
 * What `rehydrate` needs of a pause: its format, its messages and the answered call — as `toolCallId`, or as the
 * `toolCall` of a stored pause record (`store.getPause(key, { includeMessages: true })`).
 */
export type PauseLike = { format: string; messages?: unknown } & (
  | { toolCallId: string; toolCall?: { id: string } }
  | { toolCallId?: undefined; toolCall: { id: string } }
);

/** The id of the call a pause's person answers. */
function answeredCallId(pause: PauseLike): string {
  return pause.toolCallId ?? pause.toolCall?.id ?? '';
}

/**
 * Rebuilds a paused turn's transcript with the person's answer folded in (§3): the answered call gets the answer,
 * every other reserved call gets `NOT_DISPATCHED`, placed as the format requires. Pure; never mutates its input.
 *
 * Throws `MissingTurnStateError` for a missing or empty transcript, `InvalidTranscriptError` for a transcript that
 * is ill-shaped, has no paused round, or whose `toolCallId` is not a reserved call, and `InvalidAnswerError` for an
 * answer that is not JSON or that the format cannot carry.
 */
export function rehydrate(pause: PauseLike, answer: unknown): unknown[] {
  const format = formatOf(pause.format);
  const messages = requireMessages(pause.messages);
  throwIfAny(shapeViolations(format, messages), 'The transcript does not have the shape of its format');
  const rebuilt = rebuildTranscript(format, messages, answeredCallId(pause), answer);
  throwIfAny(format.check(rebuilt), 'The rebuilt transcript fails the strict transcript check');
  return rebuilt;
}

/**
 * `rehydrate` for a transcript already validated by `validatePause` (a stored checkpoint whose hash matched):
 * finds the round and appends the results without scanning the earlier messages again.
 */
export function rebuildTranscript(
  format: MessageFormat,
  messages: readonly unknown[],
  toolCallId: string,
  answer: unknown,
): unknown[] {
  const text = answerText(answer);
  const refusal = format.refuseAnswerText?.(text);
  if (refusal !== undefined) {
    throw new InvalidAnswerError(refusal, [{ path: '', message: refusal }]);
  }
  const round = format.findRound(messages);
  const answered = reservedCall(round, toolCallId);
  const others = round.calls.filter((call) => call !== answered && !round.answered.has(call.id));
  const ordered =
    format.resultOrder === 'call-order'
      ? round.calls.filter((call) => call === answered || others.includes(call))
      : [answered, ...others];
  const results: NewResult[] = ordered.map((call) =>
    call === answered ? { call, text, notDispatched: false } : { call, text: NOT_DISPATCHED, notDispatched: true },
  );
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
 * reserved call, and the transcript minus the reserved calls' missing results passes the strict check (checked by
 * rebuilding it with a placeholder answer). Throws `InvalidTranscriptError` listing the violations.
 */
export function validatePause(pause: PauseLike): PauseCheck {
  const format = formatOf(pause.format);
  const messages = requireMessages(pause.messages);
  throwIfAny(shapeViolations(format, messages), 'The transcript does not have the shape of its format');
  const round = format.findRound(messages);
  const toolCallId = answeredCallId(pause);
  const toolCall = reservedCall(round, toolCallId);
  throwIfAny(
    format.check(rebuildTranscript(format, messages, toolCallId, 'placeholder')),
    'The transcript fails the strict transcript check',
  );
  return { round, toolCall };
}

/** The answer as the answered call's observation (§3.4): a string verbatim, any other JSON value as its JSON text. */
export function answerText(answer: unknown): string {
  const problem = jsonProblem(answer, '');
  if (problem !== undefined) {
    throw new InvalidAnswerError(`The answer is not a JSON value: ${problem}.`, [
      { path: problem.split(' ')[0] ?? '', message: problem },
    ]);
  }
  return typeof answer === 'string' ? answer : JSON.stringify(answer);
}

function jsonProblem(value: unknown, path: string, seen = new Set<object>()): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path || '/'} is ${value}, which JSON cannot carry`;
    case 'object': {
      if (value === null) return undefined;
      if (seen.has(value)) return `${path || '/'} refers to itself`;
      const proto = Object.getPrototypeOf(value);
      if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
        return `${path || '/'} is a ${proto?.constructor?.name ?? 'non-plain'} object, not a JSON object`;
      }
      seen.add(value);
      for (const [key, item] of Object.entries(value)) {
        const problem = jsonProblem(item, `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, seen);
        if (problem !== undefined) return problem;
      }
      seen.delete(value);
      return undefined;
    }
    default:
      return `${path || '/'} is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}, which JSON cannot carry`;
  }
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

function reservedCall(round: PausedRound, toolCallId: string): ToolCall {
  const call = round.calls.find((candidate) => candidate.id === toolCallId);
  if (call === undefined || round.answered.has(call.id)) {
    const reserved = round.calls.filter((candidate) => !round.answered.has(candidate.id)).map((c) => c.id);
    const message = `toolCallId ${JSON.stringify(toolCallId)} is not a reserved call of the paused round; reserved calls: ${reserved.map((id) => JSON.stringify(id)).join(', ') || 'none'}.`;
    throw new InvalidTranscriptError(message, [{ rule: Rule.PausedRound, index: round.start, message }]);
  }
  return call;
}

function throwIfAny(violations: Violation[], summary: string): void {
  if (violations.length === 0) return;
  const first = violations[0];
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  throw new InvalidTranscriptError(
    `${summary}: rule ${first?.rule} at messages[${first?.index}]: ${first?.message}${more}`,
    violations,
  );
}
