import type { Violation } from '../../errors.ts';
import * as z from '../../zod.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './format.ts';
import { Rule } from './format.ts';
import {
  argumentsText,
  callId,
  callIndexes,
  contentText,
  insertionSlots,
  interleave,
  joinTexts,
  lastUserText,
  pausedRoundError,
  typedText,
  violation,
} from './shared.ts';

/**
 * OpenAI Responses API input items (`ResponseInputItem`): calls are `function_call` items, each answered by a
 * `function_call_output` item with the same `call_id` anywhere after it. The paused round is the last run of
 * model-output items (reasoning, assistant messages, function calls, and the completed items of the tools the API
 * runs itself); the results go at the end.
 */

/** The Responses API refuses a longer `call_id` (`string_above_max_length`). */
const MAX_CALL_ID = 64;

const contentPart = z.looseObject({ type: z.string() });
const content = z.union([z.string(), z.array(contentPart)]);

const messageItem = z.looseObject({
  type: z.optional(z.literal('message')),
  role: z.enum(['user', 'system', 'developer', 'assistant']),
  content,
});
const functionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: callId,
  name: z.string(),
  arguments: z.string(),
});
const functionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: callId,
  output: content,
});
const reasoningItem = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string(),
  summary: z.array(contentPart),
});
// `item_reference` may leave out its `type`; any other item type (web_search_call, computer_call, …) is kept as is.
const itemReference = z.looseObject({ type: z.nullish(z.literal('item_reference')), id: z.string() });
const otherItem = z.looseObject({ type: z.string() });

/** An input message (`EasyInputMessage`, `ResponseInputItem.Message`, `ResponseOutputMessage`). */
export type ResponsesMessageItem = z.infer<typeof messageItem>;
/** A `function_call` item: a tool call. */
export type ResponsesFunctionCallItem = z.infer<typeof functionCallItem>;
/** A `function_call_output` item: a tool result. */
export type ResponsesFunctionCallOutputItem = z.infer<typeof functionCallOutputItem>;
/** A `reasoning` item. */
export type ResponsesReasoningItem = z.infer<typeof reasoningItem>;
/** Any other item, kept as it was. */
export type ResponsesOtherItem = z.infer<typeof otherItem> | z.infer<typeof itemReference>;
/** One Responses API input item. */
export type OpenAIResponsesItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem
  | ResponsesReasoningItem
  | ResponsesOtherItem;

/** The item `appendResults` adds for one result (an alias, not an interface, so it fits the loose item type). */
export type ResponsesResultItem = {
  type: 'function_call_output';
  call_id: string;
  output: string;
};

const byType: Record<string, z.ZodMiniType> = {
  message: messageItem,
  function_call: functionCallItem,
  function_call_output: functionCallOutputItem,
  reasoning: reasoningItem,
  item_reference: itemReference,
};

/** The schema that applies to `item`: by its `type`; without one, a message when it has a `role`, else a reference. */
function schemaOf(item: { type?: unknown; role?: unknown }): z.ZodMiniType {
  if (item.type === undefined || item.type === null) return 'role' in item ? messageItem : itemReference;
  const type = String(item.type);
  // Own keys only: an item type such as "constructor" must not find Object's own members.
  return Object.hasOwn(byType, type) ? (byType[type] as z.ZodMiniType) : otherItem;
}

// Items have no single discriminator (messages and references may omit `type`, and unknown types are allowed), so
// the item's own schema is chosen by hand; its issues keep their paths, so an error names the field.
const message = z.looseObject({ type: z.nullish(z.string()) }).check(
  z.superRefine((item, ctx) => {
    const result = schemaOf(item).safeParse(item);
    if (result.success) return;
    for (const issue of result.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: item });
    }
  }),
) as unknown as z.ZodMiniType<OpenAIResponsesItem>;

function isFunctionCall(item: OpenAIResponsesItem): item is ResponsesFunctionCallItem {
  return item.type === 'function_call';
}

function isFunctionCallOutput(item: OpenAIResponsesItem): item is ResponsesFunctionCallOutputItem {
  return item.type === 'function_call_output';
}

/**
 * The output items of the tools the API runs itself (`ResponseOutputItem`): the model's response holds them, done, beside
 * its function calls, and they need nothing from the client. `mcp_approval_request` is among them: the API asks the
 * client to approve an MCP call, and goes on without that call when no `mcp_approval_response` comes. Tool search
 * counts only when the server ran it (`execution: "server"`); run by the client, it waits for the client's output.
 */
const HOSTED_ITEMS: ReadonlySet<string> = new Set([
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
]);
const SERVER_TOOL_SEARCH: ReadonlySet<string> = new Set(['tool_search_call', 'tool_search_output']);

/** Whether the model wrote `item`: the paused round is the last run of these. */
function isModelOutput(item: OpenAIResponsesItem): boolean {
  const { type } = item;
  if (type === 'function_call' || type === 'reasoning') return true;
  if (type === undefined || type === null || type === 'message') return 'role' in item && item.role === 'assistant';
  if (HOSTED_ITEMS.has(type)) return true;
  return SERVER_TOOL_SEARCH.has(type) && (item as { execution?: unknown }).execution === 'server';
}

/** The index of the last item of the model-output run that starts at `start`. */
function runEnd(messages: readonly OpenAIResponsesItem[], start: number): number {
  let end = start;
  while (end + 1 < messages.length && isModelOutput(messages[end + 1] as OpenAIResponsesItem)) end++;
  return end;
}

function outputItem(result: NewResult): ResponsesResultItem {
  return { type: 'function_call_output', call_id: result.call.id, output: result.text };
}

const inputText = typedText('input_text', 'text');
const outputText = typedText('output_text', 'text');

/** The text of a message item of `role`, or `undefined` for any other item. */
function messageText(
  item: OpenAIResponsesItem,
  role: string,
  read: (part: unknown) => string | undefined,
): string | undefined {
  if (!(item.type === undefined || item.type === null || item.type === 'message') || !('role' in item))
    return undefined;
  return item.role === role ? contentText((item as ResponsesMessageItem).content, read) : undefined;
}

/** The model's arguments as JSON when they parse, else the raw string (models do emit broken JSON). */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const openaiResponses: MessageFormat<OpenAIResponsesItem> = {
  message,

  findRound(messages): PausedRound {
    const end = messages.findLastIndex(isModelOutput);
    let start = end;
    while (start > 0 && isModelOutput(messages[start - 1] as OpenAIResponsesItem)) start--;
    const calls: ToolCall[] = [];
    for (let index = Math.max(start, 0); index <= end; index++) {
      const item = messages[index] as OpenAIResponsesItem;
      if (isFunctionCall(item)) {
        calls.push({ id: item.call_id, name: item.name, args: parseArguments(item.arguments) });
      }
    }
    if (calls.length === 0) {
      throw pausedRoundError(
        Math.max(end, messages.length - 1),
        end < 0
          ? 'The transcript has no model output items, so there is no paused round.'
          : `The last run of model output items (input[${start}]..input[${end}]) made no function calls, so there is no paused round.`,
      );
    }
    const ids = new Set(calls.map((call) => call.id));
    const answered = new Set<string>();
    for (let index = end + 1; index < messages.length; index++) {
      const item = messages[index] as OpenAIResponsesItem;
      if (!isFunctionCallOutput(item) || !ids.has(item.call_id)) {
        throw pausedRoundError(
          index,
          `input[${index}] follows the paused round (input[${start}]..input[${end}]) but is not one of its function_call_output items; only the round's outputs may follow it.`,
        );
      }
      answered.add(item.call_id);
    }
    return { start, calls, answered };
  },

  appendResults(messages, round, results) {
    const indexOf = callIndexes(round);
    const from = runEnd(messages, round.start) + 1;
    // findRound let through only outputs of the round's calls after the run.
    const existing = messages.slice(from);
    const slots = insertionSlots(
      existing.map((item) => indexOf((item as ResponsesFunctionCallOutputItem).call_id)),
      results.map((result) => indexOf(result.call.id)),
    );
    return messages.slice(0, from).concat(interleave(existing, slots, results.map(outputItem)));
  },

  withArgs(messages, round, edits) {
    const copy = messages.slice();
    const end = runEnd(messages, round.start);
    for (let index = round.start; index <= end; index++) {
      const item = messages[index] as OpenAIResponsesItem;
      const args = isFunctionCall(item) ? edits.get(item.call_id) : undefined;
      if (args !== undefined) copy[index] = { ...item, arguments: argumentsText(args) } as OpenAIResponsesItem;
    }
    return copy;
  },

  context(messages, round) {
    const texts: Array<string | undefined> = [];
    const end = runEnd(messages, round.start);
    for (let index = round.start; index <= end; index++) {
      texts.push(messageText(messages[index] as OpenAIResponsesItem, 'assistant', outputText));
    }
    return {
      user: lastUserText(messages, round.start, (item) => messageText(item, 'user', inputText)),
      assistant: joinTexts(texts),
    };
  },

  check(messages) {
    const violations: Violation[] = [];
    // call_id → index of its function_call; the ids answered so far.
    const calls = new Map<string, number>();
    const answered = new Set<string>();
    messages.forEach((item, index) => {
      if (!isFunctionCall(item) && !isFunctionCallOutput(item)) return;
      const id = item.call_id;
      if (id.length > MAX_CALL_ID) {
        violations.push(
          violation(
            Rule.CallId,
            index,
            `Invalid 'input[${index}].call_id': string too long. Expected a string with maximum length ${MAX_CALL_ID}, but got a string with length ${id.length} instead.`,
          ),
        );
      }
      if (isFunctionCall(item)) {
        if (calls.has(id)) {
          violations.push(
            violation(
              Rule.DuplicateCallId,
              index,
              `Duplicate item found with call_id ${id} (input[${calls.get(id)}] and input[${index}]). Remove duplicate items from your input and try again.`,
            ),
          );
        } else {
          calls.set(id, index);
        }
        return;
      }
      if (!calls.has(id)) {
        violations.push(
          violation(Rule.OrphanResult, index, `No tool call found for function call output with call_id ${id}.`),
        );
      } else if (answered.has(id)) {
        violations.push(
          violation(
            Rule.OrphanResult,
            index,
            `Duplicate function call output with call_id ${id} (input[${index}]): the call already has an output.`,
          ),
        );
      } else {
        answered.add(id);
      }
    });
    for (const [id, index] of calls) {
      if (!answered.has(id)) {
        violations.push(violation(Rule.MissingResult, index, `No tool output found for function call ${id}.`));
      }
    }
    for (const missing of unansweredClientCalls(messages)) violations.push(missing);
    return violations;
  },
};

/**
 * The other calls the client runs and answers, each with its own output item type. Handback answers only
 * `function_call`s, so a transcript holding one of these without its output is reported (at pause time: refused)
 * rather than handed on with a call the API will reject. Server-run calls (web search, file search, …) need nothing.
 */
const CLIENT_CALL_OUTPUTS: Record<string, string> = {
  custom_tool_call: 'custom_tool_call_output',
  computer_call: 'computer_call_output',
  local_shell_call: 'local_shell_call_output',
  shell_call: 'shell_call_output',
  apply_patch_call: 'apply_patch_call_output',
};
/** The call type each output type answers. */
const CLIENT_CALL_OF_OUTPUT: ReadonlyMap<string, string> = new Map(
  Object.entries(CLIENT_CALL_OUTPUTS).map(([call, output]) => [output, call]),
);

function unansweredClientCalls(messages: readonly OpenAIResponsesItem[]): Violation[] {
  const pending = new Map<string, { index: number; type: string }>();
  messages.forEach((item, index) => {
    const callId = (item as { call_id?: unknown }).call_id;
    if (typeof item.type !== 'string' || typeof callId !== 'string') return;
    if (Object.hasOwn(CLIENT_CALL_OUTPUTS, item.type))
      pending.set(`${item.type}:${callId}`, { index, type: item.type });
    const call = CLIENT_CALL_OF_OUTPUT.get(item.type);
    if (call !== undefined) pending.delete(`${call}:${callId}`);
  });
  return [...pending].map(([key, { index, type }]) =>
    violation(
      Rule.MissingResult,
      index,
      `No tool output found for ${type.replaceAll('_', ' ')} ${key.slice(type.length + 1)}: Handback answers function_call items only, so this ${type} needs its ${CLIENT_CALL_OUTPUTS[type]} before the turn pauses.`,
    ),
  );
}
