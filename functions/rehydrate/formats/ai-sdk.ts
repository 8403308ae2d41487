import type { Violation } from '../../errors.ts';
import * as z from '../../zod.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './format.ts';
import { Rule } from './format.ts';
import {
  callId,
  callIndexes,
  contentText,
  duplicates,
  insertionSlots,
  lastUserText,
  listIds,
  pausedRoundError,
  replaced,
  typedText,
  violation,
  withMessage,
} from './shared.ts';

/**
 * AI SDK `ModelMessage`s (`ai` v6): tool calls are `tool-call` parts of an assistant message; their results are
 * `tool-result` parts of the `role: "tool"` messages right after it. Provider-executed calls
 * (`providerExecuted: true`) carry their results in the assistant message itself and are not the client's to answer.
 */

// The part types `modelMessageSchema` allows per role; an unknown part type is refused there too.
const textPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const imagePart = z.looseObject({ type: z.literal('image'), image: z.unknown() });
const filePart = z.looseObject({ type: z.literal('file'), data: z.unknown(), mediaType: z.string() });
const reasoningPart = z.looseObject({ type: z.literal('reasoning'), text: z.string() });
const toolCallPart = z.looseObject({
  type: z.literal('tool-call'),
  toolCallId: callId,
  toolName: z.string(),
  input: z.unknown(),
  providerExecuted: z.optional(z.boolean()),
});
const toolResultPart = z.looseObject({
  type: z.literal('tool-result'),
  toolCallId: callId,
  toolName: z.string(),
  output: z.looseObject({ type: z.string() }),
});
const approvalRequestPart = z.looseObject({
  type: z.literal('tool-approval-request'),
  approvalId: z.string(),
  toolCallId: callId,
});
const approvalResponsePart = z.looseObject({
  type: z.literal('tool-approval-response'),
  approvalId: z.string(),
  approved: z.boolean(),
});

/**
 * A string or an array of parts. A plain union reports only "Invalid input"; this names the failing part's field.
 */
function textOrParts<T extends z.ZodMiniType>(part: T) {
  return z.union([z.string(), z.array(part)], {
    error: (issue) => {
      const nested = issue.errors.flat().find((inner) => inner.path.length > 0);
      if (nested === undefined) return 'Invalid input: expected a string or an array of parts';
      const at = nested.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
      return `at ${at}: ${nested.message}`;
    },
  });
}

const message = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: z.string() }),
  z.looseObject({
    role: z.literal('user'),
    content: textOrParts(z.discriminatedUnion('type', [textPart, imagePart, filePart])),
  }),
  z.looseObject({
    role: z.literal('assistant'),
    content: textOrParts(
      z.discriminatedUnion('type', [
        textPart,
        filePart,
        reasoningPart,
        toolCallPart,
        toolResultPart,
        approvalRequestPart,
      ]),
    ),
  }),
  z.looseObject({
    role: z.literal('tool'),
    content: z.array(z.discriminatedUnion('type', [toolResultPart, approvalResponsePart])),
  }),
]);

/** One AI SDK `ModelMessage`. */
export type AiSdkMessage = z.infer<typeof message>;
type AssistantMessage = Extract<AiSdkMessage, { role: 'assistant' }>;
type ToolMessage = Extract<AiSdkMessage, { role: 'tool' }>;
type ToolCallPart = z.infer<typeof toolCallPart>;
type ToolResultPart = z.infer<typeof toolResultPart>;

/** The calls the client must answer: tool-call parts the provider did not execute itself. */
function clientCalls(assistant: AssistantMessage): ToolCallPart[] {
  if (typeof assistant.content === 'string') return [];
  return assistant.content.filter(
    (part): part is ToolCallPart => part.type === 'tool-call' && part.providerExecuted !== true,
  );
}

function resultsOf(tool: ToolMessage): ToolResultPart[] {
  return tool.content.filter((part): part is ToolResultPart => part.type === 'tool-result');
}

function resultPart(result: NewResult): ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: result.call.id,
    toolName: result.call.name,
    output: { type: result.failed ? 'error-text' : 'text', value: result.text },
  };
}

/** The AI SDK's own `MissingToolResultsError` text. */
function missingResults(ids: ReadonlySet<string>): string {
  return ids.size > 1
    ? `Tool results are missing for tool calls ${listIds(ids)}.`
    : `Tool result is missing for tool call ${listIds(ids)}.`;
}

function orphan(index: number, toolCallId: string, detail: string): Violation {
  return violation(
    Rule.OrphanResult,
    index,
    `Unexpected tool result for tool call ${toolCallId} in messages[${index}]: ${detail} (providers reject it: "messages with role 'tool' must be a response to a preceding message with 'tool_calls'", "unexpected tool_use_id found in tool_result blocks").`,
  );
}

const textOfPart = typedText('text');

export const aiSdk: MessageFormat<AiSdkMessage> = {
  message,

  findRound(messages): PausedRound {
    const start = messages.findLastIndex((m) => m.role === 'assistant');
    const assistant = messages[start];
    const parts = assistant?.role === 'assistant' ? clientCalls(assistant) : [];
    if (parts.length === 0) {
      throw pausedRoundError(
        Math.max(start, messages.length - 1),
        start < 0
          ? 'The transcript has no assistant message, so there is no paused round.'
          : `The last assistant message (messages[${start}]) made no tool calls that are not provider-executed, so there is no paused round.`,
      );
    }
    const calls: ToolCall[] = parts.map((part) => ({ id: part.toolCallId, name: part.toolName, args: part.input }));
    const ids = new Set(calls.map((call) => call.id));
    const answered = new Set<string>();
    for (let index = start + 1; index < messages.length; index++) {
      const next = messages[index];
      const results = next?.role === 'tool' ? resultsOf(next) : undefined;
      if (results === undefined || results.some((part) => !ids.has(part.toolCallId))) {
        throw pausedRoundError(
          index,
          `messages[${index}] follows the paused round (messages[${start}]) but is not a tool message of its results; only the round's role "tool" messages may follow it.`,
        );
      }
      for (const part of results) answered.add(part.toolCallId);
    }
    return { start, calls, answered };
  },

  appendResults(messages, round, results) {
    const parts = results.map(resultPart);
    // The round's results so far, in transcript order, across its tool messages (findRound let through only those).
    const existing: Array<{ message: number; part: number; k: number }> = [];
    const indexOf = callIndexes(round);
    for (let index = round.start + 1; index < messages.length; index++) {
      (messages[index] as ToolMessage).content.forEach((part, k) => {
        if (part.type === 'tool-result') existing.push({ message: index, part: k, k: indexOf(part.toolCallId) });
      });
    }
    const slots = insertionSlots(
      existing.map((entry) => entry.k),
      results.map((result) => indexOf(result.call.id)),
    );
    const last = messages.length - 1;
    if (last === round.start) return [...messages, { role: 'tool', content: parts }];
    // Each new part goes into the tool message of the existing result it precedes, right before it; after all of
    // them, at the end of the round's last tool message.
    type Insert = { before: number; part: ToolResultPart };
    const inserts = new Map<number, Insert[]>();
    slots.forEach((slot, f) => {
      const at = existing[slot];
      const message = at?.message ?? last;
      const list = inserts.get(message) ?? [];
      list.push({ before: at?.part ?? Number.POSITIVE_INFINITY, part: parts[f] as ToolResultPart });
      inserts.set(message, list);
    });
    const copy = messages.slice();
    for (const [index, list] of inserts) {
      const tool = messages[index] as ToolMessage;
      const content: ToolMessage['content'] = [];
      let next = 0;
      const take = () => (list[next++] as Insert).part;
      tool.content.forEach((part, k) => {
        while (next < list.length && (list[next] as Insert).before <= k) content.push(take());
        content.push(part);
      });
      while (next < list.length) content.push(take());
      copy[index] = { ...tool, content };
    }
    return copy;
  },

  withArgs(messages, round, edits) {
    const assistant = messages[round.start] as AssistantMessage;
    const content = replaced(assistant.content as Exclude<AssistantMessage['content'], string>, (part) => {
      if (part.type !== 'tool-call' || part.providerExecuted === true) return undefined;
      const args = edits.get(part.toolCallId);
      return args === undefined ? undefined : { ...part, input: args };
    });
    return withMessage(messages, round.start, { ...assistant, content });
  },

  context(messages, round) {
    const assistant = messages[round.start] as AssistantMessage;
    return {
      user: lastUserText(messages, round.start, (m) =>
        m.role === 'user' ? contentText(m.content, textOfPart) : undefined,
      ),
      assistant: contentText(assistant.content, textOfPart),
    };
  },

  check(messages) {
    const violations: Violation[] = [];
    let index = 0;
    while (index < messages.length) {
      const current = messages[index] as AiSdkMessage;
      if (current.role === 'tool') {
        for (const part of resultsOf(current)) {
          violations.push(
            orphan(index, part.toolCallId, 'no assistant message with that tool call comes right before it'),
          );
        }
        index++;
        continue;
      }
      const calls = current.role === 'assistant' ? clientCalls(current) : [];
      if (calls.length === 0) {
        index++;
        continue;
      }
      const roundIndex = index;
      const ids = calls.map((call) => call.toolCallId);
      for (const id of duplicates(ids)) {
        violations.push(
          violation(
            Rule.DuplicateCallId,
            roundIndex,
            `Duplicate tool call id ${id} in messages[${roundIndex}]: tool call ids must be unique (Anthropic: "tool_use ids must be unique").`,
          ),
        );
      }
      const pending = new Set(ids);
      index++;
      while (index < messages.length && (messages[index] as AiSdkMessage).role === 'tool') {
        for (const part of resultsOf(messages[index] as ToolMessage)) {
          if (!pending.delete(part.toolCallId)) {
            violations.push(orphan(index, part.toolCallId, `it answers no open tool call of messages[${roundIndex}]`));
          }
        }
        index++;
      }
      if (pending.size > 0) {
        violations.push(
          violation(Rule.MissingResult, roundIndex, `AI_MissingToolResultsError: ${missingResults(pending)}`),
        );
      }
    }
    return violations;
  },
};
