import * as z from '../../zod.ts';
import type { MessageFormat, NewResult } from './format.ts';
import {
  argumentsText,
  callId,
  contentText,
  isRecord,
  lastUserText,
  replaced,
  typedText,
  withMessage,
} from './shared.ts';
import {
  appendToolMessages,
  checkToolMessageRounds,
  findToolMessageRound,
  type ToolMessageFamily,
} from './tool-messages.ts';

/**
 * LangChain JS `StoredMessage`s, as `mapChatMessagesToStoredMessages` writes them and
 * `mapStoredMessagesToChatMessages` reads them: `{type, data}`. Tool calls are `data.tool_calls` of an `ai`
 * message; one `tool` message per result, right after it, as LangChain's chat models send them on (OpenAI-style).
 */

// Content is a string or an array of content blocks; LangChain defaults a missing one to [].
const content = z.optional(
  z.union([z.string(), z.array(z.unknown())], {
    error: 'Invalid input: expected a string or an array of content blocks',
  }),
);

// `data.tool_calls` is authoritative: LangChain only parses `additional_kwargs.tool_calls` when it is absent, and
// every writer since @langchain/core 0.2 sets it. An id is required: no provider pairs a result to a call without one.
const toolCall = z.looseObject({ id: callId, name: z.string(), args: z.unknown() });

// The types `mapStoredMessagesToChatMessages` turns back into messages; for each, the fields it throws without.
const message = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('human'), data: z.looseObject({ content }) }),
  z.looseObject({ type: z.literal('system'), data: z.looseObject({ content }) }),
  z.looseObject({
    type: z.literal('ai'),
    data: z.looseObject({ content, tool_calls: z.optional(z.array(toolCall)) }),
  }),
  z.looseObject({ type: z.literal('tool'), data: z.looseObject({ content, tool_call_id: callId }) }),
  z.looseObject({ type: z.literal('function'), data: z.looseObject({ content, name: z.string() }) }),
  z.looseObject({ type: z.literal('generic'), data: z.looseObject({ content, role: z.string() }) }),
]);

/** One LangChain `StoredMessage`. */
export type LangChainMessage = z.infer<typeof message>;
type ToolMessage = Extract<LangChainMessage, { type: 'tool' }>;
type AiMessage = Extract<LangChainMessage, { type: 'ai' }>;

/** What `ToolMessage.toDict()` writes, so the stored shape matches LangChain's own. */
function toolMessage(result: NewResult): ToolMessage {
  return {
    type: 'tool',
    data: {
      content: result.text,
      tool_call_id: result.call.id,
      name: result.call.name,
      status: result.failed ? 'error' : 'success',
      additional_kwargs: {},
      response_metadata: {},
    },
  };
}

function toolCallsOf(message: LangChainMessage): NonNullable<AiMessage['data']['tool_calls']> {
  return (message as AiMessage).data.tool_calls ?? [];
}

const family: ToolMessageFamily<LangChainMessage> = {
  assistantWord: 'ai',
  isAssistant: (m) => m.type === 'ai',
  // Asked of ai messages only (isAssistant).
  callsOf: (m) => toolCallsOf(m).map((call) => ({ id: call.id, name: call.name, args: call.args })),
  callIdsOf: (m) => toolCallsOf(m).map((call) => call.id),
  resultIdOf: (m) => (m.type === 'tool' ? m.data.tool_call_id : undefined),
  words: {
    missing: (ids) =>
      `INVALID_TOOL_RESULTS: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids}`,
    orphan: (index, id) =>
      `INVALID_TOOL_RESULTS: messages with role 'tool' must be a response to a preceding message with 'tool_calls'; the ToolMessage at messages[${index}] (tool_call_id ${id}) has no preceding AIMessage with tool calls.`,
    orphanInRound: (index, id, roundIndex) =>
      `INVALID_TOOL_RESULTS: messages with role 'tool' must be a response to a preceding message with 'tool_calls'; tool_call_id ${id} in messages[${index}] answers no open tool call of messages[${roundIndex}].`,
    duplicate: (roundIndex, id) =>
      `INVALID_TOOL_RESULTS: duplicate tool call id ${id} in messages[${roundIndex}].data.tool_calls; each tool call needs its own id for exactly one ToolMessage to answer it.`,
  },
};

const textBlock = typedText('text');

export const langchain: MessageFormat<LangChainMessage> = {
  message,

  findRound: (messages) => findToolMessageRound(family, messages),

  appendResults: (messages, round, results) => appendToolMessages(family, messages, round, results, toolMessage),

  withArgs(messages, round, edits) {
    const ai = messages[round.start] as AiMessage;
    const data: AiMessage['data'] = {
      ...ai.data,
      tool_calls: replaced(toolCallsOf(ai), (call) => {
        const args = edits.get(call.id);
        return args === undefined ? undefined : { ...call, args };
      }),
    };
    // The raw copies LangChain keeps beside `tool_calls` must not disagree with them.
    const kwargs = ai.data.additional_kwargs;
    if (isRecord(kwargs) && Array.isArray(kwargs.tool_calls)) {
      data.additional_kwargs = { ...kwargs, tool_calls: replaced(kwargs.tool_calls, (raw) => rawCallWith(raw, edits)) };
    }
    if (Array.isArray(ai.data.tool_call_chunks)) {
      data.tool_call_chunks = replaced(ai.data.tool_call_chunks as unknown[], (chunk) => {
        const args = isRecord(chunk) && typeof chunk.id === 'string' ? edits.get(chunk.id) : undefined;
        return args === undefined ? undefined : { ...(chunk as object), args: argumentsText(args) };
      });
    }
    return withMessage(messages, round.start, { ...ai, data });
  },

  check: (messages) => checkToolMessageRounds(family, messages),

  context(messages, round) {
    const ai = messages[round.start] as AiMessage;
    return {
      user: lastUserText(messages, round.start, (m) =>
        m.type === 'human' ? contentText(m.data.content, textBlock) : undefined,
      ),
      assistant: contentText(ai.data.content, textBlock),
    };
  },
};

/** An OpenAI-style raw tool call of `additional_kwargs` with the edited arguments as JSON text, if it is edited. */
function rawCallWith(raw: unknown, edits: ReadonlyMap<string, Record<string, unknown>>): unknown {
  if (!isRecord(raw) || typeof raw.id !== 'string') return undefined;
  const args = edits.get(raw.id);
  if (args === undefined || !isRecord(raw.function)) return undefined;
  return { ...raw, function: { ...raw.function, arguments: argumentsText(args) } };
}
