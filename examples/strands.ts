/**
 * Handback with Strands Agents, through `handback/strands`: the adapter's `approvalHook` interrupts the agent before
 * the calls that need a person, the adapter pauses the round (format `bedrock-converse`), two people decide, and a
 * later invocation, on an agent built afresh, goes on by invoking it with the interrupt responses.
 * - `ask_human` (an `answer` ask) is answered by the customer; `refund_order` (an approval) is approved by the lead
 *   with a smaller amount, and runs once with those arguments.
 * - `lookup_order` needs no one: the SDK runs it in the same round, before the agent stops.
 * Offline: the agent's model is a scripted `Model`, so the SDK's own agent loop does everything else.
 *
 * Run: npx tsx examples/strands.ts
 */
import { pathToFileURL } from 'node:url';
import { Agent, type Message, Model, type ModelStreamEvent, tool } from '@strands-agents/sdk';
import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
import { type LocalStore, startLocalStore } from 'handback/local';
import { approvalHook, createDynamoDBToolExecutions, strandsHandback } from 'handback/strands';
import { z } from 'zod';

const lookupOrder = tool({
  name: 'lookup_order',
  description: 'Look an order up',
  inputSchema: z.object({ orderId: z.string() }),
  callback: ({ orderId }) => ({ orderId, status: 'delivered', total: 120 }),
});
const askHuman = tool({
  name: 'ask_human',
  description: 'Ask the customer',
  inputSchema: z.object({ question: z.string() }),
  callback: () => 'never: a person answers this call',
});
const refunds: unknown[] = [];
const refundOrder = tool({
  name: 'refund_order',
  description: 'Refund an order',
  inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
  callback: (input) => {
    refunds.push(input);
    return { refundId: 'rf_1', ...input };
  },
});

/** The scripted model: three parallel calls for a new request, then a line of the tool results it was sent. */
class ScriptedModel extends Model {
  updateConfig(): void {}
  getConfig() {
    return { modelId: 'scripted' };
  }
  async *stream(messages: Message[]): AsyncGenerator<ModelStreamEvent> {
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    const results = (messages.at(-1)?.toJSON().content ?? []).flatMap((b) => ('toolResult' in b ? [b.toolResult] : []));
    if (results.length > 0) {
      const said = results.map(
        (r) => `${r.toolUseId}: ${r.content.map((c) => ('text' in c ? c.text : JSON.stringify(c))).join('')}`,
      );
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: said.join(' | ') } };
      yield { type: 'modelContentBlockStopEvent' };
      yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
      return;
    }
    const calls = [
      ['call_lookup', 'lookup_order', { orderId: 'A-1042' }],
      ['call_ask', 'ask_human', { question: 'Send a replacement as well?' }],
      ['call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }],
    ] as const;
    for (const [toolUseId, name, input] of calls) {
      yield { type: 'modelContentBlockStartEvent', start: { type: 'toolUseStart', name, toolUseId } };
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'toolUseInputDelta', input: JSON.stringify(input) } };
      yield { type: 'modelContentBlockStopEvent' };
    }
    yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
  }
}

const hook = approvalHook({
  tools: ['refund_order'],
  asks: { ask_human: { kind: 'answer', answerSchema: { enum: ['yes', 'no'] } } },
});
/** The agent as each invocation builds it: nothing of the first one is kept for the second. */
const newAgent = () =>
  new Agent({
    model: new ScriptedModel(),
    tools: [lookupOrder, askHuman, refundOrder],
    plugins: [hook],
    printer: false,
  });

const TENANT = 'acme';
const RUN_ID = 'ticket-1042';
/** Handback on a store built afresh from the table, as each Lambda invocation would. */
const handbackOn = (local: LocalStore) =>
  strandsHandback({
    handback: {
      store: createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName }),
      tenant: TENANT,
    },
    executions: createDynamoDBToolExecutions({ client: local.client, tableName: local.tableName }),
  });

export async function main() {
  const local = await startLocalStore();
  try {
    const trace: string[] = [];
    // Invocation 1: the hook interrupts the two calls that need a person; the adapter pauses the round.
    const agent = newAgent();
    const result = await agent.invoke('Order A-1042 arrived broken. Refund me, please.');
    const paused = await handbackOn(local).pause(agent, result, { runId: RUN_ID });
    trace.push(`paused ${RUN_ID}: asks ${paused.asks.join(', ')} (lookup_order already ran)`);

    // Two people decide, each in their own request (from the inbox page or the HTTP API; here the store itself).
    const store = createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
    const key = { tenant: TENANT, runId: RUN_ID, interruptId: paused.interruptId };
    await store.decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'yes' }] });
    const edit = { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 80 } } as const;
    const lead = await store.decide({ ...key, decisions: [edit] });
    if (lead.kind !== 'closed') throw new Error(`Still waiting for ${lead.pending}.`);
    trace.push(`the lead approved the refund with a smaller amount: ${lead.outcome}`);

    // Invocation 2, from the hand-off's pointer: a new agent, invoked with the interrupt responses.
    const resumed = await handbackOn(local).resume(newAgent(), { runId: RUN_ID, continuationId: lead.continuationId });
    for (const { response } of resumed.responses) trace.push(`responded: ${JSON.stringify(response)}`);
    const text = String(resumed.result);
    trace.push(`model: ${text}`);
    return { trace, text, refunds, ...resumed };
  } finally {
    await local.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { trace } = await main();
  for (const line of trace) console.log(line);
}
