import type { Violation } from '../../errors.ts';
import * as z from '../../zod.ts';
import type { MessageFormat, NewResult } from './format.ts';
import { Rule } from './format.ts';
import {
  appendToResultMessage,
  checkResultMessageRounds,
  findResultMessageRound,
  type ResultMessageFamily,
  withResultMessageArgs,
} from './result-message.ts';
import { callId, contentText, isBlank, lastUserText, typedText, violation } from './shared.ts';

/**
 * Anthropic Messages API messages (`MessageParam`): tool calls are `tool_use` blocks of an assistant message; all of
 * a round's results are `tool_result` blocks at the start of the ONE user message right after it.
 */

/** The blocks Handback reads; every other block type (image, thinking, server tools, …) passes as it is. */
const knownBlocks: Record<string, z.ZodMiniType> = {
  text: z.looseObject({ type: z.literal('text'), text: z.string() }),
  tool_use: z.looseObject({ type: z.literal('tool_use'), id: callId, name: z.string(), input: z.unknown() }),
  tool_result: z.looseObject({
    type: z.literal('tool_result'),
    tool_use_id: callId,
    content: z.optional(z.union([z.string(), z.array(z.looseObject({ type: z.string() }))])),
    is_error: z.optional(z.boolean()),
  }),
};

// A discriminated union cannot keep unknown block types open, so the known ones are checked by their own schema and
// their issues reported at the block's path, naming the field.
const block = z.looseObject({ type: z.string() }).check(
  z.superRefine((value, ctx) => {
    // Own keys only: a block type such as "constructor" must not find Object's own members.
    const schema = Object.hasOwn(knownBlocks, value.type) ? knownBlocks[value.type] : undefined;
    const result = schema?.safeParse(value);
    for (const issue of result?.error?.issues ?? []) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    }
  }),
);

const message = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(block)]),
});

/** One Messages API message: `{role, content}`, content a string or an array of blocks of any type. */
export type AnthropicMessage = z.infer<typeof message>;
/** One content block of any type. */
export type AnthropicBlock = Extract<AnthropicMessage['content'], unknown[]>[number];

/** The `tool_result` block `appendResults` adds: the text alone, `is_error: true` for a failure (§3.8). */
export type AnthropicToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: true;
};

/** The user message `appendResults` adds when the round has no results yet. */
export type AnthropicToolResultMessage = {
  role: 'user';
  content: AnthropicToolResultBlock[];
};

interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
}

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

function blocksOf(message: AnthropicMessage): AnthropicBlock[] {
  return typeof message.content === 'string' ? [] : message.content;
}

function isToolUse(block: AnthropicBlock): block is AnthropicBlock & ToolUseBlock {
  return block.type === 'tool_use';
}

function isToolResult(block: AnthropicBlock): block is AnthropicBlock & ToolResultBlock {
  return block.type === 'tool_result';
}

function toResultBlock(result: NewResult): AnthropicToolResultBlock {
  const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: result.call.id, content: result.text };
  if (result.failed) block.is_error = true;
  return block;
}

const family: ResultMessageFamily<AnthropicMessage, AnthropicBlock> = {
  names: { call: 'tool_use', result: 'tool_result', id: 'tool_use id' },
  isAssistant: (message) => message.role === 'assistant',
  blocksOf,
  callOf: (block) => (isToolUse(block) ? { id: block.id, name: block.name, args: block.input } : undefined),
  resultIdOf: (block) => (isToolResult(block) ? block.tool_use_id : undefined),
  withInput: (block, args) => ({ ...block, input: args }),
  resultBlock: toResultBlock,
  resultMessage: (blocks): AnthropicToolResultMessage => ({
    role: 'user',
    content: blocks as AnthropicToolResultBlock[],
  }),
  withBlocks: (message, blocks) => ({ ...message, content: blocks }),
  checkMessage: (messages, index, violations) =>
    checkText(messages[index] as AnthropicMessage, index, index === messages.length - 1, violations),
  checkCallId(id, index, k, violations) {
    if (!ID_PATTERN.test(id)) {
      violations.push(
        violation(
          Rule.CallId,
          index,
          `messages.${index}.content.${k}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$' (got ${JSON.stringify(id)}).`,
        ),
      );
    }
  },
  words: {
    orphans: (index, strays) =>
      strays.map(({ k, id }) =>
        violation(
          Rule.OrphanResult,
          index,
          `messages.${index}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        ),
      ),
    duplicates: (index, repeats) =>
      repeats.map(({ k, id }) =>
        violation(
          Rule.DuplicateCallId,
          index,
          `messages.${index}.content.${k}: \`tool_use\` ids must be unique (${id} is repeated).`,
        ),
      ),
    late: (index, count) =>
      `messages.${index}: Did not find ${count} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`,
    missing: (index, ids) =>
      `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  },
};

const textBlock = typedText('text');

export const anthropic: MessageFormat<AnthropicMessage> = {
  message,
  findRound: (messages) => findResultMessageRound(family, messages),
  appendResults: (messages, round, results) => appendToResultMessage(family, messages, round, results),
  withArgs: (messages, round, edits) => withResultMessageArgs(family, messages, round, edits),
  check: (messages) => checkResultMessageRounds(family, messages),
  context: (messages, round) => ({
    user: lastUserText(messages, round.start, (m) =>
      m.role === 'user' ? contentText(m.content, textBlock) : undefined,
    ),
    assistant: contentText((messages[round.start] as AnthropicMessage).content, textBlock),
  }),
};

/** Empty content and blank text blocks, which the API rejects (the final assistant message may be empty: a prefill). */
function checkText(message: AnthropicMessage, index: number, last: boolean, violations: Violation[]): void {
  const { content } = message;
  if (content.length === 0) {
    if (!(last && message.role === 'assistant')) {
      violations.push(
        violation(
          Rule.EmptyText,
          index,
          `messages.${index}: all messages must have non-empty content except for the optional final assistant message`,
        ),
      );
    }
    return;
  }
  const texts = typeof content === 'string' ? [{ k: -1, text: content }] : textsOf(content);
  for (const { k, text } of texts) {
    if (!isBlank(text)) continue;
    const at = k < 0 ? `messages.${index}` : `messages.${index}.content.${k}`;
    violations.push(
      violation(
        Rule.EmptyText,
        index,
        text === ''
          ? `${at}: text content blocks must be non-empty`
          : `${at}: text content blocks must contain non-whitespace text`,
      ),
    );
  }
}

function textsOf(blocks: readonly AnthropicBlock[]): { k: number; text: string }[] {
  return blocks.flatMap((block, k) => (block.type === 'text' ? [{ k, text: String(block.text) }] : []));
}
