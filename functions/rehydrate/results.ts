import type { NewResult } from './formats/format.ts';
import { badRequest } from './formats/shared.ts';
import { readPause, reservedCalls, throwIfAny, withPlaceholders } from './rehydrate.ts';
import { resultText } from './texts.ts';

/** One of the agent's own tool results: the call it answers, its output, and whether the tool failed. */
export interface ToolResult {
  toolCallId: string;
  /** A string is the result's text verbatim; any other JSON value its JSON text. */
  output: unknown;
  /** Marks the result as a failure where the format can say so (§3.8); an answer-like result otherwise. */
  isError?: boolean;
}

/**
 * Adds the agent's own results for calls of the paused round that have none yet (the dispatch calls of a decided
 * round, or any reserved calls), with the format's placement, order and failure marks (§3.6–3.8): each goes where
 * call order puts it among the round's results, between results already there when need be. Returns a new array
 * (the input is never mutated), which passes the strict check once every call of the round has its result.
 *
 * Validates its input: an unknown format or an ill-shaped transcript, or a `toolCallId` that is not a call of the
 * paused round without a result, is an `InvalidTranscriptError`; `results` that are not an array of
 * `{toolCallId, output, isError?}`, or name one call twice, a `BadRequestError`; an output that is not JSON or that
 * the format cannot carry (bedrock-converse: the empty string), an `InvalidAnswerError`.
 */
export function appendResults(format: string, messages: readonly unknown[], results: readonly ToolResult[]): unknown[] {
  const { format: module, messages: checked } = readPause({ format, messages });
  const round = module.findRound(checked);
  if (!Array.isArray(results))
    throw badRequest('results must be an array of {toolCallId, output, isError?}.', '/results');
  const byId = new Map<string, { text: string; failed: boolean }>();
  (results as unknown[]).forEach((raw, i) => {
    const at = `/results/${i}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw badRequest(`results[${i}] must be an object {toolCallId, output, isError?}.`, at);
    }
    const { toolCallId, output, isError } = raw as Record<string, unknown>;
    if (typeof toolCallId !== 'string')
      throw badRequest(`results[${i}] needs a toolCallId string.`, `${at}/toolCallId`);
    if (isError !== undefined && typeof isError !== 'boolean') {
      throw badRequest(`results[${i}].isError must be a boolean.`, `${at}/isError`);
    }
    if (byId.has(toolCallId)) {
      throw badRequest(`results[${i}]: a second result for ${JSON.stringify(toolCallId)}.`, `${at}/toolCallId`);
    }
    byId.set(toolCallId, { text: resultText(module, output, `${at}/output`), failed: isError === true });
  });
  reservedCalls(round, [...byId.keys()]);
  const added: NewResult[] = [];
  const waiting = [];
  for (const call of round.calls) {
    if (round.answered.has(call.id)) continue;
    const result = byId.get(call.id);
    if (result === undefined) waiting.push(call);
    else added.push({ call, ...result });
  }
  const rebuilt = added.length > 0 ? module.appendResults(checked, round, added) : checked.slice();
  // The strict check, with the calls still waiting for their results given placeholders.
  throwIfAny(
    module.check(waiting.length > 0 ? withPlaceholders(module, rebuilt, module.findRound(rebuilt), waiting) : rebuilt),
    'The transcript with the results added fails the strict transcript check',
  );
  return rebuilt;
}
