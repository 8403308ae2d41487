/**
 * Handback with the AI SDK (`ai` v6): a `generateText` turn that needs a person's answer and a person's approval
 * pauses, and a later invocation resumes it.
 * - `refund_order` uses the SDK's own approval gate (`needsApproval`): its `tool-approval-request` becomes an
 *   `approval` ask. The lead approves it with a smaller amount; the agent runs it with the edited args.
 * - `ask_human` has no `execute`, so the SDK stops at it: it becomes an `answer` ask.
 * - `lookup_order` is an ordinary tool: the SDK runs it in the same step, and its result is kept as it is.
 *
 * Run: npx tsx examples/ai-sdk.ts
 */
import { pathToFileURL } from 'node:url';
import { generateText, type ModelMessage, modelMessageSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { type AskInput, appendResults, createDynamoDBCheckpointStore } from 'handback';
import { type LocalStore, startLocalStore } from 'handback/local';
import { z } from 'zod';

const refundInput = z.object({ orderId: z.string(), amount: z.number().positive() });
const refundOrder = async ({ orderId, amount }: z.infer<typeof refundInput>) => ({ refundId: 'rf_1', orderId, amount });
const tools = {
  ask_human: tool({ description: 'Ask the customer', inputSchema: z.object({ question: z.string() }) }),
  refund_order: tool({
    description: 'Refund an order',
    inputSchema: refundInput,
    needsApproval: true,
    execute: refundOrder,
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
    const results = new Map<string, unknown>();
    for (const part of prompt.flatMap((m) => (m.role === 'tool' ? m.content : []))) {
      if (part.type === 'tool-result' && 'value' in part.output) results.set(part.toolName, part.output.value);
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

const TENANT = 'acme';
const RUN_ID = 'ticket-1042';

/** A store built afresh from the table, as each Lambda invocation would: nothing is kept in memory between them. */
const storeOn = (local: LocalStore) =>
  createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });

/** Invocation 1: the step ends with an approval request and an unanswered question, so the turn pauses. */
async function startTurn(local: LocalStore, userText: string) {
  const messages: ModelMessage[] = [{ role: 'user', content: userText }];
  const step = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
  const asks: AskInput[] = [];
  for (const part of step.content) {
    if (part.type === 'tool-approval-request') {
      const { toolCallId, input } = part.toolCall;
      const prompt = `Refund ${JSON.stringify(input)}?`;
      asks.push({ toolCallId, kind: 'approval', prompt, argsSchema: z.toJSONSchema(refundInput) });
    } else if (part.type === 'tool-call' && !part.dynamic && part.toolName === 'ask_human') {
      asks.push({ toolCallId: part.toolCallId, prompt: part.input.question, answerSchema: { enum: ['yes', 'no'] } });
    }
  }
  return storeOn(local).pause({
    tenant: TENANT,
    runId: RUN_ID,
    format: 'ai-sdk',
    // As the SDK returns them: members set to undefined (`providerOptions`) are left out, as JSON leaves them out.
    messages: [...messages, ...step.response.messages],
    asks,
  });
}

/** Invocation 2, from the hand-off's pointer: run the approved calls, append their results, call the model again. */
async function continueTurn(local: LocalStore, continuationId: string) {
  const continuation = await storeOn(local).getContinuation({ tenant: TENANT, runId: RUN_ID, continuationId });
  const results = [];
  for (const call of continuation.dispatch) {
    // `call.args` are the lead's edited args (the transcript's tool-call part carries them too). Only
    // `refund_order` needs approval here; with more such tools, look the tool up by `call.name`.
    results.push({ toolCallId: call.toolCallId, output: await refundOrder(refundInput.parse(call.args)) });
  }
  // The SDK's own schema checks (and types) the rebuilt messages before they go back to `generateText`.
  const messages = z.array(modelMessageSchema).parse(appendResults('ai-sdk', continuation.messages, results));
  const step = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
  return { dispatched: continuation.dispatch, messages, text: step.text };
}

export async function main() {
  const local = await startLocalStore();
  try {
    const trace: string[] = [];
    const paused = await startTurn(local, 'Order A-1042 arrived broken. Refund me, please.');
    // Only the table holds the turn now: this process may end here, and the rest happen days later, elsewhere.
    trace.push(`paused ${paused.runId}: asks ${paused.asks.join(', ')} (lookup_order already ran)`);

    // Two people decide, each in their own request (from the inbox page or the HTTP API; here the store itself).
    const key = { tenant: TENANT, runId: RUN_ID, interruptId: paused.interruptId };
    const { asks } = await storeOn(local).getPause(key);
    const askFor = (name: string) => asks.find((ask) => ask.name === name)?.toolCallId ?? '';
    const answer = { toolCallId: askFor('ask_human'), answer: 'yes' };
    const customer = await storeOn(local).decide({ ...key, decisions: [answer] });
    trace.push(`the customer answered; still pending: ${customer.kind === 'pending' ? customer.pending : 'none'}`);
    const edit = {
      toolCallId: askFor('refund_order'),
      decision: 'edit',
      args: { orderId: 'A-1042', amount: 80 },
    } as const;
    const lead = await storeOn(local).decide({ ...key, decisions: [edit] });
    if (lead.kind !== 'closed') throw new Error(`Still waiting for ${lead.pending}.`);
    trace.push(`the lead approved 80 instead of 120: ${lead.outcome}, continuation ${lead.continuationId}`);

    const turn = await continueTurn(local, lead.continuationId);
    for (const call of turn.dispatched) trace.push(`ran ${call.name} ${JSON.stringify(call.args)}`);
    trace.push(`model: ${turn.text}`);
    return { trace, ...turn };
  } finally {
    await local.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { trace } = await main();
  for (const line of trace) console.log(line);
}
