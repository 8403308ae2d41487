/**
 * Handback with the AI SDK (`ai` v6), through `handback/ai-sdk`: a `generateText` turn that needs a person's answer
 * and a person's approval pauses, and a later invocation goes on from the closed pause.
 * - `refund_order` has `needsApproval`: its `tool-approval-request` becomes an `approval` ask. The lead approves it
 *   with a smaller amount; the adapter runs the tool's own `execute` with the edited args, once.
 * - `ask_human` has no `execute`, so the SDK stops at it: it becomes an `answer` ask.
 * - `lookup_order` is an ordinary tool: the SDK runs it in the same step, and its result is kept as it is.
 *
 * Run: npx tsx examples/ai-sdk.ts
 */
import { pathToFileURL } from 'node:url';
import { generateText, type ModelMessage, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createAiSdkHandback, createDynamoDBToolExecutions } from 'handback/ai-sdk';
import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
import { startLocalStore } from 'handback/local';
import { z } from 'zod';

const tools = {
  ask_human: tool({ description: 'Ask the customer', inputSchema: z.object({ question: z.string() }) }),
  refund_order: tool({
    description: 'Refund an order',
    inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
    needsApproval: true,
    execute: async ({ orderId, amount }) => ({ refundId: 'rf_1', orderId, amount }),
  }),
  lookup_order: tool({
    description: 'Look an order up',
    inputSchema: z.object({ orderId: z.string() }),
    execute: async ({ orderId }) => ({ orderId, status: 'delivered', total: 120 }),
  }),
};

/** The scripted model: one round of three parallel calls, then a final text made from the results it was sent. */
const model = new MockLanguageModelV3({
  async doGenerate({ prompt }) {
    const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 } };
    const base = { usage: { ...usage, outputTokens: { total: 0, text: 0, reasoning: 0 } }, warnings: [] };
    const results = new Map<string, string>();
    for (const part of prompt.flatMap((m) => (m.role === 'tool' ? m.content : []))) {
      if (part.type === 'tool-result' && 'value' in part.output) {
        const { value } = part.output;
        results.set(part.toolName, typeof value === 'string' ? value : JSON.stringify(value));
      }
    }
    if (!results.has('refund_order')) {
      const call = (toolCallId: string, toolName: string, input: unknown) =>
        ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }) as const;
      const content = [
        call('call_lookup', 'lookup_order', { orderId: 'A-1042' }),
        call('call_ask', 'ask_human', { question: 'Send a replacement as well?' }),
        call('call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }),
      ];
      return { ...base, content, finishReason: { unified: 'tool-calls', raw: undefined } };
    }
    const text = `Refunded: ${results.get('refund_order')}. Replacement wanted: ${results.get('ask_human')}.`;
    return { ...base, content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined } };
  },
});

export async function main() {
  const local = await startLocalStore();
  try {
    // A store and an adapter built afresh in each invocation, as each Lambda would: only the table is shared.
    const store = () => createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
    const executions = () => createDynamoDBToolExecutions({ client: local.client, tableName: local.tableName });
    const adapter = () =>
      createAiSdkHandback({ handback: { store: store(), tenant: 'acme' }, tools, executions: executions() });
    const trace: string[] = [];

    // Invocation 1: the step ends with an approval request and an unanswered question, so the turn pauses.
    const messages: ModelMessage[] = [{ role: 'user', content: 'Order A-1042 arrived broken. Refund me, please.' }];
    const step = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
    const paused = await adapter().pauseFromStep({ runId: 'ticket-1042', messages, step });
    if (paused === undefined) throw new Error('The step asked no one.');
    trace.push(`paused ${paused.runId}: asks ${paused.asks.join(', ')} (lookup_order already ran)`);

    // Two people decide, each in their own request (from the inbox page, Slack or the HTTP API; here the store).
    const key = { tenant: 'acme', runId: paused.runId, interruptId: paused.interruptId };
    const customer = await store().decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'yes' }] });
    trace.push(`the customer answered; still pending: ${customer.kind === 'pending' ? customer.pending : 'none'}`);
    const args = { orderId: 'A-1042', amount: 80 };
    const lead = await store().decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'edit', args }] });
    if (lead.kind !== 'closed') throw new Error(`Still waiting for ${lead.pending}.`);
    trace.push(`the lead approved 80 instead of 120: ${lead.outcome}, continuation ${lead.continuationId}`);

    // Invocation 2, from the hand-off's pointer: the approved call runs once, then the model goes on.
    const next = await adapter().continueFromPause({ runId: paused.runId, continuationId: lead.continuationId });
    for (const call of lead.dispatch) trace.push(`ran ${call.name} ${JSON.stringify(call.args)}`);
    const final = await generateText({ model, tools, messages: next, stopWhen: stepCountIs(5) });
    trace.push(`model: ${final.text}`);
    return { trace, dispatched: lead.dispatch, messages: next, text: final.text };
  } finally {
    await local.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { trace } = await main();
  for (const line of trace) console.log(line);
}
