/**
 * Handback with LangGraph JS: instead of `interrupt()` and a LangGraph checkpointer, the graph ends the turn when the
 * model calls a tool that needs a person, and Handback keeps the messages (`langchain` format) until people decide,
 * minutes or months later. A later invocation rebuilds the messages from the continuation and runs the graph again.
 * - `ask_human` (an `answer` ask) is answered by the customer; `refund_order` (an `approval` ask) is rejected by the
 *   lead, with a reason the model reads.
 * - `lookup_order` is an ordinary tool, not asked: it gets Handback's NOT_DISPATCHED result, so the model calls it
 *   again after the pause and the graph's ToolNode runs it.
 *
 * Run: npx tsx examples/langgraph.ts
 */
import { pathToFileURL } from 'node:url';
import { BaseChatModel, type BindToolsInput } from '@langchain/core/language_models/chat_models';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
  ToolMessage,
} from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { type AskInput, appendResults, createDynamoDBCheckpointStore } from 'handback';
import { type LocalStore, startLocalStore } from 'handback/local';
import { z } from 'zod';

const lookupOrder = tool(async ({ orderId }) => JSON.stringify({ orderId, status: 'delivered', total: 120 }), {
  name: 'lookup_order',
  description: 'Look an order up',
  schema: z.object({ orderId: z.string() }),
});
const refundInput = z.object({ orderId: z.string(), amount: z.number().positive() });
const refundOrder = tool(async ({ orderId, amount }) => JSON.stringify({ refundId: 'rf_1', orderId, amount }), {
  name: 'refund_order',
  description: 'Refund an order',
  schema: refundInput,
});
const askHuman = { name: 'ask_human', description: 'Ask the customer', schema: z.object({ question: z.string() }) };
/** The tools a person settles: their calls end the turn. */
const NEEDS_A_PERSON = new Set(['ask_human', 'refund_order']);

/** The scripted model: it reads the conversation as a real one would, and answers from a script. */
class ScriptedChatModel extends BaseChatModel {
  _llmType() {
    return 'scripted';
  }
  // A real chat model sends the tools' schemas to its provider; the script knows them already.
  override bindTools(_tools: BindToolsInput[]) {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const latest = new Map<string, ToolMessage>(); // each tool's latest result
    for (const m of messages) if (ToolMessage.isInstance(m)) latest.set(m.name ?? '', m);
    const lookup = { name: 'lookup_order', args: { orderId: 'A-1042' } };
    let reply: AIMessage;
    if (latest.size === 0) {
      const ask = { id: 'call_ask', name: 'ask_human', args: { question: 'Send a replacement as well?' } };
      const refund = { id: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 120 } };
      reply = new AIMessage({ content: 'Let me check.', tool_calls: [{ id: 'call_lookup', ...lookup }, ask, refund] });
    } else if (latest.get('lookup_order')?.status === 'error') {
      // NOT_DISPATCHED: the lookup never ran, so the model asks for it again.
      reply = new AIMessage({ content: '', tool_calls: [{ id: 'call_lookup_2', ...lookup }] });
    } else {
      const said = (name: string) => `${name}: ${String(latest.get(name)?.content).split('\n').at(-1)}`;
      reply = new AIMessage(['refund_order', 'lookup_order', 'ask_human'].map(said).join(' | '));
    }
    return { generations: [{ message: reply, text: String(reply.content) }] };
  }
}
const model = new ScriptedChatModel({}).bindTools([askHuman, refundOrder, lookupOrder]);

/** agent ⇄ tools, ending when the model is done or when a call needs a person. */
const graph = new StateGraph(MessagesAnnotation)
  .addNode('agent', async ({ messages }) => ({ messages: [await model.invoke(messages)] }))
  .addNode('tools', new ToolNode([lookupOrder]))
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', ({ messages }) => {
    const calls = (messages.at(-1) as AIMessage).tool_calls ?? [];
    return calls.length === 0 || calls.some((c) => NEEDS_A_PERSON.has(c.name)) ? END : 'tools';
  })
  .addEdge('tools', 'agent')
  .compile();

const TENANT = 'acme';
const RUN_ID = 'ticket-1042';

/** A store built afresh from the table, as each Lambda invocation would: nothing is kept in memory between them. */
const storeOn = (local: LocalStore) =>
  createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });

/** Invocation 1: the graph ends on a round that needs people; Handback keeps the messages. */
async function startTurn(local: LocalStore, userText: string) {
  const { messages } = await graph.invoke({ messages: [new HumanMessage(userText)] });
  const asks: AskInput[] = [];
  for (const c of (messages.at(-1) as AIMessage).tool_calls ?? []) {
    if (c.id === undefined || !NEEDS_A_PERSON.has(c.name)) continue;
    const answerSchema = { enum: ['yes', 'no'] };
    if (c.name === 'ask_human') asks.push({ toolCallId: c.id, prompt: c.args.question, answerSchema });
    else asks.push({ toolCallId: c.id, kind: 'approval', prompt: `Refund ${JSON.stringify(c.args)}?` });
  }
  const stored = mapChatMessagesToStoredMessages(messages);
  return storeOn(local).pause({ tenant: TENANT, runId: RUN_ID, format: 'langchain', messages: stored, asks });
}

/** Invocation 2, from the hand-off's pointer: run any approved calls, rebuild the messages, run the graph again. */
async function continueTurn(local: LocalStore, continuationId: string) {
  const continuation = await storeOn(local).getContinuation({ tenant: TENANT, runId: RUN_ID, continuationId });
  const results = [];
  for (const call of continuation.dispatch) {
    // Approved (or edited) calls: only refund_order can be one, and in this story the lead rejects it.
    results.push({ toolCallId: call.toolCallId, output: await refundOrder.invoke(refundInput.parse(call.args)) });
  }
  const stored = appendResults('langchain', continuation.messages, results) as StoredMessage[];
  const { messages } = await graph.invoke({ messages: mapStoredMessagesToChatMessages(stored) });
  return { outcome: continuation.outcome, dispatched: continuation.dispatch, stored, messages };
}

export async function main() {
  const local = await startLocalStore();
  try {
    const trace: string[] = [];
    const paused = await startTurn(local, 'Order A-1042 arrived broken. Refund me, please.');
    // Only the table holds the turn now: this process may end here, and the rest happen days later, elsewhere.
    trace.push(`paused ${paused.runId}: asks ${paused.asks.join(', ')}; lookup_order not asked`);

    // Two people decide, each in their own request (from the inbox page or the HTTP API; here the store itself).
    const key = { tenant: TENANT, runId: RUN_ID, interruptId: paused.interruptId };
    const { asks } = await storeOn(local).getPause(key);
    const askFor = (name: string) => asks.find((ask) => ask.name === name)?.toolCallId ?? '';
    const answer = { toolCallId: askFor('ask_human'), answer: 'yes' };
    const customer = await storeOn(local).decide({ ...key, decisions: [answer] });
    trace.push(`the customer answered; still pending: ${customer.kind === 'pending' ? customer.pending : 'none'}`);
    const reason = 'Refunds over 100 need a photo of the damage.';
    const reject = { toolCallId: askFor('refund_order'), decision: 'reject', reason } as const;
    const lead = await storeOn(local).decide({ ...key, decisions: [reject] });
    if (lead.kind !== 'closed') throw new Error(`Still waiting for ${lead.pending}.`);
    trace.push(`the lead rejected the refund: ${lead.outcome}, ${lead.dispatch.length} calls to run`);

    const turn = await continueTurn(local, lead.continuationId);
    const after = turn.messages.slice(turn.stored.length);
    for (const m of after) if (ToolMessage.isInstance(m)) trace.push(`ran ${m.name} again: ${m.content}`);
    const text = String(turn.messages.at(-1)?.content);
    trace.push(`model: ${text}`);
    return { trace, text, ...turn };
  } finally {
    await local.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { trace } = await main();
  for (const line of trace) console.log(line);
}
