/**
 * Handback with the OpenAI SDK: a plain tool loop over `client.chat.completions.create` (format `openai-chat`).
 * - The loop runs ordinary tools (`lookup_order`) itself and appends their results with `appendResults`; when the
 *   model also calls a tool that needs a person, the turn pauses with an ask for each such call.
 * - Run 1: the customer answers `ask_human`, the lead approves `refund_order` with a smaller amount; the next
 *   invocation runs the refund with the edited args, appends its result and finishes the loop.
 * - Run 2: nobody decides. The pause says `onExpiry: 'reject'`, so at `expiresAt` the sweep (`closeDue`, which
 *   Handback's scheduler runs) rejects both asks and commits the continuation with `outcome: 'expired'`.
 * Offline: the client's `fetch` answers from a script, so the SDK's own code parses every reply.
 *
 * Run: npx tsx examples/openai.ts
 */
import { pathToFileURL } from 'node:url';
import { type AskInput, appendResults } from 'handback';
import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
import { type LocalStore, startLocalStore } from 'handback/local';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

type Message = ChatCompletionMessageParam;
const fn = (name: string, properties: Record<string, unknown>): ChatCompletionTool => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties, required: Object.keys(properties) } },
});
const tools = [
  fn('lookup_order', { orderId: { type: 'string' } }),
  fn('ask_human', { question: { type: 'string' } }),
  fn('refund_order', { orderId: { type: 'string' }, amount: { type: 'number' } }),
];
const NEEDS_A_PERSON = new Set(['ask_human', 'refund_order']);
/** The tools the agent runs: lookups at once, refunds only once approved. */
const run: Record<string, (args: Record<string, unknown>) => unknown> = {
  lookup_order: ({ orderId }) => ({ orderId, status: 'delivered', total: 120 }),
  refund_order: ({ orderId, amount }) => ({ refundId: 'rf_1', orderId, amount }),
};

/** The scripted model: three parallel calls for a new request, then a line per tool result it was sent. */
function script(messages: Message[]) {
  const orderId = /A-\d+/.exec(String(messages[0]?.content))?.[0];
  const call = (id: string, name: string, args: object) => ({
    id,
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  });
  if (messages.at(-1)?.role === 'user') {
    const tool_calls = [
      call('call_lookup', 'lookup_order', { orderId }),
      call('call_ask', 'ask_human', { question: 'Send a replacement as well?' }),
      call('call_refund', 'refund_order', { orderId, amount: 120 }),
    ];
    return { message: { role: 'assistant', content: null, tool_calls }, finish_reason: 'tool_calls' };
  }
  const said = messages.map((m) =>
    m.role === 'tool' ? `${m.tool_call_id}: ${String(m.content).split('\n').at(-1)}` : [],
  );
  return { message: { role: 'assistant', content: said.flat().join(' | ') }, finish_reason: 'stop' };
}
/** Offline: `fetch` answers every request from the script, in the wire format the SDK parses. */
const fetch = async (_url: unknown, init?: RequestInit) => {
  const choice = { index: 0, logprobs: null, ...script(JSON.parse(String(init?.body)).messages) };
  return Response.json({ id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'm', choices: [choice] });
};
const openai = new OpenAI({ apiKey: 'offline', fetch, maxRetries: 0 });

/** A call of the model's, decoded. */
type Call = { toolCallId: string; name: string; args: Record<string, unknown> };
/** Runs calls with the agent's own tools, as results for `appendResults`. */
const runCalls = (calls: Call[]) => calls.map((c) => ({ toolCallId: c.toolCallId, output: run[c.name]?.(c.args) }));

/** The loop: call the model, run its ordinary calls, and stop when it is done or when some call needs a person. */
async function agentLoop(messages: Message[]): Promise<{ messages: Message[]; text?: string; asks?: AskInput[] }> {
  for (;;) {
    const completion = await openai.chat.completions.create({ model: 'gpt-4.1', messages, tools });
    const reply = completion.choices[0]?.message;
    if (reply === undefined) throw new Error('The model sent no choice.');
    const calls = (reply.tool_calls ?? []).flatMap((c): Call[] =>
      c.type === 'function'
        ? [{ toolCallId: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) }]
        : [],
    );
    if (calls.length === 0) return { messages: [...messages, reply], text: reply.content ?? '' };
    const own = runCalls(calls.filter((c) => !NEEDS_A_PERSON.has(c.name)));
    messages = appendResults('openai-chat', [...messages, reply], own) as Message[];
    const asks = calls
      .filter((c) => NEEDS_A_PERSON.has(c.name))
      .map(
        ({ toolCallId, name, args }): AskInput =>
          name === 'ask_human'
            ? { toolCallId, prompt: String(args.question), answerSchema: { enum: ['yes', 'no'] } }
            : { toolCallId, kind: 'approval', prompt: `Refund ${JSON.stringify(args)}?` },
      );
    if (asks.length > 0) return { messages, asks };
  }
}

const TENANT = 'acme';
/** A store built afresh from the table, as each Lambda invocation would: nothing is kept in memory between them. */
const storeOn = (local: LocalStore, clock?: () => Date) =>
  createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName, ...(clock && { clock }) });

/** Invocation 1: run the loop; if it stops on asks, pause. Asks nobody decides are rejected after an hour. */
async function startTurn(local: LocalStore, runId: string, userText: string) {
  const { messages, asks } = await agentLoop([{ role: 'user', content: userText }]);
  if (asks === undefined) throw new Error('This story always needs a person; a real agent would reply here.');
  const closing = { expiresInSeconds: 3600, onExpiry: 'reject' } as const;
  return storeOn(local).pause({ tenant: TENANT, runId, format: 'openai-chat', messages, asks, ...closing });
}

/** Invocation 2, from the hand-off's pointer, whatever the outcome: run what was approved, then go on with the loop. */
async function continueTurn(local: LocalStore, runId: string, continuationId: string) {
  const continuation = await storeOn(local).getContinuation({ tenant: TENANT, runId, continuationId });
  // `expired` and `cancelled` leave nothing to run, and every ask carries the rejection and its reason, so the model
  // can tell the customer. An agent that must not go on without a person would stop here instead.
  const { outcome, dispatch } = continuation;
  const messages = appendResults('openai-chat', continuation.messages, runCalls(dispatch as Call[])) as Message[];
  const { text = '' } = await agentLoop(messages);
  return { outcome, dispatched: dispatch, messages, text };
}

export async function main() {
  const local = await startLocalStore();
  try {
    const trace: string[] = [];
    // Run 1: two people decide, in two requests; the second one closes the pause.
    const first = await startTurn(local, 'ticket-1042', 'Order A-1042 arrived broken. Refund me, please.');
    // Only the table holds the turn now: this process may end here, and the rest happen days later, elsewhere.
    trace.push(`paused ticket-1042: asks ${first.asks.join(', ')}; lookup_order already ran`);
    const key = { tenant: TENANT, runId: 'ticket-1042', interruptId: first.interruptId };
    const [askId = '', refundId = ''] = first.asks; // in the order given: ask_human, refund_order
    await storeOn(local).decide({ ...key, decisions: [{ toolCallId: askId, answer: 'no' }] });
    const edit = { toolCallId: refundId, decision: 'edit', args: { orderId: 'A-1042', amount: 80 } } as const;
    const lead = await storeOn(local).decide({ ...key, decisions: [edit] });
    if (lead.kind !== 'closed') throw new Error(`Still waiting for ${lead.pending}.`);
    const approved = await continueTurn(local, 'ticket-1042', lead.continuationId);
    for (const call of approved.dispatched) trace.push(`ran ${call.name} ${JSON.stringify(call.args)}`);
    trace.push(`${approved.outcome}; model: ${approved.text}`);

    // Run 2: nobody decides; two hours later the sweep closes the pause.
    const second = await startTurn(local, 'ticket-2077', 'Order A-2077 never came. Refund me, please.');
    trace.push(`paused ticket-2077 until ${second.expiresAt}`);
    const later = new Date(Date.parse(second.expiresAt) + 3600_000);
    const { closed } = await storeOn(local, () => later).closeDue();
    const sweep = closed.find((c) => c.runId === 'ticket-2077');
    if (sweep === undefined) throw new Error('The sweep should have closed ticket-2077.');
    const expired = await continueTurn(local, 'ticket-2077', sweep.continuationId);
    trace.push(`${expired.outcome}; model: ${expired.text}`);
    return { trace, approved, expired };
  } finally {
    await local.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { trace } = await main();
  for (const line of trace) console.log(line);
}
