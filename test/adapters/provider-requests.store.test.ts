import { tool as langchainTool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, humanInTheLoopMiddleware } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { langgraphHandback } from '../../functions/adapters/langgraph.ts';
import { checkTranscript } from '../../functions/rehydrate/check-transcript.ts';
import { REJECTED } from '../../functions/rehydrate/texts.ts';
import { aiSdkProviderSuite } from './ai-sdk-suites.ts';
import { type Backend, localStoreBackend } from './backends.ts';
import { recordingFetch } from './recording-fetch.ts';

/**
 * §15: the messages an adapter rebuilds are what the framework then sends its provider. These tests put the
 * framework's own provider package (`@ai-sdk/openai`, `@langchain/openai`) in front of a `fetch` that records each
 * request and answers as OpenAI's API documents, and check the request after the pause as OpenAI would. The AI
 * SDK's suite is `aiSdkProviderSuite` (ai-sdk-suites.ts), run here on `ai` 6 and in `ai-sdk-v7.store.test.ts` on `ai` 7.
 */

let backend: Backend;
beforeAll(async () => {
  backend = await localStoreBackend();
});
afterAll(() => backend.close());

aiSdkProviderSuite(6);

/** A Chat Completions reply: an assistant message with the given tool calls or text. */
const completion = (message: Record<string, unknown>) => () => ({
  id: 'chatcmpl_1',
  object: 'chat.completion',
  created: 1_780_000_000,
  model: 'gpt-4.1',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

const chatCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

/** The LangGraph agent on ChatOpenAI whose `fetch` records each request; `refund_order` and `send_email` interrupt. */
function langgraphStory(round: ReturnType<typeof chatCall>[], reply: string) {
  const refunds: unknown[] = [];
  const runs = { lookup_order: 0, send_email: 0 };
  const tools = [
    langchainTool(
      async ({ orderId }: { orderId: string }) => {
        runs.lookup_order++;
        return JSON.stringify({ orderId, total: 120 });
      },
      { name: 'lookup_order', description: 'Look an order up', schema: z.object({ orderId: z.string() }) },
    ),
    langchainTool(
      async (args: { orderId: string; amount: number }) => {
        refunds.push(args);
        return JSON.stringify({ refundId: 'rf_1', ...args });
      },
      {
        name: 'refund_order',
        description: 'Refund an order',
        schema: z.object({ orderId: z.string(), amount: z.number() }),
      },
    ),
    langchainTool(
      async () => {
        runs.send_email++;
        return 'sent';
      },
      { name: 'send_email', description: 'Email the customer', schema: z.object({ to: z.string() }) },
    ),
  ];
  const { bodies, fetch } = recordingFetch([
    completion({ content: null, tool_calls: round }),
    completion({ content: reply }),
  ]);
  const model = new ChatOpenAI({ model: 'gpt-4.1', apiKey: 'offline', maxRetries: 0, configuration: { fetch } });
  const agent = createAgent({
    model,
    tools,
    checkpointer: new MemorySaver(),
    middleware: [
      humanInTheLoopMiddleware({
        interruptOn: {
          refund_order: { allowedDecisions: ['approve', 'edit', 'reject'] },
          send_email: { allowedDecisions: ['approve', 'reject'] },
        },
      }),
    ],
  });
  return { agent, bodies, refunds, runs };
}

/** The tool messages of a Chat Completions request, by call id. */
const chatToolResults = (messages: unknown[]) =>
  Object.fromEntries(
    (
      messages.filter((m) => (m as { role?: string }).role === 'tool') as Array<{
        tool_call_id: string;
        content: string;
      }>
    ).map((m) => [m.tool_call_id, m.content]),
  );

describe('handback/langgraph with @langchain/openai (Chat Completions)', () => {
  async function pausedThread(runId: string, round: ReturnType<typeof chatCall>[]) {
    const story = langgraphStory(round, 'Done.');
    const handback = langgraphHandback({ handback: backend.handback, graph: story.agent });
    const config = { configurable: { thread_id: runId } };
    await story.agent.invoke(
      { messages: [{ role: 'user', content: 'Order A-1042 arrived broken. Refund me.' }] },
      config,
    );
    const created = await handback.pause(config, { runId });
    const go = async (decisions: Parameters<Backend['decide']>[2]) => {
      const continuationId = await backend.decide(runId, created.interruptId, decisions);
      return handback.resume({ runId, continuationId: continuationId ?? '' });
    };
    return { ...story, created, go };
  }

  it('sends OpenAI a request whose messages pass the strict check after an edit: the edited call run once', async () => {
    const { bodies, refunds, runs, created, go } = await pausedThread('openai-langgraph-1', [
      chatCall('call_lookup', 'lookup_order', { orderId: 'A-1042' }),
      chatCall('call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }),
    ]);
    expect(created.asks).toEqual(['call_refund']);
    expect(bodies).toHaveLength(1);
    await go([{ toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 80 } }]);

    expect(bodies).toHaveLength(2);
    const sent = bodies[1]?.messages ?? [];
    expect(checkTranscript('openai-chat', sent)).toEqual([]);
    expect(refunds).toEqual([{ orderId: 'A-1042', amount: 80 }]);
    expect(runs.lookup_order).toBe(1);
    expect(Object.keys(chatToolResults(sent)).sort()).toEqual(['call_lookup', 'call_refund']);
    expect(JSON.parse(chatToolResults(sent).call_refund ?? '{}')).toMatchObject({ amount: 80 });
  });

  it('sends OpenAI a request whose messages pass the strict check after a reject, the rejected call never run', async () => {
    const { bodies, refunds, runs, created, go } = await pausedThread('openai-langgraph-2', [
      chatCall('call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }),
      chatCall('call_email', 'send_email', { to: 'customer@example.com' }),
    ]);
    expect(created.asks).toEqual(['call_refund', 'call_email']);
    await go([
      { toolCallId: 'call_refund', decision: 'reject', reason: 'Needs a photo.' },
      { toolCallId: 'call_email', decision: 'reject', reason: 'Not yet.' },
    ]);

    const sent = bodies[1]?.messages ?? [];
    expect(checkTranscript('openai-chat', sent)).toEqual([]);
    expect(refunds).toEqual([]);
    expect(runs.send_email).toBe(0);
    expect(chatToolResults(sent)).toEqual({
      call_refund: `${REJECTED}\nReason: Needs a photo.`,
      call_email: `${REJECTED}\nReason: Not yet.`,
    });
  });
});
