/**
 * Handback with the OpenAI Agents SDK, through `handback/openai-agents`: a run stops on `result.interruptions`
 * (tools with `needsApproval`), the adapter pauses it (format `openai-responses`), two people decide, and a later
 * invocation goes on with `run()`.
 * - `ask_human` (an `answer` ask) is answered by the customer; `refund_order` (an approval, its zod parameters the
 *   `argsSchema`) is approved by the lead with a smaller amount, and runs once with those arguments.
 * - `lookup_order` needs no approval: the SDK runs it in the same round, before the run stops.
 * Offline: the agent's model is a scripted `Model`, so the SDK's own run loop does everything else.
 *
 * Run: npx tsx examples/openai-agents.ts
 */
import { pathToFileURL } from 'node:url';
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
import { type LocalStore, startLocalStore } from 'handback/local';
import { createDynamoDBToolExecutions, openaiAgentsHandback } from 'handback/openai-agents';
import { z } from 'zod';

setTracingDisabled(true); // offline: no traces to export

const lookupOrder = tool({
  name: 'lookup_order',
  description: 'Look an order up',
  parameters: z.object({ orderId: z.string() }),
  execute: async ({ orderId }) => ({ orderId, status: 'delivered', total: 120 }),
});
const askHuman = tool({
  name: 'ask_human',
  description: 'Ask the customer',
  parameters: z.object({ question: z.string() }),
  needsApproval: true, // the run stops on it; a person's answer is its result, so `execute` never runs
  execute: async () => 'never: a person answers this call',
});
const refunds: unknown[] = [];
const refundOrder = tool({
  name: 'refund_order',
  description: 'Refund an order',
  parameters: z.object({ orderId: z.string(), amount: z.number().positive() }),
  needsApproval: true,
  execute: async (args) => {
    refunds.push(args);
    return { refundId: 'rf_1', ...args };
  },
});

/** The scripted model: three parallel calls for a new request, then a line per tool result it was sent. */
const model: Model = {
  async getResponse({ input }: ModelRequest) {
    const items = typeof input === 'string' ? [] : input;
    const call = (callId: string, name: string, args: object) =>
      ({ type: 'function_call', callId, name, arguments: JSON.stringify(args), status: 'completed' }) as const;
    const output: AgentInputItem[] = items.some((item) => item.type === 'function_call')
      ? [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: said(items) }],
          },
        ]
      : [
          call('call_lookup', 'lookup_order', { orderId: 'A-1042' }),
          call('call_ask', 'ask_human', { question: 'Send a replacement as well?' }),
          call('call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }),
        ];
    return { usage: new Usage(), output: output as never, responseId: `resp_${items.length}` };
  },
  getStreamedResponse: () => {
    throw new Error('This example does not stream.');
  },
};
const said = (items: AgentInputItem[]) =>
  items
    .flatMap((i) => (i.type === 'function_call_result' ? [`${i.name}: ${(i.output as { text: string }).text}`] : []))
    .join(' | ');
const agent = new Agent({ name: 'support', model, tools: [lookupOrder, askHuman, refundOrder] });

const TENANT = 'acme';
const RUN_ID = 'ticket-1042';
/** Handback on a store built afresh from the table, as each Lambda invocation would: nothing kept between them. */
const handbackOn = (local: LocalStore) =>
  openaiAgentsHandback({
    handback: {
      store: createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName }),
      tenant: TENANT,
    },
    executions: createDynamoDBToolExecutions({ client: local.client, tableName: local.tableName }),
    agent,
    asks: { ask_human: { kind: 'answer', answerSchema: { enum: ['yes', 'no'] } } },
  });

export async function main() {
  const local = await startLocalStore();
  try {
    const trace: string[] = [];
    // Invocation 1: the run stops on the two calls that need a person; the adapter pauses it.
    const result = await run(agent, 'Order A-1042 arrived broken. Refund me, please.');
    const paused = await handbackOn(local).pause(result, { runId: RUN_ID });
    trace.push(`paused ${RUN_ID}: asks ${paused.asks.join(', ')} (lookup_order already ran)`);

    // Two people decide, each in their own request (from the inbox page or the HTTP API; here the store itself).
    const store = createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
    const key = { tenant: TENANT, runId: RUN_ID, interruptId: paused.interruptId };
    await store.decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'yes' }] });
    const edit = { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 80 } } as const;
    const lead = await store.decide({ ...key, decisions: [edit] });
    if (lead.kind !== 'closed') throw new Error(`Still waiting for ${lead.pending}.`);
    trace.push(`the lead approved the refund with a smaller amount: ${lead.outcome}`);

    // Invocation 2, from the hand-off's pointer: the approved call runs once, and the run goes on.
    const resumed = await handbackOn(local).resume({ runId: RUN_ID, continuationId: lead.continuationId });
    for (const ran of resumed.ran) trace.push(`ran ${ran.toolCallId}: ${ran.output}`);
    const text = String(resumed.result.finalOutput);
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
