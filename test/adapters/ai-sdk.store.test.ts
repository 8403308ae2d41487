import { generateText, type ModelMessage, modelMessageSchema, stepCountIs, streamText } from 'ai';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AiSdkHandback,
  createAiSdkHandback,
  createMemoryToolExecutions,
} from '../../functions/adapters/ai-sdk.ts';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import {
  createDynamoDBCheckpointStore,
  createMemoryCheckpointStore,
} from '../../functions/checkpoints/dynamodb-store.ts';
import { createHandbackClient, type HandbackOperations, storeOperations } from '../../functions/client/index.ts';
import { checkTranscript, REJECTED } from '../../functions/index.ts';
import { type LocalStore, startLocalStore } from '../../functions/local/public.ts';
import { useLocalService } from '../client/support.ts';
import { scriptedModel, toolsWithLog } from './ai-sdk-support.ts';

const SECRET = 'a-test-secret-of-at-least-32-bytes-long!';
const service = useLocalService({ HANDBACK_JWT_SECRET: SECRET });
const tokenFor = (sub: string) =>
  new SignJWT({ tenant: 'acme', sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));

/** One Handback, as the agent and as each person deciding reaches it. */
interface Backend {
  agent: HandbackOperations | { store: CheckpointStore; tenant: string };
  as(person: string): HandbackOperations;
  /** Lets `seconds` pass and runs what the sweep does then. */
  expire(seconds: number): Promise<void>;
}

// The embedded DynamoDB-compatible server of `handback/local`, one for the file; each backend puts a store on it.
let local: LocalStore;
beforeAll(async () => {
  local = await startLocalStore();
});
afterAll(() => local.close());

/** A store on a clock of its own, as the agent (tenant acme) and as each person; the sweep runs when time passes. */
function storeBackend(storeOn: (clock: () => Date) => CheckpointStore): Backend {
  let now = Date.parse('2026-06-01T00:00:00Z');
  const store = storeOn(() => new Date(now));
  const person = (subject: string) => ({ kind: 'person' as const, subject, via: 'library' as const });
  return {
    agent: { store, tenant: 'acme' },
    as: (subject) => storeOperations(store, { tenant: 'acme', by: person(subject) }),
    expire: async (seconds) => {
      now += seconds * 1000;
      await store.closeDue();
    },
  };
}

const backends: Array<[string, () => Backend]> = [
  ['the memory store', () => storeBackend((clock) => createMemoryCheckpointStore({ clock }))],
  [
    'the local store',
    () =>
      storeBackend((clock) =>
        createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName, clock }),
      ),
  ],
  [
    'the client against the local service',
    () => {
      const on = (sub: string) => createHandbackClient({ baseUrl: service.url, token: () => tokenFor(sub) });
      return {
        agent: on('agent-1'),
        as: on,
        // The service's own sweep runs every 100 ms.
        expire: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 1500)),
      };
    },
  ],
];

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

function expectValid(messages: ModelMessage[]) {
  expect(z.array(modelMessageSchema).safeParse(messages).success).toBe(true);
  expect(checkTranscript('ai-sdk', messages)).toEqual([]);
}

describe.each(backends)('handback/ai-sdk through %s', (_, make) => {
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
    const recorded = await executions.once(`${continuation.continuationId}/call_refund`, async () => 'ran again');
    expect(JSON.parse(recorded)).toMatchObject({ toolName: 'refund_order', output: { type: 'json' } });
  });
});

describe('handback/ai-sdk with streamText', () => {
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
