import type { ResumeResult } from '../checkpoints/checkpoint-store.ts';
import { type Handoff, type HandoffPointer, handoffPointer } from '../handoff/handoff.ts';
import { startLocalService } from './service.ts';

/**
 * `npm run demo`: a scripted agent turn end to end, with a deterministic fake model and no network beyond 127.0.0.1.
 * The model calls `lookup_order`, `ask_human` and `notify` at once; `ask_human` needs a person, so the turn pauses
 * through the HTTP API; a person answers through the HTTP API; the continuation is handed off; the agent finishes.
 */

type Message = Record<string, unknown> & { role: string };
type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

const RUN_ID = `demo-${Date.now()}`;

/** The fake model: the same messages always give the same reply (openai-chat Chat Completions shape). */
function fakeModel(messages: readonly Message[]): Message {
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'tool') results.set(String(message.tool_call_id), String(message.content));
  }
  const calls = messages.flatMap((message) => (message.tool_calls as ToolCall[] | undefined) ?? []);
  const resultOf = (name: string) =>
    calls
      .filter((call) => call.function.name === name)
      .map((call) => results.get(call.id))
      .filter((r) => r !== undefined)
      .at(-1);
  const approval = resultOf('ask_human');
  if (approval === undefined) {
    return {
      role: 'assistant',
      content: null,
      tool_calls: [
        call('call_lookup_1', 'lookup_order', { orderId: 'A-1042' }),
        call('call_ask_1', 'ask_human', { question: 'Refund order A-1042 (EUR 120)?' }),
        call('call_notify_1', 'notify', { channel: '#support', text: 'Refund for A-1042 is waiting for approval.' }),
      ],
    };
  }
  const order = resultOf('lookup_order');
  const notified = resultOf('notify');
  const notRun = (text: string | undefined) => text === undefined || text.startsWith('Not run:');
  if (notRun(order) || notRun(notified)) {
    // The calls that were not dispatched at the pause are made again, now that a person has answered.
    return {
      role: 'assistant',
      content: null,
      tool_calls: [
        call('call_lookup_2', 'lookup_order', { orderId: 'A-1042' }),
        call('call_notify_2', 'notify', { channel: '#support', text: `Refund decision for A-1042: ${approval}` }),
      ],
    };
  }
  const { approve } = JSON.parse(approval) as { approve: boolean };
  return {
    role: 'assistant',
    content: approve ? 'Order A-1042 is refunded (EUR 120); #support was told.' : 'The refund of A-1042 was declined.',
  };
}

function call(id: string, name: string, args: unknown): ToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/** The tools the agent runs itself; `ask_human` is the one it cannot. */
const tools: Record<string, (args: Record<string, unknown>) => string> = {
  lookup_order: (args) => JSON.stringify({ orderId: args.orderId, total: 120, currency: 'EUR', status: 'delivered' }),
  notify: (args) => `posted to ${String(args.channel)}`,
};

function show(step: string, messages: readonly Message[]): void {
  console.log(`\n== ${step} (${messages.length} messages)`);
  for (const [index, message] of messages.entries()) {
    const calls = (message.tool_calls as ToolCall[] | undefined)?.map(
      (c) => `${c.function.name}(${c.function.arguments}) #${c.id}`,
    );
    const text = calls
      ? `calls ${calls.join(', ')}`
      : message.role === 'tool'
        ? `#${String(message.tool_call_id)} → ${String(message.content)}`
        : String(message.content);
    console.log(`  ${index}. ${message.role.padEnd(9)} ${text}`);
  }
}

/** Runs the model until it pauses for `ask_human` (returns the pause body) or answers (returns undefined). */
function runAgent(messages: Message[]): { messages: Message[]; askHuman?: ToolCall } {
  for (;;) {
    const reply = fakeModel(messages);
    messages.push(reply);
    const calls = (reply.tool_calls as ToolCall[] | undefined) ?? [];
    if (calls.length === 0) return { messages };
    const askHuman = calls.find((c) => c.function.name === 'ask_human');
    if (askHuman !== undefined) return { messages, askHuman };
    for (const c of calls) {
      messages.push({
        role: 'tool',
        tool_call_id: c.id,
        content: tools[c.function.name]?.(JSON.parse(c.function.arguments)) ?? 'unknown tool',
      });
    }
  }
}

async function http(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as Record<string, unknown>;
  console.log(`  ${method} ${new URL(url).pathname}${new URL(url).search} → ${response.status}`);
  if (!response.ok) throw new Error(`${method} ${url} failed: ${JSON.stringify(json)}`);
  return json;
}

// The hand-off target of the demo: an in-process queue the agent's next invocation reads.
const handedOff: HandoffPointer[] = [];
const demoHandoff: Handoff = {
  async deliver(result: ResumeResult) {
    handedOff.push(handoffPointer(result));
  },
};

const service = await startLocalService(
  { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'WARN', HANDBACK_JWT_SECRET: '' },
  { handoff: demoHandoff },
);
try {
  console.log(`Handback demo: local service on ${service.url}, run ${RUN_ID}`);

  // 1. The agent's first invocation: the model asks for three tools at once, one of them a person.
  const first = runAgent([
    { role: 'system', content: 'You are a support agent. Refunds need a person to approve them.' },
    { role: 'user', content: 'Please refund my order A-1042.' },
  ]);
  show('1. the model calls lookup_order, ask_human and notify', first.messages);
  if (first.askHuman === undefined) throw new Error('the fake model did not ask a person');
  const paused = await http('POST', `${service.url}/runs/${RUN_ID}/pauses`, {
    format: 'openai-chat',
    messages: first.messages,
    toolCallId: first.askHuman.id,
    prompt: 'Refund order A-1042 (EUR 120)?',
    answerSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
    metadata: { ticket: 'SUP-7' },
  });
  console.log(`  paused: interruptId ${String(paused.interruptId)}; the agent's Lambda can now end`);

  // 2. A person, later: lists what waits for them and answers.
  const waiting = await http('GET', `${service.url}/pauses?status=paused`);
  const pause = (waiting.items as Array<Record<string, unknown>>).find((item) => item.runId === RUN_ID);
  console.log(`  the person sees: "${String(pause?.prompt)}"`);
  const resumed = await http('POST', `${service.url}/runs/${RUN_ID}/resume`, {
    interruptId: paused.interruptId,
    answer: { approve: true },
  });
  show('2. rebuilt after the answer (lookup_order and notify were not dispatched)', resumed.messages as Message[]);

  // 3. The hand-off wakes the agent's next invocation with the pointer; it reads the continuation and finishes.
  const pointer = handedOff.shift();
  if (pointer === undefined) throw new Error('nothing was handed off');
  console.log(
    `\n  handed off: ${JSON.stringify({ ...pointer, messages: pointer.messages ? `[${pointer.messages.length} messages]` : undefined })}`,
  );
  const continuation = await http('GET', `${service.url}/runs/${RUN_ID}/continuations/${pointer.continuationId}`);
  const last = runAgent([...(continuation.messages as Message[])]);
  show('3. the agent finishes its turn', last.messages);
} finally {
  await service.close();
}
