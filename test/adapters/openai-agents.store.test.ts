import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { OpenAIResponsesModel } from '@openai/agents-openai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AlreadyClaimedError,
  createHandbackToolExecutions,
  openaiAgentsHandback,
} from '../../functions/adapters/openai-agents.ts';
import { checkTranscript } from '../../functions/rehydrate/check-transcript.ts';
import { REJECTED } from '../../functions/rehydrate/texts.ts';
import { type Backend, httpBackend, localStoreBackend } from './backends.ts';

setTracingDisabled(true);

/** The story of every case: a refund request; the model calls lookup_order, ask_human and refund_order at once. */
const ROUND = [
  { id: 'fc_1', callId: 'call_lookup', name: 'lookup_order', arguments: '{"orderId":"A-1042"}' },
  { id: 'fc_2', callId: 'call_ask', name: 'ask_human', arguments: '{"question":"Send a replacement?"}' },
  { id: 'fc_3', callId: 'call_refund', name: 'refund_order', arguments: '{"orderId":"A-1042","amount":120}' },
].map((call) => ({ type: 'function_call' as const, status: 'completed' as const, ...call }));

/** Each result the model was given, as `call_id: text`. */
function resultsSeen(input: AgentInputItem[]): string {
  return input
    .flatMap((item) => (item.type === 'function_call_result' ? [`${item.callId}: ${textOf(item.output)}`] : []))
    .join(' | ');
}

/** A result's output as the SDK's text output carries it. */
function textOf(output: unknown): string {
  const text = output as { type?: string; text?: string };
  return text.type === 'text' ? String(text.text) : JSON.stringify(output);
}

/** A scripted `Model` of the Agents SDK: the round for a new request, then a line of the results it was given. */
class ScriptedModel implements Model {
  readonly inputs: AgentInputItem[][] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = typeof request.input === 'string' ? [] : request.input;
    this.inputs.push(input);
    const last = input.at(-1);
    if (typeof request.input === 'string' || (last !== undefined && 'role' in last && last.role === 'user')) {
      return { usage: new Usage(), responseId: 'resp_1', output: ROUND };
    }
    const text = resultsSeen(input);
    return {
      usage: new Usage(),
      responseId: 'resp_2',
      output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }],
    };
  }
  // biome-ignore lint/correctness/useYield: the tests never stream
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('The scripted model does not stream.');
  }
}

/** The agent, its tools counting their runs, and its scripted model. */
function story(model: Model = new ScriptedModel()) {
  const runs = { lookup_order: 0, ask_human: 0, refund_order: 0 };
  const refunds: unknown[] = [];
  const lookupOrder = tool({
    name: 'lookup_order',
    description: 'Look an order up',
    parameters: z.object({ orderId: z.string() }),
    execute: async ({ orderId }) => {
      runs.lookup_order++;
      return { orderId, status: 'delivered', total: 120 };
    },
  });
  const askHuman = tool({
    name: 'ask_human',
    description: 'Ask the customer',
    parameters: z.object({ question: z.string() }),
    needsApproval: true,
    execute: async () => {
      runs.ask_human++;
      return 'never: a person answers this call';
    },
  });
  const refundOrder = tool({
    name: 'refund_order',
    description: 'Refund an order',
    parameters: z.object({ orderId: z.string(), amount: z.number().positive() }),
    needsApproval: true,
    execute: async (args) => {
      runs.refund_order++;
      refunds.push(args);
      return { refundId: 'rf_1', ...args };
    },
  });
  const agent = new Agent({ name: 'support', model, tools: [lookupOrder, askHuman, refundOrder] });
  return { agent, runs, refunds };
}

const backends: Array<[string, () => Promise<Backend>]> = [
  ['the local store', localStoreBackend],
  ['handback/client against the local service', httpBackend],
];

describe.each(backends)('handback/openai-agents through %s', (_, start) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await start();
  });
  afterAll(() => backend.close());

  let runs = 0;
  /** One run paused by the adapter: its names, the scripted model, the tools' counters and the adapter. */
  async function paused(pauseOptions: { expiresInSeconds?: number; onExpiry?: 'reject' } = {}) {
    const model = new ScriptedModel();
    const { agent, runs: ran, refunds } = story(model);
    const handback = openaiAgentsHandback({
      handback: backend.handback,
      agent,
      asks: { ask_human: { kind: 'answer', answerSchema: { enum: ['yes', 'no'] } } },
    });
    const runId = `agents-${++runs}`;
    const result = await run(agent, 'Order A-1042 arrived broken. Refund me, please.');
    const created = await handback.pause(result, { runId, ...pauseOptions });
    return { runId, interruptId: created.interruptId, created, model, ran, refunds, handback };
  }

  it('pauses the interrupted round as one pause: one ask per approval item, the tool parameters as argsSchema', async () => {
    const { runId, interruptId, created, ran } = await paused();
    expect(created.asks).toEqual(['call_ask', 'call_refund']);
    const view = await backend.store.getPause(
      { tenant: backend.tenant, runId, interruptId },
      { includeMessages: true },
    );
    expect(view.format).toBe('openai-responses');
    expect(view.asks).toMatchObject([
      { toolCallId: 'call_ask', kind: 'answer', answerSchema: { enum: ['yes', 'no'] } },
      {
        toolCallId: 'call_refund',
        kind: 'approval',
        args: { orderId: 'A-1042', amount: 120 },
        argsSchema: { type: 'object', required: ['orderId', 'amount'] },
      },
    ]);
    // The SDK ran lookup_order (no approval needed) before it stopped; its result is in the transcript.
    expect(ran.lookup_order).toBe(1);
    expect(view.messages?.at(-1)).toMatchObject({ type: 'function_call_output', call_id: 'call_lookup' });
    expect(checkTranscript('openai-responses', view.messages ?? [])).toHaveLength(2);
  });

  it('runs an approved call once with the SDK tool and goes on: the model reads every result', async () => {
    const { runId, interruptId, handback, ran, model } = await paused();
    const continuationId = await backend.decide(runId, interruptId, [
      { toolCallId: 'call_ask', answer: 'yes' },
      { toolCallId: 'call_refund', decision: 'approve' },
    ]);
    const resumed = await handback.resume({ runId, continuationId: continuationId ?? '' });
    expect(ran).toEqual({ lookup_order: 1, ask_human: 0, refund_order: 1 });
    expect(resumed.ran).toEqual([
      { toolCallId: 'call_refund', output: '{"refundId":"rf_1","orderId":"A-1042","amount":120}' },
    ]);
    expect(resumed.result.finalOutput).toBe(
      'call_lookup: {"orderId":"A-1042","status":"delivered","total":120} | call_ask: yes | call_refund: {"refundId":"rf_1","orderId":"A-1042","amount":120}',
    );
    expect(model.inputs).toHaveLength(2);
  });

  it("runs an edited call with the person's arguments, and the model sees those arguments in its call", async () => {
    const { runId, interruptId, handback, refunds, model } = await paused();
    const continuationId = await backend.decide(runId, interruptId, [
      { toolCallId: 'call_ask', answer: 'no' },
      { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 80 } },
    ]);
    await handback.resume({ runId, continuationId: continuationId ?? '' });
    expect(refunds).toEqual([{ orderId: 'A-1042', amount: 80 }]);
    const call = model.inputs[1]?.find((item) => item.type === 'function_call' && item.callId === 'call_refund');
    expect(call).toMatchObject({ arguments: '{"orderId":"A-1042","amount":80}' });
  });

  it('never runs a rejected call: the model reads the rejection and its reason instead', async () => {
    const { runId, interruptId, handback, ran } = await paused();
    const reason = 'Refunds over 100 need a photo.';
    const continuationId = await backend.decide(runId, interruptId, [
      { toolCallId: 'call_ask', answer: 'yes' },
      { toolCallId: 'call_refund', decision: 'reject', reason },
    ]);
    const resumed = await handback.resume({ runId, continuationId: continuationId ?? '' });
    expect(ran.refund_order).toBe(0);
    expect(resumed.ran).toEqual([]);
    expect(resumed.result.finalOutput).toContain(`call_refund: ${REJECTED}\nReason: ${reason}`);
  });

  it('takes two people deciding in two requests: the first leaves the pause waiting, the second closes it', async () => {
    const { runId, interruptId, handback, ran } = await paused();
    expect(await backend.decide(runId, interruptId, [{ toolCallId: 'call_ask', answer: 'yes' }])).toBeUndefined();
    const view = await backend.store.getPause({ tenant: backend.tenant, runId, interruptId });
    expect(view.pending).toEqual(['call_refund']);
    const continuationId = await backend.decide(runId, interruptId, [
      { toolCallId: 'call_refund', decision: 'approve' },
    ]);
    const resumed = await handback.resume({ runId, continuationId: continuationId ?? '' });
    expect(ran.refund_order).toBe(1);
    expect(resumed.continuation.outcome).toBe('resumed');
  });

  it('runs nothing after a cancel, and the model reads the cancel reason for every ask', async () => {
    const { runId, interruptId, handback, ran } = await paused();
    const continuationId = await backend.cancel(runId, interruptId, 'The customer withdrew the request.');
    const resumed = await handback.resume({ runId, continuationId });
    expect(resumed.continuation.outcome).toBe('cancelled');
    expect(ran).toEqual({ lookup_order: 1, ask_human: 0, refund_order: 0 });
    expect(resumed.result.finalOutput).toMatch(
      /call_ask: .*\nReason: The customer withdrew the request\. \| call_refund:/s,
    );
  });

  it('runs nothing when no one decided before the expiry, and the model reads why', async () => {
    const { runId, interruptId, handback, ran } = await paused({ expiresInSeconds: 1, onExpiry: 'reject' });
    const continuationId = await backend.expire(runId, interruptId);
    const resumed = await handback.resume({ runId, continuationId });
    expect(resumed.continuation.outcome).toBe('expired');
    expect(ran.refund_order).toBe(0);
    expect(resumed.result.finalOutput).toContain('Reason: No one decided before');
  });

  it('runs an approved tool once when the hand-off is delivered twice, each delivery reading the same output', async () => {
    const { runId, interruptId, handback, ran } = await paused();
    const continuationId =
      (await backend.decide(runId, interruptId, [
        { toolCallId: 'call_ask', answer: 'yes' },
        { toolCallId: 'call_refund', decision: 'approve' },
      ])) ?? '';
    const [first, second] = await Promise.all([
      handback.resume({ runId, continuationId }),
      handback.resume({ runId, continuationId }),
    ]);
    const third = await handback.resume({ runId, continuationId });
    expect(ran.refund_order).toBe(1);
    expect(second.ran).toEqual(first.ran);
    expect(third.ran).toEqual(first.ran);
  });
});

describe.each(backends)('handback/openai-agents claiming through Handback (§19), through %s', (_, start) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await start();
  });
  afterAll(() => backend.close());

  it('claims the approved call before it runs and records its end; a second delivery is refused and runs nothing', async () => {
    const model = new ScriptedModel();
    const { agent, runs: ran } = story(model);
    const executions = createHandbackToolExecutions(backend.claims);
    const handback = openaiAgentsHandback({ handback: backend.handback, agent, executions });
    const runId = `agents-claimed-${Date.now()}`;
    const created = await handback.pause(await run(agent, 'Order A-1042 arrived broken. Refund me, please.'), {
      runId,
    });
    const { interruptId } = created;
    const key = { tenant: backend.tenant, runId, interruptId };
    const continuationId =
      (await backend.decide(runId, interruptId, [
        { toolCallId: 'call_ask', decision: 'approve' },
        { toolCallId: 'call_refund', decision: 'approve' },
      ])) ?? '';
    expect((await backend.store.getPause(key)).asks[1]?.execution).toMatchObject({ status: 'waiting' });
    const resumed = await handback.resume({ runId, continuationId });
    expect(ran.refund_order).toBe(1);
    expect(resumed.ran[1]).toEqual({
      toolCallId: 'call_refund',
      output: '{"refundId":"rf_1","orderId":"A-1042","amount":120}',
    });
    expect((await backend.store.getPause(key)).asks[1]?.execution).toMatchObject({ status: 'succeeded' });
    await expect(handback.resume({ runId, continuationId })).rejects.toBeInstanceOf(AlreadyClaimedError);
    expect(ran.refund_order).toBe(1);
  });
});

describe('handback/openai-agents with the OpenAI provider', () => {
  it("sends the Responses API a request whose input passes Handback's strict check, edited call and all", async () => {
    const bodies: Array<{ input: unknown[] }> = [];
    const fetch = async (_url: unknown, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as { input: unknown[] };
      bodies.push(body);
      const output =
        bodies.length === 1
          ? ROUND.map(({ callId, ...call }) => ({ ...call, call_id: callId }))
          : [
              {
                type: 'message',
                id: 'msg_1',
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text: 'Refunded 80.', annotations: [] }],
              },
            ];
      return Response.json({ id: `resp_${bodies.length}`, object: 'response', status: 'completed', output });
    };
    const openai = new OpenAI({ apiKey: 'offline', fetch, maxRetries: 0 });
    // The repository's `openai` is newer than the one the SDK's types name; the client's shape is the same.
    const client = openai as unknown as ConstructorParameters<typeof OpenAIResponsesModel>[0];
    const { agent, refunds } = story(new OpenAIResponsesModel(client, 'gpt-4.1'));
    const backend = await localStoreBackend();
    try {
      const handback = openaiAgentsHandback({ handback: backend.handback, agent });
      const created = await handback.pause(await run(agent, 'Refund A-1042, please.'), { runId: 'provider-1' });
      const continuationId = await backend.decide('provider-1', created.interruptId, [
        { toolCallId: 'call_ask', decision: 'reject' },
        { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 80 } },
      ]);
      await handback.resume({ runId: 'provider-1', continuationId: continuationId ?? '' });
      expect(refunds).toEqual([{ orderId: 'A-1042', amount: 80 }]);
      const sent = bodies[1]?.input ?? [];
      expect(checkTranscript('openai-responses', sent)).toEqual([]);
      expect(sent).toContainEqual(expect.objectContaining({ type: 'function_call', call_id: 'call_refund' }));
      const refund = sent.find((item) => (item as { call_id?: string }).call_id === 'call_refund') as {
        arguments: string;
      };
      expect(JSON.parse(refund.arguments)).toEqual({ orderId: 'A-1042', amount: 80 });
    } finally {
      await backend.close();
    }
  });
});
