import * as z from '../../zod.ts';
import type { MessageFormat, NewResult, ToolCall } from './format.ts';
import { argumentsText, callId, contentText, lastUserText, replaced, typedText, withMessage } from './shared.ts';
import {
  appendToolMessages,
  checkToolMessageRounds,
  findToolMessageRound,
  type ToolMessageFamily,
} from './tool-messages.ts';

/**
 * OpenAI Chat Completions messages (`ChatCompletionMessageParam`): tool calls in `assistant.tool_calls`, one
 * `role: "tool"` message per result, right after the assistant message.
 */

const contentPart = z.looseObject({ type: z.string() });
const content = z.union([z.string(), z.array(contentPart)]);

const toolCall = z.looseObject({
  id: callId,
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const message = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content }),
  z.looseObject({ role: z.literal('developer'), content }),
  z.looseObject({ role: z.literal('user'), content }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.nullish(content),
    tool_calls: z.optional(z.array(toolCall)),
  }),
  z.looseObject({ role: z.literal('tool'), tool_call_id: callId, content }),
  z.looseObject({ role: z.literal('function'), name: z.string(), content: z.nullable(z.string()) }),
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

const family: ToolMessageFamily<OpenAIChatMessage> = {
  assistantWord: 'assistant',
  isAssistant: (m) => m.role === 'assistant',
  // Asked of assistant messages only (isAssistant).
  callsOf: (m) => callsOf(m as AssistantMessage),
  callIdsOf: (m) => ((m as AssistantMessage).tool_calls ?? []).map((call) => call.id),
  resultIdOf: (m) => (m.role === 'tool' ? m.tool_call_id : undefined),
  words: {
    missing: (ids) =>
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids}`,
    orphan: (index, id) =>
      `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (messages[${index}], tool_call_id ${id}).`,
    orphanInRound: (index, id, roundIndex) =>
      `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'; tool_call_id ${id} in messages[${index}] answers no open call of messages[${roundIndex}].`,
    duplicate: (roundIndex, id) => `Duplicate tool_call id ${id} in messages[${roundIndex}].tool_calls.`,
  },
};

function toolMessage(result: NewResult): OpenAIChatToolResultMessage {
  return { role: 'tool', tool_call_id: result.call.id, content: result.text };
}

const textPart = typedText('text');

export const openaiChat: MessageFormat<OpenAIChatMessage> = {
  message,

  findRound: (messages) => findToolMessageRound(family, messages),

  appendResults: (messages, round, results) => appendToolMessages(family, messages, round, results, toolMessage),

  withArgs(messages, round, edits) {
    const assistant = messages[round.start] as AssistantMessage;
    const toolCalls = replaced(assistant.tool_calls ?? [], (call) => {
      const args = edits.get(call.id);
      return args === undefined
        ? undefined
        : { ...call, function: { ...call.function, arguments: argumentsText(args) } };
    });
    return withMessage(messages, round.start, { ...assistant, tool_calls: toolCalls });
  },

  check: (messages) => checkToolMessageRounds(family, messages),

  context(messages, round) {
    const assistant = messages[round.start] as AssistantMessage;
    return {
      user: lastUserText(messages, round.start, (m) =>
        m.role === 'user' ? contentText(m.content, textPart) : undefined,
      ),
      assistant: contentText(assistant.content, textPart),
    };
  },
};
