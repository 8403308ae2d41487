import type { ResumeResult } from '../checkpoints/checkpoint-store.ts';
import { type Handoff, type HandoffPointer, handoffPointer } from '../handoff/handoff.ts';
import { appendResults } from '../rehydrate/results.ts';
import * as S from '../settings.ts';
import { localEnvironment } from './config.ts';
import { startLocalService } from './service.ts';

/**
 * `npm run demo`: one agent turn end to end, offline, with a scripted model. The model asks a person a question and
 * makes two calls with side effects at once; the turn pauses with three asks; two people decide over the HTTP API —
 * Alice answers and approves the refund with a smaller amount, Bob rejects the email with a reason; the continuation
 * is handed off; the agent runs what was approved (with the edited args), appends the results with `appendResults`,
 * and the model finishes.
 */

type Message = Record<string, unknown> & { role: string };
type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

const RUN_ID = `demo-${Date.now()}`;

function call(id: string, name: string, args: unknown): ToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/** The scripted model (Chat Completions shape): one round of three calls, then an answer from their results. */
function fakeModel(messages: readonly Message[]): Message {
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'tool') results.set(String(message.tool_call_id), String(message.content));
  }
  if (results.size === 0) {
    return {
      role: 'assistant',
      content: 'I will ask how much to refund, refund it and tell the customer.',
      tool_calls: [
        call('call_ask', 'ask_human', { question: 'Full or partial refund of order A-1042?' }),
        call('call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }),
        call('call_email', 'send_email', { to: 'customer@example.com', body: 'Your refund of EUR 120 is on its way.' }),
      ],
    };
  }
  const refund = results.get('call_refund') ?? '';
  const email = results.get('call_email') ?? '';
  return {
    role: 'assistant',
    content: `Done: ${refund}. ${email.startsWith('Not run') ? `I did not email the customer: ${email.split('Reason: ')[1] ?? 'a person declined it.'}` : 'The customer was emailed.'}`,
  };
}

/** The tools the agent runs itself, once a person allowed them. */
const tools: Record<string, (args: Record<string, unknown>) => string> = {
  refund_order: (args) => `refunded EUR ${String(args.amount)} on order ${String(args.orderId)}`,
  send_email: (args) => `emailed ${String(args.to)}`,
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
        ? `#${String(message.tool_call_id)} → ${String(message.content).split('\n').join(' / ')}`
        : String(message.content);
    console.log(`  ${index}. ${message.role.padEnd(9)} ${text}`);
  }
}

async function http(
  who: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as Record<string, unknown>;
  console.log(`  ${who.padEnd(6)} ${method} ${new URL(url).pathname} → ${response.status}`);
  if (!response.ok) throw new Error(`${method} ${url} failed: ${JSON.stringify(json)}`);
  return { status: response.status, body: json };
}

// The hand-off target of the demo: an in-process queue the agent's next invocation reads.
const handedOff: HandoffPointer[] = [];
const demoHandoff: Handoff = {
  async deliver(result: ResumeResult) {
    handedOff.push(handoffPointer(result));
  },
};

const service = await startLocalService(
  localEnvironment({
    [S.port.env]: '0',
    [S.host.env]: '127.0.0.1',
    [S.logLevel.env]: 'WARN',
    [S.jwtSecret.env]: '',
  }),
  { handoff: demoHandoff },
);
try {
  console.log(`Handback demo: local service on ${service.url}, run ${RUN_ID}`);

  // 1. The agent's first invocation: the model asks a question and wants two calls with side effects.
  const messages: Message[] = [
    { role: 'system', content: 'You are a support agent. Refunds and emails need a person to allow them.' },
    { role: 'user', content: 'My order A-1042 arrived broken. Please refund it.' },
  ];
  messages.push(fakeModel(messages));
  show('1. the model asks a question and calls refund_order and send_email', messages);
  const paused = await http('agent', 'POST', `${service.url}/runs/${RUN_ID}/pauses`, {
    format: 'openai-chat',
    messages,
    asks: [
      {
        toolCallId: 'call_ask',
        kind: 'answer',
        prompt: 'Full or partial refund?',
        answerSchema: { enum: ['full', 'partial'] },
      },
      {
        toolCallId: 'call_refund',
        kind: 'approval',
        prompt: 'Refund order A-1042?',
        argsSchema: {
          type: 'object',
          properties: { orderId: { const: 'A-1042' }, amount: { type: 'number', exclusiveMinimum: 0, maximum: 120 } },
          required: ['orderId', 'amount'],
        },
      },
      { toolCallId: 'call_email', kind: 'approval', prompt: 'Email the customer?' },
    ],
  });
  const interruptId = String(paused.body.interruptId);
  console.log(`  paused with three asks (${interruptId}); the agent's Lambda can now end`);

  // 2. Alice, later: answers the question and approves the refund with a smaller amount.
  const alice = await http('alice', 'POST', `${service.url}/runs/${RUN_ID}/resume`, {
    interruptId,
    decisions: [
      { toolCallId: 'call_ask', answer: 'partial' },
      { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 60 } },
    ],
  });
  console.log(`  recorded; still waiting for ${JSON.stringify(alice.body.pending)}`);

  // 3. Bob, from another desk: rejects the email, with a reason. His decision is the last: it commits the continuation.
  const bob = await http('bob', 'POST', `${service.url}/runs/${RUN_ID}/resume`, {
    interruptId,
    decisions: [{ toolCallId: 'call_email', decision: 'reject', reason: 'Bob will call the customer instead.' }],
  });
  console.log(`  resumed: dispatch ${JSON.stringify(bob.body.dispatch)}`);

  // 4. The hand-off wakes the agent: it runs what was approved, appends the results, and the model goes on.
  const pointer = handedOff.shift();
  if (pointer === undefined) throw new Error('nothing was handed off');
  const continuation = pointer.messages ?? [];
  show('2. the continuation: the answer, the edited refund (to run), the rejected email', continuation as Message[]);
  const ran = pointer.dispatch.map((call) => ({
    toolCallId: call.toolCallId,
    output: tools[call.name]?.(call.args as Record<string, unknown>) ?? `unknown tool ${call.name}`,
  }));
  const next = appendResults(pointer.format, continuation, ran) as Message[];
  next.push(fakeModel(next));
  show('3. the agent ran the refund with the edited amount; the model finishes', next);
} finally {
  await service.close();
}
