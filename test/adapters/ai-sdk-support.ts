import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { tool } from 'ai';
import * as aiTest from 'ai/test';
import { z } from 'zod';

/**
 * What the AI SDK adapter tests run: three tools — `ask_human` (no execute: an answer ask), `refund_order`
 * (`needsApproval`, its runs counted) and `lookup_order` (run by the SDK in the step) — and a scripted model that
 * calls all three in one round, then writes a text from the results it was sent, by `generateText` or `streamText`.
 */

export const refundInput = z.object({ orderId: z.string(), amount: z.number().positive() });

/** The tools, with a log of every `refund_order` run. */
export function toolsWithLog() {
  const refunds: Array<z.infer<typeof refundInput>> = [];
  const tools = {
    ask_human: tool({ description: 'Ask the customer', inputSchema: z.object({ question: z.string() }) }),
    refund_order: tool({
      description: 'Refund an order',
      inputSchema: refundInput,
      needsApproval: true,
      execute: async (input: z.infer<typeof refundInput>) => {
        refunds.push(input);
        return { refundId: `rf_${refunds.length}`, ...input };
      },
    }),
    lookup_order: tool({
      description: 'Look an order up',
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => ({ orderId, status: 'delivered', total: 120 }),
    }),
  };
  return { tools, refunds };
}

/** The SDK's own mock model: `MockLanguageModelV3` in `ai` 6, `MockLanguageModelV4` in `ai` 7 (same options). */
const MockLanguageModel = ((aiTest as Record<string, unknown>).MockLanguageModelV4 ??
  aiTest.MockLanguageModelV3) as typeof aiTest.MockLanguageModelV3;

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** The model's answer to a prompt: the round of three calls, or, once results came back, a text naming them. */
function script(prompt: LanguageModelV3CallOptions['prompt']): { content: LanguageModelV3Content[]; stop: boolean } {
  const results = prompt.flatMap((m) => (m.role === 'tool' ? m.content : []));
  if (results.length === 0) {
    const call = (toolCallId: string, toolName: string, input: unknown) =>
      ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }) as const;
    return {
      content: [
        call('call_lookup', 'lookup_order', { orderId: 'A-1042' }),
        call('call_ask', 'ask_human', { question: 'Send a replacement as well?' }),
        call('call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }),
      ],
      stop: false,
    };
  }
  const text = results
    .filter((part) => part.type === 'tool-result')
    .map((part) => `${part.toolName}=${part.output.type}`)
    .join(' ');
  return { content: [{ type: 'text', text }], stop: true };
}

/** A scripted model for `generateText` and `streamText`; `calls` holds every request it received. */
export function scriptedModel() {
  return new MockLanguageModel({
    async doGenerate({ prompt }) {
      const { content, stop } = script(prompt);
      const finishReason = { unified: stop ? 'stop' : 'tool-calls', raw: undefined } as const;
      return { content, finishReason, usage, warnings: [] };
    },
    async doStream({ prompt }) {
      const { content, stop } = script(prompt);
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const part of content) {
        if (part.type === 'text') {
          parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: part.text });
          parts.push({ type: 'text-end', id: 't' });
        } else parts.push(part as LanguageModelV3StreamPart);
      }
      parts.push({ type: 'finish', finishReason: { unified: stop ? 'stop' : 'tool-calls', raw: undefined }, usage });
      return { stream: aiTest.convertArrayToReadableStream(parts) };
    },
  });
}
