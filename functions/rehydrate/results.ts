import { type ToolResult, toolResults } from '../fields.ts';
import { parseInput } from '../inputs.ts';
import type { NewResult } from './formats/format.ts';
import { readPause, reservedCalls, throwIfAny, withPlaceholders } from './rehydrate.ts';
import { resultText } from './texts.ts';

export type { ToolResult };

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
  const byId = new Map<string, { text: string; failed: boolean }>();
  parseInput(toolResults, results, 'results', '/results').forEach(({ toolCallId, output, isError }, i) => {
    byId.set(toolCallId, { text: resultText(module, output, `/results/${i}/output`), failed: isError === true });
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
