import type { Violation } from '../../errors.ts';
import * as z from '../../zod.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './format.ts';
import { Rule } from './format.ts';
import { callId, isBlank, listIds, pausedRoundError, violation } from './shared.ts';

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
    const schema = knownBlocks[value.type];
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

/** The `tool_result` block `appendResults` adds: the text alone, `is_error: true` for a call not dispatched (§3.8). */
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

/** How many `tool_result` blocks open the content: new results go right after them. */
function leadingResults(blocks: readonly AnthropicBlock[]): number {
  const first = blocks.findIndex((b) => !isToolResult(b));
  return first < 0 ? blocks.length : first;
}

function toResultBlock(result: NewResult): AnthropicToolResultBlock {
  const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: result.call.id, content: result.text };
  if (result.notDispatched) block.is_error = true;
  return block;
}

export const anthropic: MessageFormat<AnthropicMessage> = {
  message,
  resultOrder: 'answered-first',

  findRound(messages): PausedRound {
    const start = messages.findLastIndex((m) => m.role === 'assistant');
    const assistant = messages[start];
    const uses = assistant === undefined ? [] : blocksOf(assistant).filter(isToolUse);
    if (uses.length === 0) {
      throw pausedRoundError(
        Math.max(start, messages.length - 1),
        start < 0
          ? 'The transcript has no assistant message, so there is no paused round.'
          : `The last assistant message (messages[${start}]) has no tool_use blocks, so there is no paused round.`,
      );
    }
    const calls: ToolCall[] = uses.map((use) => ({ id: use.id, name: use.name, args: use.input }));
    const ids = new Set(calls.map((call) => call.id));
    const answered = new Set<string>();
    if (start + 1 < messages.length) {
      const index = start + 1;
      const results = blocksOf(messages[index] as AnthropicMessage).filter(isToolResult);
      const stray = results.find((result) => !ids.has(result.tool_use_id));
      // The user message after the round may carry text after its results, but it must carry results of this round:
      // a user message with none is not the round's result message, and a result of another call cannot be paired.
      if (results.length === 0 || stray !== undefined || index + 1 < messages.length) {
        throw pausedRoundError(
          results.length === 0 || stray !== undefined ? index : index + 1,
          `Only the paused round's tool_result blocks (then any other content of that same user message) may follow the paused round (messages[${start}]); ${
            results.length === 0
              ? `messages[${index}] holds none`
              : stray !== undefined
                ? `messages[${index}] answers tool_use id ${stray.tool_use_id}, which is not a call of the round`
                : `messages[${index + 1}] follows it`
          }.`,
        );
      }
      for (const result of results) answered.add(result.tool_use_id);
    }
    return { start, calls, answered };
  },

  appendResults(messages, round, results) {
    const blocks = results.map(toResultBlock);
    const joined = messages[round.start + 1];
    if (joined === undefined) {
      const added: AnthropicToolResultMessage = { role: 'user', content: blocks };
      return [...messages, added];
    }
    // findRound let through only a user message whose content is an array holding results of the round.
    const content = joined.content as AnthropicBlock[];
    const at = leadingResults(content);
    return [
      ...messages.slice(0, round.start + 1),
      { ...joined, content: [...content.slice(0, at), ...blocks, ...content.slice(at)] },
    ];
  },

  check(messages) {
    const violations: Violation[] = [];
    /** Index of the user message whose leading results were paired with the round before it. */
    let paired = -1;
    messages.forEach((current, index) => {
      checkText(current, index, index === messages.length - 1, violations);
      if (index !== paired) {
        blocksOf(current).forEach((block, k) => {
          if (isToolResult(block)) violations.push(unexpectedResult(index, k, block.tool_use_id));
        });
      }
      if (current.role !== 'assistant') return;
      const pending = new Set<string>();
      blocksOf(current).forEach((block, k) => {
        if (!isToolUse(block)) return;
        if (!ID_PATTERN.test(block.id)) {
          violations.push(
            violation(
              Rule.CallId,
              index,
              `messages.${index}.content.${k}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$' (got ${JSON.stringify(block.id)}).`,
            ),
          );
        }
        if (pending.has(block.id)) {
          violations.push(
            violation(
              Rule.DuplicateCallId,
              index,
              `messages.${index}.content.${k}: \`tool_use\` ids must be unique (${block.id} is repeated).`,
            ),
          );
        }
        pending.add(block.id);
      });
      if (pending.size === 0) return;
      const next = messages[index + 1];
      if (next?.role === 'user') {
        paired = index + 1;
        pairResults(next, index + 1, pending, violations);
      }
      if (pending.size > 0) {
        violations.push(
          violation(
            Rule.MissingResult,
            index,
            `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${listIds(pending)}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          ),
        );
      }
    });
    return violations;
  },
};

/** Pairs the results of the user message after a round with its calls, deleting each answered id from `pending`. */
function pairResults(next: AnthropicMessage, index: number, pending: Set<string>, violations: Violation[]): void {
  const blocks = blocksOf(next);
  const leading = leadingResults(blocks);
  let late = 0;
  blocks.forEach((block, k) => {
    if (!isToolResult(block)) return;
    if (!pending.delete(block.tool_use_id)) {
      violations.push(unexpectedResult(index, k, block.tool_use_id));
    } else if (k >= leading) {
      late++;
    }
  });
  if (late > 0) {
    violations.push(
      violation(
        Rule.ResultPlacement,
        index,
        `messages.${index}: Did not find ${late} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`,
      ),
    );
  }
}

function unexpectedResult(index: number, k: number, id: string): Violation {
  return violation(
    Rule.OrphanResult,
    index,
    `messages.${index}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
  );
}

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
