import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  AIMessage,
  type BaseMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
  ToolMessage,
} from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHandbackToolExecutions, langgraphHandback } from '../../functions/adapters/langgraph.ts';
import { checkTranscript } from '../../functions/rehydrate/check-transcript.ts';
import { REJECTED } from '../../functions/rehydrate/texts.ts';
import { type Backend, httpBackend, localStoreBackend } from './backends.ts';

type Call = { id: string; name: string; args: Record<string, unknown> };
const LOOKUP: Call = { id: 'call_lookup', name: 'lookup_order', args: { orderId: 'A-1042' } };
const ASK: Call = { id: 'call_ask', name: 'ask_human', args: { question: 'Send a replacement?' } };
const REFUND: Call = { id: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 120 } };
const EMAIL: Call = { id: 'call_email', name: 'send_email', args: { to: 'customer@example.com' } };

/** A scripted chat model: `round` for a new request, then a line of the tool results it was given. */
class ScriptedChatModel extends BaseChatModel {
  readonly inputs: BaseMessage[][] = [];
  constructor(private readonly round: Call[]) {
    super({});
  }
  _llmType() {
    return 'scripted';
  }
  // A real chat model sends the tools' schemas to its provider; the script knows them already.
  override bindTools() {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.inputs.push(messages);
    const reply =
      messages.at(-1)?.type === 'human'
        ? new AIMessage({ content: '', tool_calls: this.round })
        : new AIMessage(
            messages
              .filter((m) => ToolMessage.isInstance(m))
              .map((m) => `${(m as ToolMessage).tool_call_id}: ${m.content}`)
              .join(' | '),
          );
    return { generations: [{ message: reply, text: String(reply.content) }] };
  }
}

/** The agent (`createAgent` with the human-in-the-loop middleware, on a MemorySaver), its tools counting their runs. */
function story(round: Call[]) {
  const runs = { lookup_order: 0, ask_human: 0, refund_order: 0, send_email: 0 };
  const refunds: unknown[] = [];
  const counted = <T extends z.ZodObject>(name: keyof typeof runs, schema: T, output: (args: z.infer<T>) => string) =>
    tool(
      async (args: z.infer<T>) => {
        runs[name]++;
        return output(args);
      },
      { name, description: name, schema },
    );
  const tools = [
    counted('lookup_order', z.object({ orderId: z.string() }), (args) => JSON.stringify({ ...args, total: 120 })),
    counted('ask_human', z.object({ question: z.string() }), () => 'never: a person answers this call'),
    counted('refund_order', z.object({ orderId: z.string(), amount: z.number() }), (args) => {
      refunds.push(args);
      return JSON.stringify({ refundId: 'rf_1', ...args });
    }),
    counted('send_email', z.object({ to: z.string() }), () => 'sent'),
  ];
  const model = new ScriptedChatModel(round);
  const refundSchema = { type: 'object', properties: { orderId: { type: 'string' }, amount: { type: 'number' } } };
  const agent = createAgent({
    model,
    tools,
    checkpointer: new MemorySaver(),
    middleware: [
      humanInTheLoopMiddleware({
        interruptOn: {
          ask_human: { allowedDecisions: ['reject'], description: 'Ask the customer' },
          refund_order: { allowedDecisions: ['approve', 'edit', 'reject'], argsSchema: refundSchema },
          send_email: { allowedDecisions: ['approve', 'reject'] },
        },
      }),
    ],
  });
  return { agent, model, runs, refunds };
}

const backends: Array<[string, () => Promise<Backend>]> = [
  ['the local store', localStoreBackend],
  ['handback/client against the local service', httpBackend],
];

describe.each(backends)('handback/langgraph claiming through Handback (§19), through %s', (_, start) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await start();
  });
  afterAll(() => backend.close());

  it('claims each approved call before the graph runs them, ends each claim; a delivery at once sends nothing', async () => {
    const { agent, runs } = story([REFUND, EMAIL]);
    const executions = createHandbackToolExecutions(backend.claims);
    const handback = langgraphHandback({ handback: backend.handback, graph: agent, executions });
    const runId = `graph-claims-${Date.now()}`;
    const config = { configurable: { thread_id: runId } };
    await agent.invoke({ messages: [{ role: 'user', content: 'Order A-1042 arrived broken. Refund me.' }] }, config);
    const { interruptId } = await handback.pause(config, { runId });
    const continuationId =
      (await backend.decide(runId, interruptId, [
        { toolCallId: 'call_refund', decision: 'approve' },
        { toolCallId: 'call_email', decision: 'approve' },
      ])) ?? '';
    const key = { tenant: backend.tenant, runId, interruptId };
    expect((await backend.store.getPause(key)).asks.map((ask) => ask.execution?.status)).toEqual([
      'waiting',
      'waiting',
    ]);
    const both = await Promise.all([
      handback.resume({ runId, continuationId }),
      handback.resume({ runId, continuationId }),
    ]);
    expect(both.map((resumed) => resumed.status).sort()).toEqual(['already-resumed', 'resumed']);
    expect(runs).toMatchObject({ refund_order: 1, send_email: 1 });
    expect((await backend.store.getPause(key)).asks.map((ask) => ask.execution?.status)).toEqual([
      'succeeded',
      'succeeded',
    ]);
  });
});

describe.each(backends)('handback/langgraph through %s', (_, start) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await start();
  });
  afterAll(() => backend.close());

  let threads = 0;
  /** One thread interrupted by the middleware and paused by the adapter. */
  async function paused(round: Call[], pauseOptions: { expiresInSeconds?: number; onExpiry?: 'reject' } = {}) {
    const { agent, model, runs, refunds } = story(round);
    const handback = langgraphHandback({
      handback: backend.handback,
      graph: agent,
      asks: { ask_human: { kind: 'answer', answerSchema: { enum: ['yes', 'no'] } } },
    });
    const runId = `graph-${++threads}`;
    const config = { configurable: { thread_id: runId } };
    await agent.invoke({ messages: [{ role: 'user', content: 'Order A-1042 arrived broken. Refund me.' }] }, config);
    const created = await handback.pause(config, { runId, ...pauseOptions });
    const resume = (continuationId: string | undefined) =>
      handback.resume({ runId, continuationId: continuationId ?? '' });
    return { runId, interruptId: created.interruptId, created, agent, model, runs, refunds, resume };
  }
  /** The thread's tool messages, by call id. */
  const toolMessages = (values: unknown) =>
    Object.fromEntries(
      ((values as { messages: BaseMessage[] }).messages ?? [])
        .filter((m) => ToolMessage.isInstance(m))
        .map((m) => [(m as ToolMessage).tool_call_id, m as ToolMessage]),
    );

  it('pauses the interrupt as one pause: one ask per action request, with its args, editable as the middleware allows', async () => {
    const { runId, interruptId, created, runs } = await paused([LOOKUP, REFUND, EMAIL]);
    expect(created.asks).toEqual(['call_refund', 'call_email']);
    const view = await backend.store.getPause(
      { tenant: backend.tenant, runId, interruptId },
      { includeMessages: true },
    );
    expect(view.format).toBe('langchain');
    expect(view.asks).toMatchObject([
      {
        toolCallId: 'call_refund',
        kind: 'approval',
        args: REFUND.args,
        editable: true,
        argsSchema: { type: 'object' },
      },
      { toolCallId: 'call_email', kind: 'approval', args: EMAIL.args, editable: false },
    ]);
    // Nothing ran yet: the middleware stops the whole round before the tools node.
    expect(runs).toEqual({ lookup_order: 0, ask_human: 0, refund_order: 0, send_email: 0 });
    // The round's three calls wait for results, and nothing else is amiss.
    const rules = checkTranscript('langchain', view.messages ?? []).map((v) => v.rule);
    expect(new Set(rules)).toEqual(new Set(['missing-result']));
  });

  it('approves in the middleware terms: the graph runs the approved call once, and the model reads its result', async () => {
    const { interruptId, runId, runs, resume } = await paused([LOOKUP, REFUND]);
    const continuationId = await backend.decide(runId, interruptId, [
      { toolCallId: 'call_refund', decision: 'approve' },
    ]);
    const resumed = await resume(continuationId);
    expect(Object.values(resumed.resume)).toEqual([{ decisions: [{ type: 'approve' }] }]);
    expect(runs).toMatchObject({ lookup_order: 1, refund_order: 1 });
    const last = (resumed.values as { messages: BaseMessage[] }).messages.at(-1);
    expect(last?.content).toBe(
      'call_lookup: {"orderId":"A-1042","total":120} | call_refund: {"refundId":"rf_1","orderId":"A-1042","amount":120}',
    );
  });

  it("edits with the middleware's editedAction: the graph runs the call with the person's args", async () => {
    const { interruptId, runId, refunds, resume } = await paused([LOOKUP, REFUND]);
    const edit = { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 80 } } as const;
    const resumed = await resume(await backend.decide(runId, interruptId, [edit]));
    expect(Object.values(resumed.resume)).toEqual([
      {
        decisions: [{ type: 'edit', editedAction: { name: 'refund_order', args: { orderId: 'A-1042', amount: 80 } } }],
      },
    ]);
    expect(refunds).toEqual([{ orderId: 'A-1042', amount: 80 }]);
  });

  it("rejects with the middleware's message: the call never runs, and its tool message carries the reason", async () => {
    const { interruptId, runId, runs, resume } = await paused([REFUND]);
    const reason = 'Refunds over 100 need a photo.';
    const reject = { toolCallId: 'call_refund', decision: 'reject', reason } as const;
    const resumed = await resume(await backend.decide(runId, interruptId, [reject]));
    expect(runs.refund_order).toBe(0);
    expect(toolMessages(resumed.values).call_refund).toMatchObject({
      status: 'error',
      content: `${REJECTED}\nReason: ${reason}`,
    });
  });

  it("answers an answer ask as the middleware's reject message: the tool never runs, the model reads the answer", async () => {
    const { interruptId, runId, runs, resume, created } = await paused([ASK]);
    expect(created.asks).toEqual(['call_ask']);
    const resumed = await resume(await backend.decide(runId, interruptId, [{ toolCallId: 'call_ask', answer: 'yes' }]));
    expect(runs.ask_human).toBe(0);
    expect(toolMessages(resumed.values).call_ask?.content).toBe('yes');
    expect((resumed.values as { messages: BaseMessage[] }).messages.at(-1)?.content).toBe('call_ask: yes');
  });

  it('takes two people deciding in two requests, then runs each approved call once', async () => {
    const { interruptId, runId, runs, resume } = await paused([REFUND, EMAIL]);
    expect(
      await backend.decide(runId, interruptId, [{ toolCallId: 'call_refund', decision: 'approve' }]),
    ).toBeUndefined();
    const continuationId = await backend.decide(runId, interruptId, [
      { toolCallId: 'call_email', decision: 'approve' },
    ]);
    await resume(continuationId);
    expect(runs).toMatchObject({ refund_order: 1, send_email: 1 });
  });

  it('runs nothing after a cancel: every action is rejected with the reason', async () => {
    const { interruptId, runId, runs, resume } = await paused([REFUND, EMAIL]);
    await backend.decide(runId, interruptId, [{ toolCallId: 'call_refund', decision: 'approve' }]);
    const resumed = await resume(await backend.cancel(runId, interruptId, 'The customer withdrew.'));
    expect(resumed.continuation.outcome).toBe('cancelled');
    expect(runs).toMatchObject({ refund_order: 0, send_email: 0 });
    expect(Object.values(resumed.resume)[0]?.decisions).toEqual([
      { type: 'reject', message: expect.stringMatching(/Reason: The customer withdrew\.$/) },
      { type: 'reject', message: expect.stringMatching(/Reason: The customer withdrew\.$/) },
    ]);
  });

  it('runs nothing when no one decided before the expiry', async () => {
    const { interruptId, runId, runs, resume } = await paused([REFUND], { expiresInSeconds: 1, onExpiry: 'reject' });
    const resumed = await resume(await backend.expire(runId, interruptId));
    expect(resumed.continuation.outcome).toBe('expired');
    expect(runs.refund_order).toBe(0);
    expect(String(toolMessages(resumed.values).call_refund?.content)).toContain('Reason: No one decided before');
  });

  it('runs an approved tool once when the hand-off is delivered twice, at once and later', async () => {
    const { interruptId, runId, runs, resume } = await paused([REFUND]);
    const continuationId = await backend.decide(runId, interruptId, [
      { toolCallId: 'call_refund', decision: 'approve' },
    ]);
    const [first, second] = await Promise.all([resume(continuationId), resume(continuationId)]);
    const third = await resume(continuationId);
    expect(runs.refund_order).toBe(1);
    expect(Object.keys(first.resume).length + Object.keys(second.resume).length).toBeGreaterThanOrEqual(1);
    expect(third.resume).toEqual({});
    expect(toolMessages(third.values).call_refund?.content).toBe('{"refundId":"rf_1","orderId":"A-1042","amount":120}');
  });

  it("keeps transcripts LangChain reads back and the model's next request passes the strict check", async () => {
    const { interruptId, runId, model, resume } = await paused([LOOKUP, REFUND]);
    const edit = { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 80 } } as const;
    const resumed = await resume(await backend.decide(runId, interruptId, [edit]));
    const stored = resumed.continuation.messages as StoredMessage[];
    expect(mapChatMessagesToStoredMessages(mapStoredMessagesToChatMessages(stored))).toEqual(stored);
    const sent = mapChatMessagesToStoredMessages(model.inputs.at(-1) ?? []);
    expect(checkTranscript('langchain', sent)).toEqual([]);
    expect(sent[1]).toMatchObject({ type: 'ai', data: { tool_calls: [LOOKUP, { ...REFUND, args: edit.args }] } });
  });
});
