import { z } from 'zod';
import type { Violation } from '../../errors.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './format.ts';
import { Rule } from './format.ts';
import { duplicates, listIds, pausedRoundError, violation } from './shared.ts';

/**
 * LangChain JS `StoredMessage`s, as `mapChatMessagesToStoredMessages` writes them and
 * `mapStoredMessagesToChatMessages` reads them: `{type, data}`. Tool calls are `data.tool_calls` of an `ai`
 * message; one `tool` message per result, right after it, as LangChain's chat models send them on (OpenAI-style).
 */

// Content is a string or an array of content blocks; LangChain defaults a missing one to [].
const content = z
  .union([z.string(), z.array(z.unknown())], {
    error: 'Invalid input: expected a string or an array of content blocks',
  })
  .optional();

// `data.tool_calls` is authoritative: LangChain only parses `additional_kwargs.tool_calls` when it is absent, and
// every writer since @langchain/core 0.2 sets it. An id is required: no provider pairs a result to a call without one.
const toolCall = z.looseObject({ id: z.string(), name: z.string(), args: z.unknown() });

// The types `mapStoredMessagesToChatMessages` turns back into messages; for each, the fields it throws without.
const message = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('human'), data: z.looseObject({ content }) }),
  z.looseObject({ type: z.literal('system'), data: z.looseObject({ content }) }),
  z.looseObject({
    type: z.literal('ai'),
    data: z.looseObject({ content, tool_calls: z.array(toolCall).optional() }),
  }),
  z.looseObject({ type: z.literal('tool'), data: z.looseObject({ content, tool_call_id: z.string() }) }),
  z.looseObject({ type: z.literal('function'), data: z.looseObject({ content, name: z.string() }) }),
  z.looseObject({ type: z.literal('generic'), data: z.looseObject({ content, role: z.string() }) }),
]);

/** One LangChain `StoredMessage`. */
export type LangChainMessage = z.infer<typeof message>;
type ToolMessage = Extract<LangChainMessage, { type: 'tool' }>;

/** What `ToolMessage.toDict()` writes, so the stored shape matches LangChain's own. */
function toolMessage(result: NewResult): ToolMessage {
  return {
    type: 'tool',
    data: {
      content: result.text,
      tool_call_id: result.call.id,
      name: result.call.name,
      status: result.notDispatched ? 'error' : 'success',
      additional_kwargs: {},
      response_metadata: {},
    },
  };
}

export const langchain: MessageFormat<LangChainMessage> = {
  message,
  resultOrder: 'answered-first',

  findRound(messages): PausedRound {
    const start = messages.findLastIndex((m) => m.type === 'ai');
    const ai = messages[start];
    const toolCalls = ai?.type === 'ai' ? ai.data.tool_calls : undefined;
    if (!toolCalls?.length) {
      throw pausedRoundError(
        Math.max(start, messages.length - 1),
        start < 0
          ? 'The transcript has no ai message, so there is no paused round.'
          : `The last ai message (messages[${start}]) made no tool calls, so there is no paused round.`,
      );
    }
    const calls: ToolCall[] = toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.args }));
    const ids = new Set(calls.map((call) => call.id));
    const answered = new Set<string>();
    for (let index = start + 1; index < messages.length; index++) {
      const next = messages[index];
      if (next?.type !== 'tool' || !ids.has(next.data.tool_call_id)) {
        throw pausedRoundError(
          index,
          `messages[${index}] follows the paused round (messages[${start}]) but is not one of its tool results; only the round's tool messages may follow it.`,
        );
      }
      answered.add(next.data.tool_call_id);
    }
    return { start, calls, answered };
  },

  appendResults(messages, _round, results) {
    return [...messages, ...results.map(toolMessage)];
  },

  check(messages) {
    const violations: Violation[] = [];
    let index = 0;
    while (index < messages.length) {
      const current = messages[index] as LangChainMessage;
      if (current.type === 'tool') {
        violations.push(
          violation(
            Rule.OrphanResult,
            index,
            `INVALID_TOOL_RESULTS: messages with role 'tool' must be a response to a preceding message with 'tool_calls'; the ToolMessage at messages[${index}] (tool_call_id ${current.data.tool_call_id}) has no preceding AIMessage with tool calls.`,
          ),
        );
        index++;
        continue;
      }
      if (current.type !== 'ai' || !current.data.tool_calls?.length) {
        index++;
        continue;
      }
      const roundIndex = index;
      const ids = current.data.tool_calls.map((call) => call.id);
      for (const id of duplicates(ids)) {
        violations.push(
          violation(
            Rule.DuplicateCallId,
            roundIndex,
            `INVALID_TOOL_RESULTS: duplicate tool call id ${id} in messages[${roundIndex}].data.tool_calls; each tool call needs its own id for exactly one ToolMessage to answer it.`,
          ),
        );
      }
      const pending = new Set(ids);
      index++;
      while (index < messages.length && (messages[index] as LangChainMessage).type === 'tool') {
        const result = messages[index] as ToolMessage;
        if (!pending.delete(result.data.tool_call_id)) {
          violations.push(
            violation(
              Rule.OrphanResult,
              index,
              `INVALID_TOOL_RESULTS: messages with role 'tool' must be a response to a preceding message with 'tool_calls'; tool_call_id ${result.data.tool_call_id} in messages[${index}] answers no open tool call of messages[${roundIndex}].`,
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
            `INVALID_TOOL_RESULTS: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${listIds(pending)}`,
          ),
        );
      }
    }
    return violations;
  },
};
