import { pauseMessages, readPauseAsksWith, rebuildTranscript, shapeViolations, throwIfAny } from './core.ts';
import type { MessageFormat, PausedRound, ToolCall } from './formats/format.ts';
import { formatOf } from './formats/index.ts';

export {
  listSome,
  MAX_ASKS,
  rebuildTranscript,
  reservedById,
  reservedCalls,
  throwIfAny,
  withPlaceholders,
} from './core.ts';
export { answerText, NOT_DISPATCHED } from './texts.ts';

/**
 * The library's synchronous entry points over the eager table of formats (`formats/index.ts`): each looks its format
 * up by name and runs the rules of `core.ts`. The Lambda functions load a pause's format on first use instead
 * (`formats/load.ts`) and call the core with it.
 */

/**
 * What `rehydrate` needs of a pause: its format, its messages and the answered call — as `toolCallId`, or as the
 * `toolCall` of a stored pause record (`store.getPause(key, { includeMessages: true })`).
 */
export type PauseLike = { format: string; messages?: unknown } & (
  | { toolCallId: string; toolCall?: { id: string } }
  | { toolCallId?: undefined; toolCall: { id: string } }
);

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

/** `validatePauseAsks`, also returning the format and the messages it read. */
export function readPauseAsks(
  pause: { format: string; messages?: unknown },
  toolCallIds: readonly string[],
): { round: PausedRound; calls: ToolCall[]; format: MessageFormat; messages: unknown[] } {
  // A missing transcript is named before an unknown format, as `readPause` names them.
  pauseMessages(pause);
  return readPauseAsksWith(formatOf(pause.format), pause, toolCallIds);
}

/**
 * The format module and the messages of a pause, the messages checked against the format's shape. A pause that is
 * not an object, or has no messages (or an empty array of them), is no turn state: `MissingTurnStateError`.
 */
export function readPause(pause: unknown): { format: MessageFormat; messages: unknown[] } {
  const messages = pauseMessages(pause);
  const format = formatOf((pause as { format?: unknown }).format);
  throwIfAny(shapeViolations(format, messages), 'The transcript does not have the shape of its format');
  return { format, messages };
}
