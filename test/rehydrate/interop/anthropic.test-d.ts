import type {
  ContentBlockParam,
  MessageParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AnthropicMessage,
  AnthropicToolResultBlock,
  AnthropicToolResultMessage,
} from '../../../functions/rehydrate/formats/anthropic.ts';

/**
 * What `appendResults` produces, against `@anthropic-ai/sdk`'s request types. The module's loose message type
 * (`AnthropicMessage`, inferred from a schema that keeps unknown block types open) is deliberately wider than
 * `MessageParam`, so the proof is on the precise types of what Handback adds: the result block and the result
 * message. Every other message of a rebuilt transcript is the caller's own, unchanged; the one joined message is
 * the caller's user message with `AnthropicToolResultBlock`s spliced into its content array.
 */
describe('anthropic rebuilt messages are Messages API request messages', () => {
  it('adds tool_result blocks that are ToolResultBlockParam', () => {
    expectTypeOf<AnthropicToolResultBlock>().toExtend<ToolResultBlockParam>();
  });

  it('adds a result message that is a MessageParam', () => {
    expectTypeOf<AnthropicToolResultMessage>().toExtend<MessageParam>();
    expectTypeOf<AnthropicToolResultMessage[]>().toExtend<MessageParam[]>();
  });

  it('joins results into a user message of the SDK type and keeps it a MessageParam', () => {
    type Joined = { role: 'user'; content: (ContentBlockParam | AnthropicToolResultBlock)[] };
    expectTypeOf<Joined>().toExtend<MessageParam>();
  });

  it("adds a message of the module's own message type", () => {
    expectTypeOf<AnthropicToolResultMessage>().toExtend<AnthropicMessage>();
  });

  it('is honest that the loose schema type is wider than MessageParam (any block type is let through)', () => {
    expectTypeOf<AnthropicMessage>().not.toExtend<MessageParam>();
  });
});

describe('anthropic edited and rejected calls stay Messages API types (§9)', () => {
  it('keeps a tool_use block with edited input a ToolUseBlockParam', () => {
    type Edited = Omit<ToolUseBlockParam, 'input'> & { input: Record<string, unknown> };
    expectTypeOf<Edited>().toExtend<ToolUseBlockParam>();
    expectTypeOf<Edited>().toExtend<ContentBlockParam>();
  });

  it('adds a rejected result, marked is_error, that is a ToolResultBlockParam', () => {
    expectTypeOf<AnthropicToolResultBlock & { is_error: true }>().toExtend<ToolResultBlockParam>();
  });
});
