import type { Violation } from '../../errors.ts';
import * as z from '../../zod.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './format.ts';
import { Rule } from './format.ts';
import { callId, isBlank, listIds, pausedRoundError, violation } from './shared.ts';

/**
 * Amazon Bedrock Converse messages (`Message`): a `ContentBlock` is a union keyed by member name; tool calls are
 * `toolUse` blocks of an assistant message; all of a round's results are `toolResult` blocks at the start of the ONE
 * user message right after it. Roles alternate, starting with the user.
 */

const toolUse = z.looseObject({ toolUseId: callId, name: z.string(), input: z.unknown() });
const toolResult = z.looseObject({
  toolUseId: callId,
  content: z.array(z.looseObject({ text: z.optional(z.string()) })),
});

// One object per block, its members optional: a block of any other member (image, reasoningContent, cachePoint, …)
// passes as it is, and a malformed known member is named by its field.
const block = z
  .looseObject({ text: z.optional(z.string()), toolUse: z.optional(toolUse), toolResult: z.optional(toolResult) })
  .check(
    z.refine(
      (value) => Object.keys(value).length > 0,
      'A ContentBlock must set one member (text, toolUse, toolResult, …).',
    ),
  );

const message = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.array(block),
});

/** One Converse message: `{role, content: ContentBlock[]}`. */
export type BedrockConverseMessage = z.infer<typeof message>;
/** One Converse content block of any member. */
export type BedrockContentBlock = BedrockConverseMessage['content'][number];

/** The `toolResult` block `appendResults` adds: the text alone, with no `status` (accepted by a few models only). */
export type BedrockToolResultBlock = {
  toolResult: { toolUseId: string; content: [{ text: string }] };
};

/** The user message `appendResults` adds when the round has no results yet. */
export type BedrockToolResultMessage = {
  role: 'user';
  content: BedrockToolResultBlock[];
};

type ToolUseBlock = BedrockContentBlock & { toolUse: z.infer<typeof toolUse> };
type ToolResultBlock = BedrockContentBlock & { toolResult: z.infer<typeof toolResult> };

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const ID_MAX_LENGTH = 64;

function isToolUse(block: BedrockContentBlock): block is ToolUseBlock {
  return block.toolUse !== undefined;
}

function isToolResult(block: BedrockContentBlock): block is ToolResultBlock {
  return block.toolResult !== undefined;
}

/** How many `toolResult` blocks open the content: new results go right after them. */
function leadingResults(blocks: readonly BedrockContentBlock[]): number {
  const first = blocks.findIndex((b) => !isToolResult(b));
  return first < 0 ? blocks.length : first;
}

function toResultBlock(result: NewResult): BedrockToolResultBlock {
  return { toolResult: { toolUseId: result.call.id, content: [{ text: result.text }] } };
}

export const bedrockConverse: MessageFormat<BedrockConverseMessage> = {
  message,
  resultOrder: 'answered-first',

  findRound(messages): PausedRound {
    const start = messages.findLastIndex((m) => m.role === 'assistant');
    const uses = (messages[start]?.content ?? []).filter(isToolUse);
    if (uses.length === 0) {
      throw pausedRoundError(
        Math.max(start, messages.length - 1),
        start < 0
          ? 'The transcript has no assistant message, so there is no paused round.'
          : `The last assistant message (messages[${start}]) has no toolUse blocks, so there is no paused round.`,
      );
    }
    const calls: ToolCall[] = uses.map(({ toolUse: use }) => ({ id: use.toolUseId, name: use.name, args: use.input }));
    const ids = new Set(calls.map((call) => call.id));
    const answered = new Set<string>();
    if (start + 1 < messages.length) {
      const index = start + 1;
      const results = (messages[index] as BedrockConverseMessage).content.filter(isToolResult);
      const stray = results.find((result) => !ids.has(result.toolResult.toolUseId));
      // The user message after the round may carry text after its results, but it must carry results of this round:
      // a user message with none is not the round's result message, and a result of another call cannot be paired.
      if (results.length === 0 || stray !== undefined || index + 1 < messages.length) {
        throw pausedRoundError(
          results.length === 0 || stray !== undefined ? index : index + 1,
          `Only the paused round's toolResult blocks (then any other content of that same user message) may follow the paused round (messages[${start}]); ${
            results.length === 0
              ? `messages[${index}] holds none`
              : stray !== undefined
                ? `messages[${index}] answers toolUseId ${stray.toolResult.toolUseId}, which is not a call of the round`
                : `messages[${index + 1}] follows it`
          }.`,
        );
      }
      for (const result of results) answered.add(result.toolResult.toolUseId);
    }
    return { start, calls, answered };
  },

  appendResults(messages, round, results) {
    const blocks = results.map(toResultBlock);
    const joined = messages[round.start + 1];
    if (joined === undefined) {
      const added: BedrockToolResultMessage = { role: 'user', content: blocks };
      return [...messages, added];
    }
    const at = leadingResults(joined.content);
    return [
      ...messages.slice(0, round.start + 1),
      { ...joined, content: [...joined.content.slice(0, at), ...blocks, ...joined.content.slice(at)] },
    ];
  },

  check(messages) {
    const violations: Violation[] = [];
    /** Index of the user message whose leading results were paired with the round before it. */
    let paired = -1;
    messages.forEach((current, index) => {
      checkRole(messages, index, violations);
      checkText(current, index, violations);
      if (index !== paired && current.content.some(isToolResult)) {
        violations.push(tooManyResults(index));
      }
      if (current.role !== 'assistant') return;
      const pending = new Set<string>();
      const repeated = new Set<string>();
      current.content.forEach((block, k) => {
        if (!isToolUse(block)) return;
        const id = block.toolUse.toolUseId;
        checkId(id, `messages.${index}.member.content.${k}.member.toolUse.toolUseId`, index, violations);
        if (pending.has(id)) repeated.add(id);
        pending.add(id);
      });
      if (repeated.size > 0) {
        violations.push(
          violation(
            Rule.DuplicateCallId,
            index,
            `The toolUse blocks at messages.${index}.content contain duplicate Ids: ${listIds(repeated)}`,
          ),
        );
      }
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
            `Expected toolResult blocks at messages.${index + 1}.content for the following Ids: ${listIds(pending)}`,
          ),
        );
      }
    });
    return violations;
  },

  refuseAnswerText(text) {
    return text === ''
      ? 'bedrock-converse cannot carry an empty answer: Converse rejects a blank text field in a tool result. Answer with some text, or with a JSON value other than the empty string.'
      : undefined;
  },
};

/** Pairs the results of the user message after a round with its calls, deleting each answered id from `pending`. */
function pairResults(next: BedrockConverseMessage, index: number, pending: Set<string>, violations: Violation[]): void {
  const leading = leadingResults(next.content);
  let late = 0;
  let extra = false;
  next.content.forEach((block, k) => {
    if (!isToolResult(block)) return;
    if (!pending.delete(block.toolResult.toolUseId)) extra = true;
    else if (k >= leading) late++;
  });
  if (extra) violations.push(tooManyResults(index));
  if (late > 0) {
    violations.push(
      violation(
        Rule.ResultPlacement,
        index,
        `messages.${index}: Did not find ${late} \`toolResult\` block(s) at the beginning of this message. Messages following \`toolUse\` blocks must begin with a matching number of \`toolResult\` blocks.`,
      ),
    );
  }
}

function tooManyResults(index: number): Violation {
  return violation(
    Rule.OrphanResult,
    index,
    `The number of toolResult blocks at messages.${index}.content exceeds the number of toolUse blocks of previous turn.`,
  );
}

function checkId(id: string, at: string, index: number, violations: Violation[]): void {
  if (!ID_PATTERN.test(id)) {
    violations.push(
      violation(
        Rule.CallId,
        index,
        `Value at '${at}' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`,
      ),
    );
  }
  if (id.length > ID_MAX_LENGTH) {
    violations.push(
      violation(
        Rule.CallId,
        index,
        `Value at '${at}' failed to satisfy constraint: Member must have length less than or equal to ${ID_MAX_LENGTH}`,
      ),
    );
  }
}

function checkRole(messages: readonly BedrockConverseMessage[], index: number, violations: Violation[]): void {
  const role = messages[index]?.role;
  if (index === 0 && role !== 'user') {
    violations.push(
      violation(
        Rule.RoleOrder,
        0,
        'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
      ),
    );
  } else if (index > 0 && messages[index - 1]?.role === role) {
    violations.push(
      violation(
        Rule.RoleOrder,
        index,
        `A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again. (messages.${index - 1} and messages.${index} are both ${role}.)`,
      ),
    );
  }
}

/** Empty content, blank text blocks and empty tool result texts, which Converse rejects. */
function checkText(message: BedrockConverseMessage, index: number, violations: Violation[]): void {
  if (message.content.length === 0) {
    violations.push(
      violation(
        Rule.EmptyText,
        index,
        `The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`,
      ),
    );
  }
  message.content.forEach((block, k) => {
    if (block.text !== undefined && isBlank(block.text)) {
      violations.push(
        violation(
          Rule.EmptyText,
          index,
          `The text field in the ContentBlock object at messages.${index}.content.${k} is blank. Add text to the text field, and try again.`,
        ),
      );
    }
    block.toolResult?.content.forEach((part, j) => {
      if (part.text === '') {
        violations.push(
          violation(
            Rule.EmptyText,
            index,
            `The text field in the ToolResultContentBlock object at messages.${index}.content.${k}.toolResult.content.${j} is blank. Add text to the text field, and try again.`,
          ),
        );
      }
    });
  });
}
