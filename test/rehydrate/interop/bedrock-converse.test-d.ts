import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '@aws-sdk/client-bedrock-runtime';
import type { DocumentType } from '@smithy/types';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  BedrockConverseMessage,
  BedrockToolResultBlock,
  BedrockToolResultMessage,
} from '../../../functions/rehydrate/formats/bedrock-converse.ts';

/**
 * What `appendResults` produces, against `@aws-sdk/client-bedrock-runtime`'s request types. The module's loose
 * message type (`BedrockConverseMessage`, inferred from a schema that keeps unknown content block members open) is
 * deliberately wider than `Message`, so the proof is on the precise types of what Handback adds: the result block and
 * the result message. Every other message is the caller's own, unchanged; the one joined message is the caller's
 * user message with `BedrockToolResultBlock`s spliced into its content array.
 */
describe('bedrock-converse rebuilt messages are Converse request messages', () => {
  it('adds toolResult blocks that are ContentBlock.ToolResultMember', () => {
    expectTypeOf<BedrockToolResultBlock>().toExtend<ContentBlock.ToolResultMember>();
    expectTypeOf<BedrockToolResultBlock['toolResult']>().toExtend<ToolResultBlock>();
    expectTypeOf<BedrockToolResultBlock>().toExtend<ContentBlock>();
  });

  it('adds a result message that is a Message', () => {
    expectTypeOf<BedrockToolResultMessage>().toExtend<Message>();
    expectTypeOf<BedrockToolResultMessage[]>().toExtend<Message[]>();
  });

  it('joins results into a user message of the SDK type and keeps it a Message', () => {
    type Joined = { role: 'user'; content: (ContentBlock | BedrockToolResultBlock)[] };
    expectTypeOf<Joined>().toExtend<Message>();
  });

  it("adds a message of the module's own message type", () => {
    expectTypeOf<BedrockToolResultMessage>().toExtend<BedrockConverseMessage>();
  });

  it('is honest that the loose schema type is wider than Message (any member is let through)', () => {
    expectTypeOf<BedrockConverseMessage>().not.toExtend<Message>();
  });
});

describe('bedrock-converse edited calls stay Converse types (§9)', () => {
  it('keeps a toolUse block whose input is a JSON object a ContentBlock.ToolUseMember', () => {
    type Edited = { toolUse: Omit<ToolUseBlock, 'input'> & { input: { [key: string]: DocumentType } } };
    expectTypeOf<Edited>().toExtend<ContentBlock.ToolUseMember>();
  });

  it('is honest that edited args typed Record<string, unknown> are wider than DocumentType (they are JSON at run time)', () => {
    type Loose = { toolUse: Omit<ToolUseBlock, 'input'> & { input: Record<string, unknown> } };
    expectTypeOf<Loose>().not.toExtend<ContentBlock.ToolUseMember>();
  });
});
