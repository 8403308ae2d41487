import { readFileSync } from 'node:fs';
import {
  Agent,
  type ContentBlockData,
  type Message,
  type MessageData,
  Model,
  type ModelStreamEvent,
  type StreamOptions,
  tool,
} from '@strands-agents/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHandbackToolExecutions } from '../../functions/adapters/claimed-executions.ts';
import { createDynamoDBToolExecutions } from '../../functions/adapters/executions.ts';
import { approvalHook, type StrandsAskRule, strandsHandback, toConverse } from '../../functions/adapters/strands.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { type HandbackOperations, storeOperations } from '../../functions/client/index.ts';
import { checkTranscript, REJECTED } from '../../functions/index.ts';
import { loadCedar } from '../../functions/policies/cedar.ts';
import { createPolicyEngine } from '../../functions/policies/engine.ts';
import { loadPolicies } from '../../functions/policies/load.ts';
import { useSignedInService } from '../client/support.ts';
import { useTestTable } from '../support/dynamodb.ts';

type Call = { toolUseId: string; name: string; input: Record<string, unknown> };
const LOOKUP: Call = { toolUseId: 'call_lookup', name: 'lookup_order', input: { orderId: 'A-1042' } };
const ASK: Call = { toolUseId: 'call_ask', name: 'ask_human', input: { question: 'Send a replacement?' } };
const REFUND: Call = { toolUseId: 'call_refund', name: 'refund_order', input: { orderId: 'A-1042', amount: 120 } };
const EMAIL: Call = { toolUseId: 'call_email', name: 'send_email', input: { to: 'customer@example.com' } };

/**
 * A scripted model behind the SDK's own `Model` interface: the round for a request that ends in the user's text, and
 * for one that ends in tool results a line of those results (`<id>: <status> <text>`). It records every request.
 */
class ScriptedModel extends Model {
  readonly requests: Array<{ messages: MessageData[]; toolNames: string[] }> = [];
  /** `next`, when given, is the round the model answers the first tool results with (a second pause of the run). */
  constructor(
    private readonly round: Call[],
    private next?: Call[],
  ) {
    super();
  }
  updateConfig(): void {}
  getConfig() {
    return { modelId: 'scripted' };
  }
  async *stream(messages: Message[], options?: StreamOptions): AsyncGenerator<ModelStreamEvent> {
    const sent = messages.map((message) => message.toJSON());
    this.requests.push({ messages: sent, toolNames: (options?.toolSpecs ?? []).map((spec) => spec.name) });
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    const last = sent.at(-1)?.content ?? [];
    const results = last.flatMap((block) => ('toolResult' in block ? [block.toolResult] : []));
    const round = results.length === 0 ? this.round : this.next;
    if (round !== undefined) {
      if (results.length > 0) this.next = undefined;
      for (const call of round) {
        yield {
          type: 'modelContentBlockStartEvent',
          start: { type: 'toolUseStart', name: call.name, toolUseId: call.toolUseId },
        };
        yield {
          type: 'modelContentBlockDeltaEvent',
          delta: { type: 'toolUseInputDelta', input: JSON.stringify(call.input) },
        };
        yield { type: 'modelContentBlockStopEvent' };
      }
      yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
      return;
    }
    const line = results
      .map(
        (r) =>
          `${r.toolUseId}: ${r.status} ${r.content.map((c) => ('text' in c ? c.text : JSON.stringify('json' in c ? c.json : c))).join('')}`,
      )
      .join(' | ');
    yield { type: 'modelContentBlockStartEvent' };
    yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: line } };
    yield { type: 'modelContentBlockStopEvent' };
    yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
  }
}

/** The tools, each counting its runs; refund_order records the arguments it ran with. */
function toolsWithLog() {
  const runs = { lookup_order: 0, ask_human: 0, refund_order: 0, send_email: 0 };
  const refunds: unknown[] = [];
  const tools = [
    tool({
      name: 'lookup_order',
      description: 'Look an order up',
      inputSchema: z.object({ orderId: z.string() }),
      callback: (input) => {
        runs.lookup_order++;
        return { ...input, total: 120 };
      },
    }),
    tool({
      name: 'ask_human',
      description: 'Ask the customer',
      inputSchema: z.object({ question: z.string() }),
      callback: () => {
        runs.ask_human++;
        return 'never: a person answers this call';
      },
    }),
    tool({
      name: 'refund_order',
      description: 'Refund an order',
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      callback: (input) => {
        runs.refund_order++;
        refunds.push(input);
        return { refundId: 'rf_1', ...input };
      },
    }),
    tool({
      name: 'send_email',
      description: 'Email the customer',
      inputSchema: z.object({ to: z.string() }),
      callback: () => {
        runs.send_email++;
        return 'sent';
      },
    }),
  ];
  return { tools, runs, refunds };
}

/** One Handback, as the agent and as each person deciding reaches it. */
interface Backend {
  agent: HandbackOperations | { store: ReturnType<typeof createMemoryCheckpointStore>; tenant: string };
  as(person: string): HandbackOperations;
  /** Lets `seconds` pass and runs what the sweep does then. */
  expire(seconds: number): Promise<void>;
}

const signedIn = useSignedInService();

const backends: Array<[string, () => Backend]> = [
  [
    'the memory store',
    () => {
      let now = Date.parse('2026-06-01T00:00:00Z');
      const store = createMemoryCheckpointStore({ clock: () => new Date(now) });
      const person = (subject: string) => ({ kind: 'person' as const, subject, via: 'library' as const });
      return {
        agent: { store, tenant: 'acme' },
        as: (subject) => storeOperations(store, { tenant: 'acme', by: person(subject) }),
        expire: async (seconds) => {
          now += seconds * 1000;
          await store.closeDue();
        },
      };
    },
  ],
  ['the client against the local service', signedIn],
];

let runs = 0;

describe.each(backends)('handback/strands through %s', (_, make) => {
  /** Invocation 1: the agent stops on the hook's interrupts, and the adapter pauses the round. */
  async function pausedTurn(
    backend: Backend,
    round: Call[],
    extra: { expiresInSeconds?: number; onExpiry?: 'reject' } = {},
    settings: { refund?: StrandsAskRule; next?: Call[] } = {},
  ) {
    const log = toolsWithLog();
    const model = new ScriptedModel(round, settings.next);
    const hook = approvalHook({
      tools: ['refund_order', 'send_email'],
      asks: {
        ask_human: { kind: 'answer', answerSchema: { enum: ['yes', 'no'] } },
        send_email: { editable: false },
        ...(settings.refund === undefined ? {} : { refund_order: settings.refund }),
      },
    });
    // A fresh agent for each invocation, as a Lambda that never saw the pause would build it.
    const newAgent = () => new Agent({ model, tools: log.tools, plugins: [hook], printer: false });
    const handback = strandsHandback({ handback: backend.agent });
    const agent = newAgent();
    const result = await agent.invoke('Order A-1042 arrived broken. Refund me.');
    expect(result.stopReason).toBe('interrupt');
    const runId = `strands-${++runs}-${Date.now()}`;
    const paused = await handback.pause(agent, result, { runId, ...extra });
    const key = { runId, interruptId: paused.interruptId };
    const resume = (continuationId: string) => handback.resume(newAgent(), { runId, continuationId });
    return { ...log, model, handback, newAgent, runId, paused, key, resume };
  }

  /** The tool results of the model's last request, by call id. */
  const lastResults = (model: ScriptedModel) =>
    Object.fromEntries(
      (model.requests.at(-1)?.messages.at(-1)?.content ?? []).flatMap((block: ContentBlockData) =>
        'toolResult' in block ? [[block.toolResult.toolUseId, block.toolResult]] : [],
      ),
    );

  /** The model's last request passes Converse's strict check, as Bedrock would read it. */
  const expectValidRequest = (model: ScriptedModel) =>
    expect(checkTranscript('bedrock-converse', model.requests.at(-1)?.messages.map(toConverse) ?? [])).toEqual([]);

  it('pauses the round as one pause: an ask per interrupt, the round whole in bedrock-converse', async () => {
    const backend = make();
    const { key, paused, runs: counts } = await pausedTurn(backend, [LOOKUP, ASK, REFUND, EMAIL]);
    expect(paused.asks).toEqual(['call_ask', 'call_refund', 'call_email']);
    const view = await backend.as('ada').getPause(key, { includeMessages: true });
    expect(view.format).toBe('bedrock-converse');
    expect(view.asks).toMatchObject([
      { toolCallId: 'call_ask', kind: 'answer', name: 'ask_human', answerSchema: { enum: ['yes', 'no'] } },
      { toolCallId: 'call_refund', kind: 'approval', args: REFUND.input, editable: true },
      { toolCallId: 'call_email', kind: 'approval', args: EMAIL.input, editable: false },
    ]);
    // The call that needed no one ran in that round; the asked ones did not.
    expect(counts).toEqual({ lookup_order: 1, ask_human: 0, refund_order: 0, send_email: 0 });
    expect(view.messages?.at(-1)).toMatchObject({
      role: 'user',
      content: [{ toolResult: { toolUseId: 'call_lookup', status: 'success' } }],
    });
    const rules = checkTranscript('bedrock-converse', view.messages ?? []).map((v) => v.rule);
    expect(new Set(rules)).toEqual(new Set(['missing-result']));
  });

  it('approves: the SDK runs the call once through the hook, and the model reads its result', async () => {
    const backend = make();
    const { key, refunds, model, resume } = await pausedTurn(backend, [LOOKUP, REFUND]);
    const closed = await backend
      .as('ada')
      .decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
    if (closed.kind !== 'closed') throw new Error('still pending');
    const resumed = await resume(closed.continuationId);
    expect(resumed.responses).toEqual([
      {
        interruptId: 'hook:beforeToolCall:call_refund:handback',
        response: {
          decision: 'approve',
          args: REFUND.input,
          execution: { runId: key.runId, continuationId: closed.continuationId, toolCallId: 'call_refund' },
        },
      },
    ]);
    expect(refunds).toEqual([REFUND.input]);
    expect(resumed.result.stopReason).toBe('endTurn');
    expect(String(resumed.result)).toBe(
      'call_lookup: success {"orderId":"A-1042","total":120} | call_refund: success {"refundId":"rf_1","orderId":"A-1042","amount":120}',
    );
    expectValidRequest(model);
  });

  it("edits: the call runs with the person's args, and the transcript the model reads has them", async () => {
    const backend = make();
    const { key, refunds, model, resume } = await pausedTurn(backend, [REFUND]);
    const args = { orderId: 'A-1042', amount: 80 };
    const closed = await backend
      .as('ada')
      .decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'edit', args }] });
    if (closed.kind !== 'closed') throw new Error('still pending');
    await resume(closed.continuationId);
    expect(refunds).toEqual([args]);
    const round = model.requests.at(-1)?.messages.at(-2);
    expect(round?.content).toEqual([{ toolUse: { ...REFUND, input: args } }]);
    expectValidRequest(model);
  });

  it("rejects: the tool never runs, and the model reads Handback's rejection with the reason as an error", async () => {
    const backend = make();
    const { key, runs: counts, model, resume } = await pausedTurn(backend, [REFUND]);
    const reason = 'Refunds over 100 need a photo.';
    const closed = await backend
      .as('ada')
      .decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'reject', reason }] });
    if (closed.kind !== 'closed') throw new Error('still pending');
    const resumed = await resume(closed.continuationId);
    expect(resumed.responses[0]?.response).toEqual({ decision: 'reject', message: `${REJECTED}\nReason: ${reason}` });
    expect(counts.refund_order).toBe(0);
    expect(lastResults(model).call_refund).toEqual({
      toolUseId: 'call_refund',
      status: 'error',
      content: [{ text: `${REJECTED}\nReason: ${reason}` }],
    });
    expectValidRequest(model);
  });

  it("answers: a tool with no side effects stands in, its result the person's answer", async () => {
    const backend = make();
    const { key, runs: counts, model, resume } = await pausedTurn(backend, [ASK]);
    const closed = await backend.as('ada').decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'yes' }] });
    if (closed.kind !== 'closed') throw new Error('still pending');
    const resumed = await resume(closed.continuationId);
    expect(counts.ask_human).toBe(0);
    expect(resumed.responses[0]?.response).toEqual({ decision: 'answer', answer: 'yes' });
    expect(String(resumed.result)).toBe('call_ask: success yes');
    expect(lastResults(model).call_ask).toEqual({
      toolUseId: 'call_ask',
      status: 'success',
      content: [{ text: 'yes' }],
    });
  });

  it('takes two asks of one round decided by two people, then runs each approved call once', async () => {
    const backend = make();
    const { key, runs: counts, model, resume } = await pausedTurn(backend, [REFUND, EMAIL]);
    const first = await backend
      .as('ada')
      .decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
    expect(first).toMatchObject({ kind: 'pending', pending: ['call_email'] });
    const last = await backend
      .as('bob')
      .decide({ ...key, decisions: [{ toolCallId: 'call_email', decision: 'approve' }] });
    if (last.kind !== 'closed') throw new Error('still pending');
    const resumed = await resume(last.continuationId);
    expect(counts).toMatchObject({ refund_order: 1, send_email: 1 });
    expect(resumed.responses.map((r) => r.response.decision)).toEqual(['approve', 'approve']);
    expect(Object.keys(lastResults(model))).toEqual(['call_refund', 'call_email']);
  });

  it("carries a tool's prompt, approvers and approvals into its ask, and runs it once the quorum has approved", async () => {
    const backend = make();
    const refund = { prompt: 'Refund A-1042?', approvers: { subjects: ['ada', 'bob'] }, approvals: 2 };
    const { key, runs: counts, resume } = await pausedTurn(backend, [REFUND], {}, { refund });
    const view = await backend.as('ada').getPause(key);
    expect(view.asks[0]).toMatchObject({ toolCallId: 'call_refund', kind: 'approval', ...refund });
    const approve = { toolCallId: 'call_refund', decision: 'approve' } as const;
    expect(await backend.as('ada').decide({ ...key, decisions: [approve] })).toMatchObject({ kind: 'pending' });
    const last = await backend.as('bob').decide({ ...key, decisions: [approve] });
    if (last.kind !== 'closed') throw new Error('still pending');
    await resume(last.continuationId);
    expect(counts.refund_order).toBe(1);
  });

  it('pauses the next round the resumed agent stops on as a new pause of the same run', async () => {
    const backend = make();
    const {
      key,
      runId,
      runs: counts,
      resume,
      handback,
      newAgent,
    } = await pausedTurn(backend, [REFUND], {}, { next: [EMAIL] });
    const closed = await backend
      .as('ada')
      .decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
    if (closed.kind !== 'closed') throw new Error('still pending');
    const agent = newAgent();
    const first = await handback.resume(agent, { runId, continuationId: closed.continuationId });
    expect(first.result.stopReason).toBe('interrupt');
    const again = await handback.pause(agent, first.result, { runId });
    expect(again.asks).toEqual(['call_email']);
    const view = await backend.as('ada').getPause({ runId, interruptId: again.interruptId }, { includeMessages: true });
    // The first round is history now, its refund's result in it; the new round waits for its call.
    expect(JSON.stringify(view.messages)).toContain('rf_1');
    expect(checkTranscript('bedrock-converse', view.messages ?? []).map((v) => v.rule)).toEqual(['missing-result']);
    const done = await backend.as('bob').decide({
      runId,
      interruptId: again.interruptId,
      decisions: [{ toolCallId: 'call_email', decision: 'approve' }],
    });
    if (done.kind !== 'closed') throw new Error('still pending');
    const second = await resume(done.continuationId);
    expect(second.result.stopReason).toBe('endTurn');
    expect(counts).toMatchObject({ refund_order: 1, send_email: 1 });
  });

  it('runs nothing after a cancel: every ask is rejected with the reason', async () => {
    const backend = make();
    const { key, runs: counts, model, resume } = await pausedTurn(backend, [LOOKUP, ASK, REFUND]);
    await backend.as('ada').decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
    const cancelled = await backend.as('ada').cancel({ ...key, reason: 'The customer withdrew.' });
    expect(cancelled.outcome).toBe('cancelled');
    const resumed = await resume(cancelled.continuationId);
    expect(counts).toMatchObject({ lookup_order: 1, ask_human: 0, refund_order: 0 });
    expect(resumed.responses.map((r) => r.response.decision)).toEqual(['reject', 'reject']);
    const results = lastResults(model);
    expect(results.call_refund?.status).toBe('error');
    expect(JSON.stringify(results.call_ask)).toContain('Reason: The customer withdrew.');
    expectValidRequest(model);
  });

  it('runs nothing when no one decided before an expiry that rejects', async () => {
    const backend = make();
    const {
      key,
      runs: counts,
      model,
      resume,
    } = await pausedTurn(backend, [REFUND], {
      expiresInSeconds: 1,
      onExpiry: 'reject',
    });
    await backend.expire(1);
    const view = await backend.as('ada').getPause(key);
    expect(view.status).toBe('expired');
    const resumed = await resume(view.continuationId ?? '');
    expect(resumed.continuation.outcome).toBe('expired');
    expect(counts.refund_order).toBe(0);
    expect(JSON.stringify(lastResults(model).call_refund)).toContain('Reason: No one decided before');
  });

  it('runs an approved tool once when the continuation is delivered twice at once and once more later', async () => {
    const backend = make();
    const { key, runs: counts, resume, model } = await pausedTurn(backend, [REFUND]);
    const closed = await backend
      .as('ada')
      .decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
    if (closed.kind !== 'closed') throw new Error('still pending');
    await Promise.all([resume(closed.continuationId), resume(closed.continuationId)]);
    const later = await resume(closed.continuationId);
    expect(counts.refund_order).toBe(1);
    // Every delivery hands the model the one run's result.
    expect(String(later.result)).toBe('call_refund: success {"refundId":"rf_1","orderId":"A-1042","amount":120}');
    expect(model.requests.filter((r) => r.messages.at(-1)?.content.some((b) => 'toolResult' in b))).toHaveLength(3);
  });

  it('refuses to pause an agent that did not stop on its interrupts, or that has no approvalHook', async () => {
    const backend = make();
    const handback = strandsHandback({ handback: backend.agent });
    const { tools } = toolsWithLog();
    const plain = new Agent({ model: new ScriptedModel([LOOKUP]), tools, printer: false });
    const done = await plain.invoke('Look A-1042 up.');
    await expect(handback.pause(plain, done, { runId: 'strands-none' })).rejects.toMatchObject({
      name: 'BadRequestError',
      message: expect.stringContaining('no approvalHook'),
    });
    const hooked = new Agent({
      model: new ScriptedModel([LOOKUP]),
      tools,
      plugins: [approvalHook({ tools: ['refund_order'] })],
      printer: false,
    });
    const finished = await hooked.invoke('Look A-1042 up.');
    await expect(handback.pause(hooked, finished, { runId: 'strands-none' })).rejects.toMatchObject({
      name: 'BadRequestError',
      message: expect.stringContaining('not on an interrupt'),
    });
  });
});

describe('handback/strands across Lambdas', () => {
  const table = useTestTable();

  it('runs an approved call once between two workers that each build their hook on the DynamoDB executions', async () => {
    const store = createMemoryCheckpointStore();
    const { tools, refunds } = toolsWithLog();
    const model = new ScriptedModel([REFUND]);
    // Each worker (a Lambda invocation) builds its own adapter, hook and agent; only the table is shared.
    const adapter = () =>
      strandsHandback({
        handback: { store, tenant: 'acme' },
        executions: createDynamoDBToolExecutions({ client: table.client, tableName: table.tableName }),
      });
    const worker = () =>
      new Agent({ model, tools, plugins: [approvalHook({ tools: ['refund_order'] })], printer: false });
    const handback = adapter();
    const agent = worker();
    const runId = `strands-lambdas-${Date.now()}`;
    const paused = await handback.pause(agent, await agent.invoke('Refund A-1042.'), { runId });
    const closed = await store.decide({
      tenant: 'acme',
      runId,
      interruptId: paused.interruptId,
      decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
    });
    if (closed.kind !== 'closed') throw new Error('still pending');
    const first = await adapter().resume(worker(), closed);
    const second = await adapter().resume(worker(), { runId, continuationId: closed.continuationId });
    expect(refunds).toEqual([REFUND.input]);
    expect(String(second.result)).toBe(String(first.result));
  });
});

describe('handback/strands claiming through Handback (§19)', () => {
  const SCHEMA = { file: 'handback.cedarschema', text: readFileSync('handback.cedarschema', 'utf8') };
  const engineOf = (text: string) => {
    const cedar = loadCedar();
    return createPolicyEngine(cedar, loadPolicies(cedar, { file: 'policies.cedar', text }, SCHEMA));
  };
  const ASK =
    '@id("refunds-ask")\npermit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order");\n';
  const FROZEN = `${ASK}@id("refunds-frozen")\n@reason("Refunds are frozen for the audit")\nforbid(principal, action, resource == Handback::Tool::"refund_order");\n`;

  /** Two workers, each with its own adapter and agent, claiming through the one store; the policies in force swappable. */
  async function approvedRefund() {
    let engine = engineOf(ASK);
    const store = createMemoryCheckpointStore({ policies: async () => engine });
    const { tools, refunds } = toolsWithLog();
    const model = new ScriptedModel([REFUND]);
    const adapter = () =>
      strandsHandback({
        handback: { store, tenant: 'acme' },
        executions: createHandbackToolExecutions({ store, tenant: 'acme' }),
      });
    const worker = () =>
      new Agent({ model, tools, plugins: [approvalHook({ tools: ['refund_order'] })], printer: false });
    const agent = worker();
    const runId = `strands-claims-${++runs}-${Date.now()}`;
    const paused = await adapter().pause(agent, await agent.invoke('Refund A-1042.'), { runId });
    const key = { tenant: 'acme', runId, interruptId: paused.interruptId };
    const closed = await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] });
    if (closed.kind !== 'closed') throw new Error('still pending');
    const setPolicies = (text: string) => {
      engine = engineOf(text);
    };
    return { store, key, closed, adapter, worker, refunds, model, setPolicies };
  }

  it('claims the call before it runs and records its end; a second worker is refused and runs nothing', async () => {
    const { store, key, closed, adapter, worker, refunds, model } = await approvedRefund();
    expect((await store.getPause(key)).asks[0]?.execution).toMatchObject({ status: 'waiting' });
    const first = await adapter().resume(worker(), closed);
    expect(refunds).toEqual([REFUND.input]);
    expect(first.result.stopReason).toBe('endTurn');
    expect((await store.getPause(key)).asks[0]?.execution).toMatchObject({ status: 'succeeded' });
    // The SDK turns what the tool threw into the call's error result: the second worker's model reads the claim.
    await adapter().resume(worker(), { runId: key.runId, continuationId: closed.continuationId });
    const [result] = (model.requests.at(-1)?.messages.at(-1)?.content ?? []).flatMap((block: ContentBlockData) =>
      'toolResult' in block ? [block.toolResult] : [],
    );
    expect(result).toMatchObject({ toolUseId: 'call_refund', status: 'error' });
    expect(JSON.stringify(result?.content)).toMatch(
      /Call call_refund of continuation .* was claimed at .*: it runs once, there/,
    );
    expect(refunds).toEqual([REFUND.input]);
  });

  it('runs nothing when the policies in force now forbid the call: the model reads which policy, and why', async () => {
    const { store, key, closed, adapter, worker, refunds, model, setPolicies } = await approvedRefund();
    setPolicies(FROZEN);
    const resumed = await adapter().resume(worker(), closed);
    expect(refunds).toEqual([]);
    const results = (model.requests.at(-1)?.messages.at(-1)?.content ?? []).flatMap((block: ContentBlockData) =>
      'toolResult' in block ? [block.toolResult] : [],
    );
    expect(results).toEqual([
      {
        toolUseId: 'call_refund',
        status: 'error',
        content: [
          {
            text: "Not run: the deployment's policy refunds-frozen does not allow this call.\nReason: Refunds are frozen for the audit",
          },
        ],
      },
    ]);
    expect(resumed.result.stopReason).toBe('endTurn');
    expect((await store.getPause(key)).asks[0]?.execution).toMatchObject({ status: 'refused' });
  });
});
