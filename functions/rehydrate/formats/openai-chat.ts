import { z } from 'zod';
import type { Violation } from '../../errors.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './format.ts';
import { Rule } from './format.ts';
import { duplicates, listIds, pausedRoundError, violation } from './shared.ts';

/**
 * OpenAI Chat Completions messages (`ChatCompletionMessageParam`): tool calls in `assistant.tool_calls`, one
 * `role: "tool"` message per result, right after the assistant message.
 */

const contentPart = z.looseObject({ type: z.string() });
const content = z.union([z.string(), z.array(contentPart)]);

const toolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const message = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content }),
  z.looseObject({ role: z.literal('developer'), content }),
  z.looseObject({ role: z.literal('user'), content }),
  z.looseObject({
    role: z.literal('assistant'),
    content: content.nullish(),
    tool_calls: z.array(toolCall).optional(),
  }),
  z.looseObject({ role: z.literal('tool'), tool_call_id: z.string(), content }),
  z.looseObject({ role: z.literal('function'), name: z.string(), content: z.string().nullable() }),
]);

/** One Chat Completions message. */
export type OpenAIChatMessage = z.infer<typeof message>;
type AssistantMessage = Extract<OpenAIChatMessage, { role: 'assistant' }>;

/** The tool message Handback adds for each result: a `ChatCompletionToolMessageParam`. */
export type OpenAIChatToolResultMessage = { role: 'tool'; tool_call_id: string; content: string };

function callsOf(assistant: AssistantMessage): ToolCall[] {
  return (assistant.tool_calls ?? []).map((call) => ({
    id: call.id,
    name: call.function.name,
    args: parseArguments(call.function.arguments),
  }));
}

/** The model's arguments as JSON when they parse, else the raw string (models do emit broken JSON). */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const openaiChat: MessageFormat<OpenAIChatMessage> = {
  message,
  resultOrder: 'answered-first',

  findRound(messages): PausedRound {
    const start = messages.findLastIndex((m) => m.role === 'assistant');
    const assistant = messages[start];
    if (assistant?.role !== 'assistant' || !assistant.tool_calls?.length) {
      throw pausedRoundError(
        Math.max(start, messages.length - 1),
        start < 0
          ? 'The transcript has no assistant message, so there is no paused round.'
          : `The last assistant message (messages[${start}]) made no tool calls, so there is no paused round.`,
      );
    }
    const calls = callsOf(assistant);
    const ids = new Set(calls.map((call) => call.id));
    const answered = new Set<string>();
    for (let index = start + 1; index < messages.length; index++) {
      const next = messages[index];
      if (next?.role !== 'tool' || !ids.has(next.tool_call_id)) {
        throw pausedRoundError(
          index,
          `messages[${index}] follows the paused round (messages[${start}]) but is not one of its tool results; only the round's tool messages may follow it.`,
        );
      }
      answered.add(next.tool_call_id);
    }
    return { start, calls, answered };
  },

  appendResults(messages, _round, results: readonly NewResult[]) {
    return [
      ...messages,
      ...results.map(
        (result): OpenAIChatMessage => ({
          role: 'tool',
          tool_call_id: result.call.id,
          content: result.text,
        }),
      ),
    ];
  },

  check(messages) {
    const violations: Violation[] = [];
    let index = 0;
    while (index < messages.length) {
      const current = messages[index] as OpenAIChatMessage;
      if (current.role === 'tool') {
        violations.push(
          violation(
            Rule.OrphanResult,
            index,
            `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (messages[${index}], tool_call_id ${current.tool_call_id}).`,
          ),
        );
        index++;
        continue;
      }
      if (current.role !== 'assistant' || !current.tool_calls?.length) {
        index++;
        continue;
      }
      const roundIndex = index;
      const ids = current.tool_calls.map((call) => call.id);
      for (const id of duplicates(ids)) {
        violations.push(
          violation(
            Rule.DuplicateCallId,
            roundIndex,
            `Duplicate tool_call id ${id} in messages[${roundIndex}].tool_calls.`,
          ),
        );
      }
      const pending = new Set(ids);
      index++;
      while (index < messages.length && (messages[index] as OpenAIChatMessage).role === 'tool') {
        const result = messages[index] as Extract<OpenAIChatMessage, { role: 'tool' }>;
        if (!pending.delete(result.tool_call_id)) {
          violations.push(
            violation(
              Rule.OrphanResult,
              index,
              `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'; tool_call_id ${result.tool_call_id} in messages[${index}] answers no open call of messages[${roundIndex}].`,
            ),
          );
        }
        index++;
      }
      if (pending.size > 0) {
        violations.push(
          violation(
            Rule.MissingResult,
            roundIndex,
            `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${listIds(pending)}`,
          ),
        );
      }
    }
    return violations;
  },
};
