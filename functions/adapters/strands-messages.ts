import type { ContentBlockData, MessageData } from '@strands-agents/sdk';
import { isRejectionText, NOT_DISPATCHED } from '../rehydrate/texts.ts';

/** `handback/strands`'s messages: Strands' message data as format `bedrock-converse` (the pause's), and back. */

/** One content block of a Converse message, as the pause keeps it. */
export type Block = Record<string, unknown>;

/** A message of format `bedrock-converse`. */
export type ConverseMessage = { role: 'user' | 'assistant'; content: Block[] };

/** A Strands message as a Converse message: the same blocks, reasoning as Converse's `reasoningContent`. */
export function toConverse(message: MessageData): ConverseMessage {
  const content = message.content.map((block): Block => {
    if ('reasoning' in block) {
      const { text, signature, redactedContent } = block.reasoning as {
        text?: string;
        signature?: string;
        redactedContent?: unknown;
      };
      return text === undefined && signature === undefined
        ? { reasoningContent: { redactedContent } }
        : {
            reasoningContent: {
              reasoningText: { text: text ?? '', ...(signature === undefined ? {} : { signature }) },
            },
          };
    }
    return block as Block;
  });
  return { role: message.role, content };
}

/** A Converse message as Strands' message data; a tool result Handback wrote (no `status`) gets one. */
export function toStrands(message: ConverseMessage): MessageData {
  return { role: message.role, content: message.content.map((block) => toStrandsBlock(block) as ContentBlockData) };
}

/** A Converse block as Strands' block: reasoning renamed, and a tool result Handback wrote given its `status`. */
export function toStrandsBlock(block: Block): Block {
  const reasoning = block.reasoningContent as
    | { reasoningText?: { text: string; signature?: string }; redactedContent?: unknown }
    | undefined;
  if (reasoning !== undefined) {
    return reasoning.reasoningText === undefined
      ? { reasoning: { redactedContent: reasoning.redactedContent } }
      : { reasoning: { ...reasoning.reasoningText } };
  }
  const result = block.toolResult as { status?: string } | undefined;
  if (result !== undefined && result.status === undefined) {
    const text = resultText(block);
    const failed = isRejectionText(text) || text.startsWith(NOT_DISPATCHED);
    return { toolResult: { ...result, status: failed ? 'error' : 'success' } };
  }
  return block;
}

/** A tool result block's text (its text parts, JSON parts as JSON text). */
export function resultText(block: Block): string {
  const content = (block.toolResult as { content?: Array<{ text?: string; json?: unknown }> }).content ?? [];
  return content.map((part) => part.text ?? JSON.stringify(part.json)).join('');
}
