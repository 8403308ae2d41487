/**
 * Handback with LangGraph JS and LangChain's human-in-the-loop middleware, through `handback/langgraph`: the agent
 * (`createAgent`) stops on the middleware's interrupt, the adapter pauses it (format `langchain`), two people decide,
 * and a later invocation resumes the thread with `Command({ resume })` in the middleware's own terms.
 * - `refund_order` (an approval) is approved by the lead with a smaller amount; `email_customer` (an approval the
 *   middleware allows no edit of) is approved by support. The graph runs both, with the decided arguments.
 * - `lookup_order` is an ordinary tool the middleware does not interrupt on: the graph runs it.
 * The middleware has no `answer` decision (Handback's answers reach it as a reject's message, and a round with a reject
 * runs none of its other calls: docs/langgraph.md), so this story asks no question.
 *
 * Run: npx tsx examples/langgraph.ts
 */
import { pathToFileURL } from 'node:url';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { MemorySaver } from '@langchain/langgraph';
import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
import { createDynamoDBToolExecutions, langgraphHandback } from 'handback/langgraph';
import { type LocalStore, startLocalStore } from 'handback/local';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { z } from 'zod';

const lookupOrder = tool(async ({ orderId }) => JSON.stringify({ orderId, status: 'delivered', total: 120 }), {
  name: 'lookup_order',
  description: 'Look an order up',
  schema: z.object({ orderId: z.string() }),
});
const refunds: unknown[] = [];
const refund = async (args: { orderId: string; amount: number }) => {
  refunds.push(args);
  return JSON.stringify({ refundId: 'rf_1', ...args });
};
const refundOrder = tool(refund, {
  name: 'refund_order',
  description: 'Refund an order',
  schema: z.object({ orderId: z.string(), amount: z.number().positive() }),
});
const emailCustomer = tool(async ({ text }) => `sent: ${text}`, {
  name: 'email_customer',
  description: 'Email the customer',
  schema: z.object({ text: z.string() }),
});

/** The scripted model: three parallel calls for a new request, then a line per tool result it was sent. */
class ScriptedChatModel extends BaseChatModel {
  _llmType() {
    return 'scripted';
  }
  // A real chat model sends the tools' schemas to its provider; the script knows them already.
  override bindTools() {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const reply =
      messages.at(-1)?.type === 'human'
        ? new AIMessage({
            content: 'Let me check.',
            tool_calls: [
              { id: 'call_lookup', name: 'lookup_order', args: { orderId: 'A-1042' } },
              { id: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 120 } },
              { id: 'call_email', name: 'email_customer', args: { text: 'Your refund is on its way.' } },
            ],
          })
        : new AIMessage(
            messages
              .flatMap((m) => (ToolMessage.isInstance(m) ? [`${m.name}: ${String(m.content).split('\n').at(-1)}`] : []))
              .join(' | '),
          );
    return { generations: [{ message: reply, text: String(reply.content) }] };
  }
}

/** The agent, on a checkpointer: in production a durable one (the invocation that resumes is not the one that paused). */
const graph = createAgent({
  model: new ScriptedChatModel({}),
  tools: [lookupOrder, refundOrder, emailCustomer],
  checkpointer: new MemorySaver(),
  middleware: [
    humanInTheLoopMiddleware({
      interruptOn: { refund_order: true, email_customer: { allowedDecisions: ['approve', 'reject'] } },
    }),
  ],
});

const TENANT = 'acme';
const RUN_ID = 'ticket-1042';
/** Handback on a store built afresh from the table, as each Lambda invocation would: nothing kept between them. */
const handbackOn = (local: LocalStore) =>
  langgraphHandback({
    handback: {
      store: createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName }),
      tenant: TENANT,
    },
    executions: createDynamoDBToolExecutions({ client: local.client, tableName: local.tableName }),
    graph,
  });

export async function main() {
  const local = await startLocalStore();
  try {
    const trace: string[] = [];
    // Invocation 1: the middleware interrupts on the round; the adapter pauses it.
    const config = { configurable: { thread_id: RUN_ID } };
    const user = 'Order A-1042 arrived broken. Refund me, please.';
    await graph.invoke({ messages: [{ role: 'user', content: user }] }, config);
    const paused = await handbackOn(local).pause(config, { runId: RUN_ID });
    trace.push(`paused ${RUN_ID}: asks ${paused.asks.join(', ')}; lookup_order not asked`);

    // Two people decide, each in their own request (from the inbox page or the HTTP API; here the store itself).
    const store = createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
    const key = { tenant: TENANT, runId: RUN_ID, interruptId: paused.interruptId };
    await store.decide({ ...key, decisions: [{ toolCallId: 'call_email', decision: 'approve' }] });
    const edit = { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 80 } } as const;
    const lead = await store.decide({ ...key, decisions: [edit] });
    if (lead.kind !== 'closed') throw new Error(`Still waiting for ${lead.pending}.`);
    trace.push(`the lead approved the refund with a smaller amount: ${lead.outcome}, ${lead.dispatch.length} to run`);

    // Invocation 2, from the hand-off's pointer: the thread goes on in the middleware's terms.
    const resumed = await handbackOn(local).resume({ runId: RUN_ID, continuationId: lead.continuationId });
    const messages = (resumed.values as { messages: BaseMessage[] }).messages;
    const text = String(messages.at(-1)?.content);
    trace.push(`resumed with ${JSON.stringify(Object.values(resumed.resume)[0]?.decisions.map((d) => d.type))}`);
    trace.push(`model: ${text}`);
    return { trace, text, messages, refunds, ...resumed };
  } finally {
    await local.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { trace } = await main();
  for (const line of trace) console.log(line);
}
