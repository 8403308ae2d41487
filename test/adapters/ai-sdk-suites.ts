import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, modelMessageSchema, stepCountIs, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AiSdkHandback,
  AlreadyClaimedError,
  createAiSdkHandback,
  createHandbackToolExecutions,
  createMemoryToolExecutions,
} from '../../functions/adapters/ai-sdk.ts';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import {
  createDynamoDBCheckpointStore,
  createMemoryCheckpointStore,
} from '../../functions/checkpoints/dynamodb-store.ts';
import { type HandbackOperations, storeOperations } from '../../functions/client/index.ts';
import { checkTranscript, REJECTED } from '../../functions/index.ts';
import { type LocalStore, startLocalStore } from '../../functions/local/public.ts';
import type { Decision } from '../../functions/wire.ts';
import { useSignedInService } from '../client/support.ts';
import { scriptedModel, toolsWithLog } from './ai-sdk-support.ts';
import { assistantText, functionCall, recordingFetch, response } from './recording-fetch.ts';

/** One Handback, as the agent and as each person deciding reaches it. */
interface Backend {
  agent: HandbackOperations | { store: CheckpointStore; tenant: string };
  as(person: string): HandbackOperations;
  /** Lets `seconds` pass and runs what the sweep does then. */
  expire(seconds: number): Promise<void>;
}

/** A store's Handback, also as a §17 policy deciding (`by: {kind: "service", subject: "policy:<id>", via: "policy"}`). */
interface StoreBackend extends Backend {
  asPolicy(id: string): HandbackOperations;
}

/** A store on a clock of its own, as the agent (tenant acme) and as each person; the sweep runs when time passes. */
function storeBackend(storeOn: (clock: () => Date) => CheckpointStore): StoreBackend {
  let now = Date.parse('2026-06-01T00:00:00Z');
  const store = storeOn(() => new Date(now));
  const person = (subject: string) => ({ kind: 'person' as const, subject, via: 'library' as const });
  return {
    agent: { store, tenant: 'acme' },
    as: (subject) => storeOperations(store, { tenant: 'acme', by: person(subject) }),
    asPolicy: (id) =>
      storeOperations(store, { tenant: 'acme', by: { kind: 'service', subject: `policy:${id}`, via: 'policy' } }),
    expire: async (seconds) => {
      now += seconds * 1000;
      await store.closeDue();
    },
  };
}

let runs = 0;

/** Invocation 1: a generateText step that pauses on the approval request and the unanswered question. */
async function pausedTurn(backend: Backend, extra: { expiresInSeconds?: number; onExpiry?: 'reject' } = {}) {
  const { tools, refunds } = toolsWithLog();
  const model = scriptedModel();
  const executions = createMemoryToolExecutions();
  const adapter = createAiSdkHandback({ handback: backend.agent, tools, executions });
  const messages: ModelMessage[] = [{ role: 'user', content: 'Order A-1042 arrived broken. Refund me.' }];
  const step = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
  const runId = `ai-sdk-${++runs}-${Date.now()}`;
  const paused = await adapter.pauseFromStep({ runId, messages, step, ...extra });
  if (paused === undefined) throw new Error('the step did not pause');
  return { adapter, tools, executions, refunds, model, runId, paused, key: { runId, interruptId: paused.interruptId } };
}

/** Decides both asks (the answer by one person, the approval by another) and returns the continuation. */
async function decideBoth(backend: Backend, key: { runId: string; interruptId: string }, approval: object) {
  const first = await backend.as('ada').decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'yes' }] });
  expect(first).toMatchObject({ kind: 'pending', pending: ['call_refund'] });
  const last = await backend
    .as('bob')
    .decide({ ...key, decisions: [{ toolCallId: 'call_refund', ...approval } as never] });
  if (last.kind !== 'closed') throw new Error('still pending');
  return last;
}

/** The `role: "tool"` message of the request the model received last. */
const lastToolMessage = (model: ReturnType<typeof scriptedModel>, stream = false) => {
  const calls = stream ? model.doStreamCalls : model.doGenerateCalls;
  return calls.at(-1)?.prompt.findLast((m) => m.role === 'tool');
};

const resultOf = (messages: ModelMessage[], toolCallId: string) =>
  messages
    .flatMap((m) => (m.role === 'tool' ? m.content : []))
    .find((part) => part.type === 'tool-result' && part.toolCallId === toolCallId);

/** The step's `tool-approval-request` for a call, in the paused assistant message. */
const approvalRequest = (messages: ModelMessage[], toolCallId: string) =>
  messages
    .flatMap((m) => (m.role === 'assistant' && Array.isArray(m.content) ? m.content : []))
    .find((part) => part.type === 'tool-approval-request' && part.toolCallId === toolCallId) as
    | { toolCallId: string; approvalId: string; isAutomatic?: boolean }
    | undefined;

function expectValid(messages: ModelMessage[]) {
  expect(z.array(modelMessageSchema).safeParse(messages).success).toBe(true);
  expect(checkTranscript('ai-sdk', messages)).toEqual([]);
}

/**
 * The AI SDK adapter's suite, for the `ai` major the test file loads (`ai-sdk.store.test.ts`: 6; `ai-sdk-v7.store.test.ts`: 7,
 * its modules mocked onto the `ai-v7` alias): the real SDK and its own mock model, through the memory store, the
 * local store and `handback/client` against the local service.
 */
export function aiSdkAdapterSuite(major: 6 | 7): void {
  const signedIn = useSignedInService();
  // The embedded DynamoDB-compatible server of `handback/local`, one for the file; each backend puts a store on it.
  let local: LocalStore;
  beforeAll(async () => {
    local = await startLocalStore();
  });
  afterAll(() => local.close());

  const stores: Array<[string, () => StoreBackend]> = [
    ['the memory store', () => storeBackend((clock) => createMemoryCheckpointStore({ clock }))],
    [
      'the local store',
      () =>
        storeBackend((clock) =>
          createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName, clock }),
        ),
    ],
  ];
  const backends: Array<[string, () => Backend]> = [...stores, ['the client against the local service', signedIn]];

  it(`runs on ai ${major}, with its own mock model (MockLanguageModelV${major - 3})`, async () => {
    // `ai` 7 alone has `isStepCount`; its mock model implements the v4 provider specification.
    expect({
      isStepCount: typeof (await import('ai'))['isStepCount' as 'generateText'],
      spec: scriptedModel().specificationVersion,
    }).toEqual({
      isStepCount: major === 7 ? 'function' : 'undefined',
      spec: `v${major - 3}`,
    });
  });

  describe.each(backends)(`handback/ai-sdk on ai ${major} through %s`, (_, make) => {
    it('pauses on the approval request (argsSchema from the tool’s inputSchema) and the call without execute', async () => {
      const backend = make();
      const { key } = await pausedTurn(backend);
      const view = await backend.as('ada').getPause(key);
      expect(view.asks.map(({ toolCallId, kind, name }) => ({ toolCallId, kind, name }))).toEqual([
        { toolCallId: 'call_ask', kind: 'answer', name: 'ask_human' },
        { toolCallId: 'call_refund', kind: 'approval', name: 'refund_order' },
      ]);
      expect(view.asks[1]?.argsSchema).toMatchObject({
        type: 'object',
        properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
        required: ['orderId', 'amount'],
      });
    });

    it('approves: runs refund_order once with the model’s args, and the model receives its result', async () => {
      const backend = make();
      const { adapter, tools, refunds, model, key } = await pausedTurn(backend);
      const continuation = await decideBoth(backend, key, { decision: 'approve' });
      const messages = await adapter.continueFromPause(continuation);
      expect(refunds).toEqual([{ orderId: 'A-1042', amount: 120 }]);
      expectValid(messages);
      expect(resultOf(messages, 'call_refund')).toMatchObject({
        output: { type: 'json', value: { refundId: 'rf_1', orderId: 'A-1042', amount: 120 } },
      });
      // A person's approval stays the SDK's manual one.
      expect(approvalRequest(messages, 'call_refund')?.isAutomatic).toBeUndefined();
      const final = await generateText({ model, tools, messages });
      expect(final.text).toBe('lookup_order=json ask_human=text refund_order=json');
      expect(refunds).toHaveLength(1);
      expect(lastToolMessage(model)?.content).toEqual([
        expect.objectContaining({ toolCallId: 'call_lookup', output: expect.objectContaining({ type: 'json' }) }),
        expect.objectContaining({ toolCallId: 'call_ask', output: { type: 'text', value: 'yes' } }),
        expect.objectContaining({ toolCallId: 'call_refund', output: expect.objectContaining({ type: 'json' }) }),
      ]);
    });

    it('edits: runs refund_order with the decided args', async () => {
      const backend = make();
      const { adapter, refunds, key } = await pausedTurn(backend);
      const args = { orderId: 'A-1042', amount: 80 };
      const messages = await adapter.continueFromPause(await decideBoth(backend, key, { decision: 'edit', args }));
      expect(refunds).toEqual([args]);
      expectValid(messages);
      expect(messages[1]).toMatchObject({
        role: 'assistant',
        content: expect.arrayContaining([expect.objectContaining({ toolCallId: 'call_refund', input: args })]),
      });
    });

    it('rejects: runs nothing, and carries the SDK’s denial with the reason to the model', async () => {
      const backend = make();
      const { adapter, tools, refunds, model, key } = await pausedTurn(backend);
      const continuation = await decideBoth(backend, key, { decision: 'reject', reason: 'over the limit' });
      const messages = await adapter.continueFromPause(continuation);
      expect(refunds).toEqual([]);
      expectValid(messages);
      const denial = resultOf(messages, 'call_refund');
      expect(denial).toMatchObject({ output: { type: 'execution-denied' } });
      const reason = (denial as { output: { reason: string } }).output.reason;
      expect(reason.startsWith(REJECTED)).toBe(true);
      expect(reason).toContain('Reason: over the limit');
      expect(messages.at(-1)?.content).toContainEqual(
        expect.objectContaining({ type: 'tool-approval-response', approved: false, reason }),
      );
      expect((await generateText({ model, tools, messages })).text).toContain('refund_order=execution-denied');
      expect(refunds).toEqual([]);
      expect(lastToolMessage(model)?.content).toContainEqual(
        expect.objectContaining({ toolCallId: 'call_refund', output: { type: 'execution-denied', reason } }),
      );
    });

    it('answers: the person’s answer is ask_human’s result', async () => {
      const backend = make();
      const { adapter, key } = await pausedTurn(backend);
      const messages = await adapter.continueFromPause(await decideBoth(backend, key, { decision: 'approve' }));
      expect(resultOf(messages, 'call_ask')).toEqual({
        type: 'tool-result',
        toolCallId: 'call_ask',
        toolName: 'ask_human',
        output: { type: 'text', value: 'yes' },
      });
    });

    it('cancels: every ask rejected with the reason, nothing run', async () => {
      const backend = make();
      const { adapter, refunds, key } = await pausedTurn(backend);
      const cancelled = await backend.as('ada').cancel({ ...key, reason: 'customer withdrew' });
      expect(cancelled.outcome).toBe('cancelled');
      const messages = await adapter.continueFromPause(cancelled);
      expect(refunds).toEqual([]);
      expectValid(messages);
      expect(resultOf(messages, 'call_refund')).toMatchObject({ output: { type: 'execution-denied' } });
      expect(JSON.stringify(resultOf(messages, 'call_ask'))).toContain('customer withdrew');
    });

    it('expires with onExpiry reject: the approval is denied, nothing run', async () => {
      const backend = make();
      const { adapter, refunds, key } = await pausedTurn(backend, { expiresInSeconds: 1, onExpiry: 'reject' });
      await backend.expire(1);
      const view = await backend.as('ada').getPause(key);
      expect(view).toMatchObject({ outcome: 'expired', continuationId: expect.any(String) });
      const messages = await adapter.continueFromPause({
        runId: key.runId,
        continuationId: view.continuationId as string,
      });
      expect(refunds).toEqual([]);
      expectValid(messages);
      expect(resultOf(messages, 'call_refund')).toMatchObject({
        output: { type: 'execution-denied', reason: expect.stringContaining('No one decided before') },
      });
    });

    it('runs an approved call once when the continuation is delivered again, at once or later, to another adapter on the same log', async () => {
      const backend = make();
      const { adapter, tools, executions, refunds, key } = await pausedTurn(backend);
      const continuation = await decideBoth(backend, key, { decision: 'approve' });
      const [first, second] = await Promise.all([
        adapter.continueFromPause(continuation),
        adapter.continueFromPause(continuation),
      ]);
      const again = await adapter.continueFromPause({ runId: key.runId, continuationId: continuation.continuationId });
      const other = createAiSdkHandback({ handback: backend.agent, tools, executions });
      const elsewhere = await other.continueFromPause(continuation);
      expect(refunds).toHaveLength(1);
      expect(second).toEqual(first);
      expect(again).toEqual(first);
      expect(elsewhere).toEqual(first);
      const recorded = await executions.once(
        { runId: key.runId, continuationId: continuation.continuationId, toolCallId: 'call_refund' },
        async () => 'ran again',
      );
      expect(JSON.parse(recorded)).toMatchObject({ toolName: 'refund_order', output: { type: 'json' } });
    });
  });

  describe.each(backends)(`handback/ai-sdk on ai ${major}, claiming through Handback (§19), through %s`, (_, make) => {
    it('claims the approved call before it runs and records its end; another delivery is refused and runs nothing', async () => {
      const backend = make();
      const { tools, refunds, key } = await pausedTurn(backend);
      const continuation = await decideBoth(backend, key, { decision: 'approve' });
      const claiming = () =>
        createAiSdkHandback({
          handback: backend.agent,
          tools,
          executions: createHandbackToolExecutions(backend.agent),
        });
      const messages = await claiming().continueFromPause(continuation);
      expect(refunds).toHaveLength(1);
      expect(resultOf(messages, 'call_refund')).toMatchObject({ toolName: 'refund_order', output: { type: 'json' } });
      const [, refund] = (await backend.as('ada').getPause(key)).asks;
      expect(refund?.execution).toMatchObject({ status: 'succeeded' });
      await expect(claiming().continueFromPause(continuation)).rejects.toBeInstanceOf(AlreadyClaimedError);
      expect(refunds).toHaveLength(1);
    });
  });

  describe.each(stores)(`handback/ai-sdk on ai ${major}, an ask a §17 policy decided, through %s`, (_, make) => {
    /** Ada answers; the policy `refund-small` decides the approval. */
    async function decidedByPolicy(approval: object) {
      const backend = make();
      const turn = await pausedTurn(backend);
      await backend.as('ada').decide({ ...turn.key, decisions: [{ toolCallId: 'call_ask', answer: 'yes' }] });
      const decisions = [{ toolCallId: 'call_refund', ...approval } as never];
      const closed = await backend.asPolicy('refund-small').decide({ ...turn.key, decisions });
      if (closed.kind !== 'closed') throw new Error('still pending');
      return { ...turn, messages: await turn.adapter.continueFromPause(closed) };
    }

    it('comes back as the SDK’s automatic approval: isAutomatic on the request, the policy named in the response', async () => {
      const { tools, refunds, model, messages } = await decidedByPolicy({ decision: 'approve' });
      const request = approvalRequest(messages, 'call_refund');
      expect(request).toMatchObject({ toolCallId: 'call_refund', isAutomatic: true });
      expect(messages.at(-1)?.content).toContainEqual({
        type: 'tool-approval-response',
        approvalId: request?.approvalId,
        approved: true,
        reason: 'policy:refund-small',
      });
      expectValid(messages);
      expect(refunds).toEqual([{ orderId: 'A-1042', amount: 120 }]);
      // The SDK takes the turn on from it, and runs nothing itself.
      expect((await generateText({ model, tools, messages })).text).toBe(
        'lookup_order=json ask_human=text refund_order=json',
      );
      expect(refunds).toHaveLength(1);
    });

    it('comes back as the SDK’s automatic denial when the policy forbids it, nothing run', async () => {
      const { refunds, messages } = await decidedByPolicy({ decision: 'reject', reason: 'over the limit' });
      const request = approvalRequest(messages, 'call_refund');
      expect(request).toMatchObject({ toolCallId: 'call_refund', isAutomatic: true });
      expect(messages.at(-1)?.content).toContainEqual(
        expect.objectContaining({ type: 'tool-approval-response', approvalId: request?.approvalId, approved: false }),
      );
      expect(resultOf(messages, 'call_refund')).toMatchObject({ output: { type: 'execution-denied' } });
      expectValid(messages);
      expect(refunds).toEqual([]);
    });
  });

  describe(`handback/ai-sdk on ai ${major} with streamText`, () => {
    it('pauses a streamed step and goes on in a stream, its UI message stream included', async () => {
      const backend = backends[0]?.[1]() as Backend;
      const { tools, refunds } = toolsWithLog();
      const model = scriptedModel();
      const adapter: AiSdkHandback = createAiSdkHandback({ handback: backend.agent, tools });
      const messages: ModelMessage[] = [{ role: 'user', content: 'Refund A-1042.' }];
      const streamed = streamText({ model, tools, messages });
      await streamed.consumeStream();
      const paused = await adapter.pauseFromStep({ runId: 'streamed', messages, step: streamed });
      expect(paused?.asks).toEqual(['call_ask', 'call_refund']);
      const key = { runId: 'streamed', interruptId: paused?.interruptId as string };
      const continuation = await decideBoth(backend, key, { decision: 'approve' });
      const next = await adapter.continueFromPause(continuation);
      expectValid(next);
      const resumed = streamText({ model, tools, messages: next });
      const chunks: Array<{ type: string; delta?: string }> = [];
      for await (const chunk of resumed.toUIMessageStream()) chunks.push(chunk as { type: string; delta?: string });
      expect(
        chunks
          .filter((c) => c.type === 'text-delta')
          .map((c) => c.delta)
          .join(''),
      ).toBe('lookup_order=json ask_human=text refund_order=json');
      expect(refunds).toHaveLength(1);
      expect(lastToolMessage(model, true)?.content).toHaveLength(3);
    });

    it('pauses nothing for a step that asks no one', async () => {
      const backend = backends[0]?.[1]() as Backend;
      const { tools } = toolsWithLog();
      const adapter = createAiSdkHandback({ handback: backend.agent, tools });
      const step = { content: [{ type: 'text', text: 'done' }], response: { messages: [] } };
      expect(await adapter.pauseFromStep({ runId: 'nothing', messages: [], step })).toBeUndefined();
    });
  });
}

/**
 * §15: the messages the adapter rebuilds are what the SDK then sends its provider. The SDK's own OpenAI provider
 * (`@ai-sdk/openai`: 3 beside `ai` 6, 4 beside `ai` 7) in front of a `fetch` that records each request and answers
 * as OpenAI's Responses API documents; the request after the pause is checked as OpenAI would check it.
 */
export function aiSdkProviderSuite(major: 6 | 7): void {
  let local: LocalStore;
  /** The AI SDK adapter takes the library's own store. */
  let store: CheckpointStore;
  beforeAll(async () => {
    local = await startLocalStore();
    store = createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
  });
  afterAll(() => local.close());

  /** Decides on the AI SDK tests' store; the continuation id when the decisions closed the pause. */
  async function decide(runId: string, interruptId: string, decisions: Decision[]) {
    const result = await store.decide({ tenant: 'acme', runId, interruptId, decisions });
    return result.kind === 'closed' ? result.continuationId : undefined;
  }

  /** OpenAI's first response: a lookup, a question for the customer and a refund, in one round. */
  const firstRound = () =>
    response('resp_1', [
      functionCall('call_lookup', 'lookup_order', { orderId: 'A-1042' }),
      functionCall('call_ask', 'ask_human', { question: 'Send a replacement as well?' }),
      functionCall('call_refund', 'refund_order', { orderId: 'A-1042', amount: 120 }),
    ]);

  describe(`handback/ai-sdk on ai ${major} with @ai-sdk/openai (the Responses API)`, () => {
    it('sends OpenAI a request whose input passes the strict check: the approved call run once, the answer and the lookup in', async () => {
      const { tools, refunds } = toolsWithLog();
      const { bodies, fetch } = recordingFetch([
        firstRound(),
        response('resp_2', [assistantText('Refunded 80 and sent a replacement.')]),
      ]);
      const model = createOpenAI({ apiKey: 'offline', fetch })('gpt-4.1');
      // The provider of this major: @ai-sdk/openai 3 (specification v3) beside ai 6, 4 (v4) beside ai 7.
      expect(model.specificationVersion).toBe(`v${major - 3}`);
      const adapter = createAiSdkHandback({ handback: { store, tenant: 'acme' }, tools });
      const messages: ModelMessage[] = [{ role: 'user', content: 'Order A-1042 arrived broken. Refund me.' }];
      const step = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
      const paused = await adapter.pauseFromStep({ runId: 'openai-ai-sdk-1', messages, step });
      if (paused === undefined) throw new Error('the step did not pause');
      expect(bodies).toHaveLength(1);

      const continuationId = await decide('openai-ai-sdk-1', paused.interruptId, [
        { toolCallId: 'call_ask', answer: 'yes' },
        { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 80 } },
      ]);
      const next = await adapter.continueFromPause({ runId: 'openai-ai-sdk-1', continuationId: continuationId ?? '' });
      const final = await generateText({ model, tools, messages: next });

      expect(final.text).toBe('Refunded 80 and sent a replacement.');
      expect(refunds).toEqual([{ orderId: 'A-1042', amount: 80 }]);
      const sent = bodies[1]?.input ?? [];
      expect(checkTranscript('openai-responses', sent)).toEqual([]);
      const outputs = sent.filter((item) => (item as { type?: string }).type === 'function_call_output') as Array<{
        call_id: string;
        output: string;
      }>;
      expect(outputs.map((o) => o.call_id)).toEqual(['call_lookup', 'call_ask', 'call_refund']);
      expect(outputs[1]?.output).toContain('yes');
      expect(JSON.parse(outputs[2]?.output ?? '{}')).toMatchObject({ orderId: 'A-1042', amount: 80 });
    });

    it('sends a rejected call as a function_call_output carrying the denial, and runs nothing', async () => {
      const { tools, refunds } = toolsWithLog();
      const { bodies, fetch } = recordingFetch([firstRound(), response('resp_2', [assistantText('No refund, then.')])]);
      const model = createOpenAI({ apiKey: 'offline', fetch })('gpt-4.1');
      const adapter = createAiSdkHandback({ handback: { store, tenant: 'acme' }, tools });
      const messages: ModelMessage[] = [{ role: 'user', content: 'Refund A-1042.' }];
      const step = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
      const paused = await adapter.pauseFromStep({ runId: 'openai-ai-sdk-2', messages, step });
      if (paused === undefined) throw new Error('the step did not pause');
      const continuationId = await decide('openai-ai-sdk-2', paused.interruptId, [
        { toolCallId: 'call_ask', answer: 'no' },
        { toolCallId: 'call_refund', decision: 'reject', reason: 'Needs a photo.' },
      ]);
      const next = await adapter.continueFromPause({ runId: 'openai-ai-sdk-2', continuationId: continuationId ?? '' });
      await generateText({ model, tools, messages: next });

      expect(refunds).toEqual([]);
      const sent = bodies[1]?.input ?? [];
      expect(checkTranscript('openai-responses', sent)).toEqual([]);
      const refund = sent.find(
        (item) =>
          (item as { type?: string; call_id?: string }).type === 'function_call_output' &&
          (item as { call_id?: string }).call_id === 'call_refund',
      ) as { output: string } | undefined;
      expect(refund?.output).toContain('Needs a photo.');
    });
  });
}
