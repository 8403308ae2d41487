import { createOpenAI } from '@ai-sdk/openai';
import { tool as langchainTool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { createAgent, humanInTheLoopMiddleware } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAiSdkHandback } from '../../functions/adapters/ai-sdk.ts';
import { langgraphHandback } from '../../functions/adapters/langgraph.ts';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { startLocalStore } from '../../functions/local/public.ts';
import { checkTranscript } from '../../functions/rehydrate/check-transcript.ts';
import { REJECTED } from '../../functions/rehydrate/texts.ts';
import type { Decision } from '../../functions/wire.ts';
import { toolsWithLog } from './ai-sdk-support.ts';
import { type Backend, localStoreBackend } from './backends.ts';

/**
 * §15: the messages an adapter rebuilds are what the framework then sends its provider. These tests put the
 * framework's own provider package (`@ai-sdk/openai`, `@langchain/openai`) in front of a `fetch` that records each
 * request and answers as OpenAI's API documents, and check the request after the pause as OpenAI would.
 */

type Body = Record<string, unknown> & { input?: unknown[]; messages?: unknown[] };

/** A `fetch` that records each request body and answers with the next of `replies`. */
function recordingFetch(replies: Array<(body: Body) => unknown>) {
  const bodies: Body[] = [];
  const fetch = async (_url: unknown, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Body;
    bodies.push(body);
    const reply = replies[Math.min(bodies.length, replies.length) - 1];
    if (reply === undefined) throw new Error('no reply scripted');
    return Response.json(reply(body));
  };
  return { bodies, fetch: fetch as typeof globalThis.fetch };
}

const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };

/** A Responses API reply: the given output items, completed. */
const response = (id: string, output: unknown[]) => () => ({
  id,
  object: 'response',
  created_at: 1_780_000_000,
  status: 'completed',
  model: 'gpt-4.1',
  output,
  usage: { ...usage, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
});

const functionCall = (callId: string, name: string, args: unknown) => ({
  type: 'function_call',
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
  status: 'completed',
});

const assistantText = (text: string) => ({
  type: 'message',
  id: 'msg_1',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});

let backend: Backend;
let local: Awaited<ReturnType<typeof startLocalStore>>;
/** The AI SDK adapter takes the library's own store (the backend's is the adapters' narrower one). */
let store: CheckpointStore;
beforeAll(async () => {
  backend = await localStoreBackend();
  local = await startLocalStore();
  store = createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
});
afterAll(async () => {
  await backend.close();
  await local.close();
});

/** Decides on the AI SDK tests' store; the continuation id when the decisions closed the pause. */
async function decide(runId: string, interruptId: string, decisions: Decision[]) {
  const result = await store.decide({ tenant: 'acme', runId, interruptId, decisions });
  return result.kind === 'closed' ? result.continuationId : undefined;
}

describe('handback/ai-sdk with @ai-sdk/openai (the Responses API)', () => {
  it('sends OpenAI a request whose input passes the strict check: the approved call run once, the answer and the lookup in', async () => {
    const { tools, refunds } = toolsWithLog();
    const { bodies, fetch } = recordingFetch([
      response('resp_1', [
        functionCall('call_lookup', 'lookup_order', { orderId: 'A-1042' }),
        functionCall('call_ask', 'ask_human', { question: 'Send a replacement as well?' }),
        functionCall('call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }),
      ]),
      response('resp_2', [assistantText('Refunded 80 and sent a replacement.')]),
    ]);
    const model = createOpenAI({ apiKey: 'offline', fetch })('gpt-4.1');
    const adapter = createAiSdkHandback({ handback: { store, tenant: 'acme' }, tools });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Order A-1042 arrived broken. Refund me.' }];
    const step = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
    const paused = await adapter.pauseFromStep({ runId: 'openai-ai-sdk-1', messages, step });
    if (paused === undefined) throw new Error('the step did not pause');
    expect(bodies).toHaveLength(1);

    const continuationId = await decide('openai-ai-sdk-1', paused.interruptId, [
      { toolCallId: 'call_ask', answer: 'yes' },
      { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 80 } },
    ]);
    const next = await adapter.continueFromPause({ runId: 'openai-ai-sdk-1', continuationId: continuationId ?? '' });
    const final = await generateText({ model, tools, messages: next });

    expect(final.text).toBe('Refunded 80 and sent a replacement.');
    expect(refunds).toEqual([{ orderId: 'A-1042', amount: 80 }]);
    const sent = bodies[1]?.input ?? [];
    expect(checkTranscript('openai-responses', sent)).toEqual([]);
    const outputs = sent.filter((item) => (item as { type?: string }).type === 'function_call_output') as Array<{
      call_id: string;
      output: string;
    }>;
    expect(outputs.map((o) => o.call_id)).toEqual(['call_lookup', 'call_ask', 'call_refund']);
    expect(outputs[1]?.output).toContain('yes');
    expect(JSON.parse(outputs[2]?.output ?? '{}')).toMatchObject({ orderId: 'A-1042', amount: 80 });
  });

  it('sends a rejected call as a function_call_output carrying the denial, and runs nothing', async () => {
    const { tools, refunds } = toolsWithLog();
    const { bodies, fetch } = recordingFetch([
      response('resp_1', [
        functionCall('call_lookup', 'lookup_order', { orderId: 'A-1042' }),
        functionCall('call_ask', 'ask_human', { question: 'Send a replacement as well?' }),
        functionCall('call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }),
      ]),
      response('resp_2', [assistantText('No refund, then.')]),
    ]);
    const model = createOpenAI({ apiKey: 'offline', fetch })('gpt-4.1');
    const adapter = createAiSdkHandback({ handback: { store, tenant: 'acme' }, tools });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Refund A-1042.' }];
    const step = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
    const paused = await adapter.pauseFromStep({ runId: 'openai-ai-sdk-2', messages, step });
    if (paused === undefined) throw new Error('the step did not pause');
    const continuationId = await decide('openai-ai-sdk-2', paused.interruptId, [
      { toolCallId: 'call_ask', answer: 'no' },
      { toolCallId: 'call_refund', decision: 'reject', reason: 'Needs a photo.' },
    ]);
    const next = await adapter.continueFromPause({ runId: 'openai-ai-sdk-2', continuationId: continuationId ?? '' });
    await generateText({ model, tools, messages: next });

    expect(refunds).toEqual([]);
    const sent = bodies[1]?.input ?? [];
    expect(checkTranscript('openai-responses', sent)).toEqual([]);
    const refund = sent.find(
      (item) =>
        (item as { type?: string; call_id?: string }).type === 'function_call_output' &&
        (item as { call_id?: string }).call_id === 'call_refund',
    ) as { output: string } | undefined;
    expect(refund?.output).toContain('Needs a photo.');
  });
});

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
