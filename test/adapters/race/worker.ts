import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoDBToolExecutions, type StoreScope } from 'handback/durable';
import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
import { z } from 'zod';
import { frameworks, type Seen } from '../../support/scripted-models.ts';

/**
 * One worker of the cross-process race (`race.slow.test.ts`): a process of its own, as a Lambda is, with the adapter on
 * the shared DynamoDB table (the store and the execution log) and nothing else in common with the other workers.
 *
 * `worker.ts <adapter> pause` runs the agent until it pauses on `refund_order` and prints the pause.
 * `worker.ts <adapter> deliver` builds the same agent, prints `ready`, waits for `go` on stdin (so that two workers
 * start the delivery together), goes on from the continuation, and prints what it did: `ran` (this process ran the
 * refund), `in-progress` (another delivery holds the claim: `ExecutionInProgressError`) or `replayed` (the refund had
 * run; its recorded result was read), and how many model calls it made. The refund appends a line to `$RACE_REFUNDS`
 * and takes 300 ms, so the two deliveries overlap. The settings come in `$RACE` as JSON.
 *
 * It imports Handback by its package name only, as an agent's code does: `tsx` resolves the names to the sources
 * (tsconfig.json's `paths`). The execution log comes from `handback/durable`, which loads no framework.
 */

interface Settings {
  endpoint: string;
  tableName: string;
  runId: string;
  continuationId?: string;
  refunds: string;
  checkpoints: string;
}

const [adapter, mode] = process.argv.slice(2) as [string, 'pause' | 'deliver'];
const settings = JSON.parse(process.env.RACE ?? '{}') as Settings;
const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    endpoint: settings.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }),
  { marshallOptions: { removeUndefinedValues: true } },
);
const store = createDynamoDBCheckpointStore({ client, tableName: settings.tableName });
const handback: StoreScope = { store, tenant: 'acme' };
const executions = createDynamoDBToolExecutions({ client, tableName: settings.tableName });
const seen: Seen = { calls: 0 };
let refunded = false;
const refund = async (order: object) => {
  refunded = true;
  appendFileSync(settings.refunds, `${JSON.stringify(order)}\n`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { refundId: 'rf_1', ...order };
};
const inputSchema = z.object({ orderId: z.string(), amount: z.number() });
const text = 'Order 42 arrived broken. Refund it.';

/** Each adapter's agent: how it pauses, and how it goes on from the continuation. */
interface App {
  pause(): Promise<{ interruptId: string; asks: string[] }>;
  deliver(continuationId: string): Promise<unknown>;
}

async function aiSdk(): Promise<App> {
  const { generateText, tool } = await import('ai');
  const { createAiSdkHandback } = await import('handback/ai-sdk');
  const model = (await frameworks['ai-sdk']()).model(seen) as Parameters<typeof generateText>[0]['model'];
  const tools = { refund_order: tool({ inputSchema, needsApproval: true, execute: refund }) };
  const agent = createAiSdkHandback({ handback, tools, executions });
  const messages = [{ role: 'user' as const, content: text }];
  return {
    async pause() {
      const paused = await agent.pauseFromStep({
        runId: settings.runId,
        messages,
        step: await generateText({ model, tools, messages }),
      });
      if (paused === undefined) throw new Error('The step asked no one.');
      return paused;
    },
    async deliver(continuationId) {
      const next = await agent.continueFromPause({ runId: settings.runId, continuationId });
      return (await generateText({ model, tools, messages: next })).text;
    },
  };
}

async function openaiAgents(): Promise<App> {
  const { Agent, run, tool } = await import('@openai/agents');
  const { openaiAgentsHandback } = await import('handback/openai-agents');
  const model = (await frameworks['openai-agents']()).model(seen) as import('@openai/agents').Model;
  const tools = [
    tool({
      name: 'refund_order',
      description: 'Refund',
      parameters: inputSchema,
      needsApproval: true,
      execute: refund,
    }),
  ];
  const agent = new Agent({ name: 'support', model, tools });
  const adapter = openaiAgentsHandback({ handback, agent, executions });
  return {
    pause: async () => adapter.pause(await run(agent, text), { runId: settings.runId }),
    deliver: async (continuationId) =>
      (await adapter.resume({ runId: settings.runId, continuationId })).result.finalOutput,
  };
}

async function langgraph(): Promise<App> {
  const { createAgent, humanInTheLoopMiddleware, tool } = await import('langchain');
  const { langgraphHandback } = await import('handback/langgraph');
  const { FileSaver } = await import('./file-saver.ts');
  const model = (await frameworks.langgraph()).model(seen) as import('langchain').CreateAgentParams['model'];
  const tools = [tool(refund, { name: 'refund_order', schema: inputSchema })];
  const middleware = [humanInTheLoopMiddleware({ interruptOn: { refund_order: true } })];
  const graph = createAgent({ model, tools, middleware, checkpointer: new FileSaver(settings.checkpoints) });
  const adapter = langgraphHandback({ handback, graph, executions });
  const config = { configurable: { thread_id: settings.runId } };
  return {
    async pause() {
      await graph.invoke({ messages: [{ role: 'user', content: text }] }, config);
      return adapter.pause(config, { runId: settings.runId });
    },
    deliver: async (continuationId) => (await adapter.resume({ runId: settings.runId, continuationId })).status,
  };
}

async function strands(): Promise<App> {
  const { Agent, tool } = await import('@strands-agents/sdk');
  const { approvalHook, strandsHandback } = await import('handback/strands');
  const model = (await frameworks.strands()).model(seen) as import('@strands-agents/sdk').Model;
  const refundOrder = tool({ name: 'refund_order', description: 'Refund an order', inputSchema, callback: refund });
  const hook = approvalHook({ tools: ['refund_order'] });
  const newAgent = () => new Agent({ model, tools: [refundOrder], plugins: [hook], printer: false });
  const adapter = strandsHandback({ handback, executions });
  return {
    async pause() {
      const agent = newAgent();
      return adapter.pause(agent, await agent.invoke(text), { runId: settings.runId });
    },
    deliver: async (continuationId) =>
      String((await adapter.resume(newAgent(), { runId: settings.runId, continuationId })).result),
  };
}

async function durable(): Promise<App> {
  const { runApproved } = await import('handback/durable');
  const call = {
    id: 'call_refund',
    type: 'function',
    function: { name: 'refund_order', arguments: '{"orderId":"42","amount":120}' },
  };
  // A durable function's step, run as the SDK runs a step it has no checkpoint for (a retry after a crash, say):
  // the execution log is what keeps the call from running again.
  const context = { step: (_: string, run: () => Promise<unknown>) => run() } as never;
  return {
    pause: () =>
      store.pause({
        tenant: 'acme',
        runId: settings.runId,
        format: 'openai-chat',
        messages: [
          { role: 'user', content: text },
          { role: 'assistant', content: null, tool_calls: [call] },
        ],
        asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
      }),
    async deliver(continuationId) {
      const decision = await store.getContinuation({ tenant: 'acme', runId: settings.runId, continuationId });
      return runApproved(context, decision, (approved) => refund(approved.args as object), { executions });
    },
  };
}

const apps: Record<string, () => Promise<App>> = {
  'ai-sdk': aiSdk,
  'openai-agents': openaiAgents,
  langgraph,
  strands,
  durable,
};
const make = apps[adapter];
if (make === undefined) throw new Error(`Usage: worker.ts <${Object.keys(apps).join('|')}> pause|deliver`);
const app = await make();
if (mode === 'pause') {
  const { interruptId, asks } = await app.pause();
  console.log(JSON.stringify({ interruptId, asks, modelCalls: seen.calls }));
} else {
  console.log('ready');
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) if (line === 'go') break;
  lines.close();
  let outcome: string;
  let answer: unknown;
  try {
    answer = await app.deliver(settings.continuationId ?? '');
    outcome = refunded ? 'ran' : 'replayed';
  } catch (error) {
    if ((error as Error).name !== 'ExecutionInProgressError') throw error;
    outcome = 'in-progress';
  }
  // Which `ai` this process loaded (6, or 7 through test/support/ai-v7.mjs), for the AI SDK's matrix.
  const ai =
    adapter === 'ai-sdk' ? (await import('ai/package.json', { with: { type: 'json' } })).default.version : undefined;
  console.log(JSON.stringify({ outcome, modelCalls: seen.calls, answer, ai }));
}
