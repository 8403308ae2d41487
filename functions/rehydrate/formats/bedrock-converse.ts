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
import { callId, isBlank, joinTexts, lastUserText, listIds, violation } from './shared.ts';

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

function toResultBlock(result: NewResult): BedrockToolResultBlock {
  return { toolResult: { toolUseId: result.call.id, content: [{ text: result.text }] } };
}

const family: ResultMessageFamily<BedrockConverseMessage, BedrockContentBlock> = {
  names: { call: 'toolUse', result: 'toolResult', id: 'toolUseId' },
  isAssistant: (message) => message.role === 'assistant',
  blocksOf: (message) => message.content,
  callOf: (block) =>
    isToolUse(block) ? { id: block.toolUse.toolUseId, name: block.toolUse.name, args: block.toolUse.input } : undefined,
  resultIdOf: (block) => (isToolResult(block) ? block.toolResult.toolUseId : undefined),
  withInput: (block, args) => ({ ...block, toolUse: { ...(block as ToolUseBlock).toolUse, input: args } }),
  resultBlock: toResultBlock,
  resultMessage: (blocks): BedrockToolResultMessage => ({ role: 'user', content: blocks as BedrockToolResultBlock[] }),
  withBlocks: (message, blocks) => ({ ...message, content: blocks }),
  checkMessage(messages, index, violations) {
    checkRole(messages, index, violations);
    checkText(messages[index] as BedrockConverseMessage, index, violations);
  },
  checkCallId: (id, index, k, violations) =>
    checkId(id, `messages.${index}.member.content.${k}.member.toolUse.toolUseId`, index, violations),
  words: {
    // Converse counts result blocks per message: one violation, whatever the number of strays.
    orphans: (index) => [tooManyResults(index)],
    duplicates: (index, repeats) => [
      violation(
        Rule.DuplicateCallId,
        index,
        `The toolUse blocks at messages.${index}.content contain duplicate Ids: ${listIds(new Set(repeats.map((r) => r.id)))}`,
      ),
    ],
    late: (index, count) =>
      `messages.${index}: Did not find ${count} \`toolResult\` block(s) at the beginning of this message. Messages following \`toolUse\` blocks must begin with a matching number of \`toolResult\` blocks.`,
    missing: (index, ids) =>
      `Expected toolResult blocks at messages.${index + 1}.content for the following Ids: ${ids}`,
  },
};

/** The text blocks of a message (reasoning, images and tool blocks are not text). */
function textOf(message: BedrockConverseMessage): string | undefined {
  return joinTexts(message.content.map((block) => block.text));
}

export const bedrockConverse: MessageFormat<BedrockConverseMessage> = {
  message,
  findRound: (messages) => findResultMessageRound(family, messages),
  appendResults: (messages, round, results) => appendToResultMessage(family, messages, round, results),
  withArgs: (messages, round, edits) => withResultMessageArgs(family, messages, round, edits),
  check: (messages) => checkResultMessageRounds(family, messages),
  context: (messages, round) => ({
    user: lastUserText(messages, round.start, (m) => (m.role === 'user' ? textOf(m) : undefined)),
    assistant: textOf(messages[round.start] as BedrockConverseMessage),
  }),

  refuseAnswerText(text) {
    return text === ''
      ? 'bedrock-converse cannot carry an empty answer: Converse rejects a blank text field in a tool result. Answer with some text, or with a JSON value other than the empty string.'
      : undefined;
  },
};

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
