import { type DurableContext, withDurableExecution } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner, WaitingOperationStatus } from '@aws/durable-execution-sdk-js-testing';
import {
  LambdaClient,
  SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackSuccessCommand,
} from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AlreadyClaimedError,
  createHandbackToolExecutions,
  type DurablePauseInput,
  runApproved,
  waitForDecision,
} from '../../functions/adapters/durable.ts';
import type { AdapterOperations, HandbackOption, HandbackStore } from '../../functions/adapters/shared.ts';
import type {
  Continuation,
  PauseClosed,
  PauseCreated,
  PauseInput,
} from '../../functions/checkpoints/checkpoint-store.ts';
import { createDynamoDBCheckpointStore } from '../../functions/dynamodb.ts';
import { createHandoff } from '../../functions/handoff/handoff.ts';
import type { CheckpointStore, Decision } from '../../functions/index.ts';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { testTelemetry } from '../handlers/telemetry.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * `handback/durable` with the durable execution SDK's own local runner: a durable function pauses with
 * `waitForDecision`, people decide through the store or the local service over HTTP, Handback's hand-off completes
 * the callback (its Lambda commands asserted and passed on to the runner), and the function goes on.
 */

const table = useTestTable();
const lambdaMock = mockClient(LambdaClient);
const { logger } = testTelemetry();
const handoff = createHandoff({ target: 'none' }, { lambda: new LambdaClient({ region: 'local' }) }, logger);
let store: CheckpointStore;
let runner: LocalDurableTestRunner;

const TENANT = 'acme';
const NAME = 'handback-decision';

function pauseInput(runId: string, extra: Partial<PauseInput> = {}): DurablePauseInput {
  return {
    runId,
    format: 'openai-chat',
    messages: [
      { role: 'user', content: 'Refund order 42.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_refund', type: 'function', function: { name: 'refund_order', arguments: '{"amount":120}' } },
          { id: 'call_ask', type: 'function', function: { name: 'ask_human', arguments: '{}' } },
        ],
      },
    ],
    asks: [
      { toolCallId: 'call_refund', kind: 'approval' },
      { toolCallId: 'call_ask', kind: 'answer' },
    ],
    expiresInSeconds: 3600,
    ...extra,
  };
}

/** The agent: waits for the decision, then "runs" what was dispatched in a step of its own. */
function agent(backend: () => HandbackOption, extra: Partial<PauseInput> = {}, graceSeconds?: number) {
  return withDurableExecution(async (event: { runId: string }, context: DurableContext) => {
    try {
      const decided = await waitForDecision(context, pauseInput(event.runId, extra), {
        handback: backend(),
        ...(graceSeconds === undefined ? {} : { graceSeconds }),
      });
      const ran = await context.step('run-tools', async () => decided.dispatch.map((call) => [call.name, call.args]));
      return { outcome: decided.outcome, ran, last: decided.messages.at(-1) };
    } catch (error) {
      return { error: (error as Error).name };
    }
  });
}

/** Passes the hand-off's Lambda commands on to the runner's callback, checking the callback id they name. */
function forwardCallbacks() {
  const operation = () => runner.getOperation(NAME);
  lambdaMock.on(SendDurableExecutionCallbackSuccessCommand).callsFake(async (input) => {
    expect(input.CallbackId).toBe(operation().getCallbackDetails()?.callbackId);
    await operation().sendCallbackSuccess(new TextDecoder().decode(input.Result as Uint8Array));
    return {};
  });
  lambdaMock.on(SendDurableExecutionCallbackFailureCommand).callsFake(async (input) => {
    expect(input.CallbackId).toBe(operation().getCallbackDetails()?.callbackId);
    await operation().sendCallbackFailure(input.Error ?? {});
    return {};
  });
}

beforeAll(async () => {
  await LocalDurableTestRunner.setupTestEnvironment({ skipTime: false });
  store = createDynamoDBCheckpointStore({ client: table.client, tableName: table.tableName });
});
afterAll(() => LocalDurableTestRunner.teardownTestEnvironment());
beforeEach(() => {
  lambdaMock.reset();
  forwardCallbacks();
});

/** Starts the execution and waits until its pause is made; returns the pause and the execution's end. */
async function paused(handler: ReturnType<typeof agent>, runId: string) {
  runner = new LocalDurableTestRunner({ handlerFunction: handler });
  const running = runner.run({ payload: { runId } });
  await runner.getOperation(NAME).waitForData(WaitingOperationStatus.SUBMITTED);
  const page = await store.listPauses({ tenant: TENANT, status: 'paused' });
  const pause = page.items.find((item) => item.runId === runId);
  if (pause === undefined) throw new Error(`no pause for ${runId}`);
  return { interruptId: pause.interruptId, running };
}

async function decideThroughStore(runId: string, decisions: Decision[]) {
  const { interruptId, running } = await paused(
    agent(() => ({ store, tenant: TENANT })),
    runId,
  );
  const result = await store.decide({ tenant: TENANT, runId, interruptId, decisions });
  if (result.kind !== 'closed') throw new Error('the decisions should close the pause');
  expect(result.callbackId).toBe(runner.getOperation(NAME).getCallbackDetails()?.callbackId);
  await handoff.deliver(result);
  return (await running).getResult();
}

describe('waitForDecision through the store', () => {
  it.each([
    [
      'approved',
      [
        { toolCallId: 'call_refund', decision: 'approve' },
        { toolCallId: 'call_ask', answer: 'ok' },
      ],
      [['refund_order', { amount: 120 }]],
    ],
    [
      'edited',
      [
        { toolCallId: 'call_refund', decision: 'edit', args: { amount: 60 } },
        { toolCallId: 'call_ask', answer: 'ok' },
      ],
      [['refund_order', { amount: 60 }]],
    ],
    [
      'rejected',
      [
        { toolCallId: 'call_refund', decision: 'reject', reason: 'no' },
        { toolCallId: 'call_ask', answer: 'ok' },
      ],
      [],
    ],
  ] as [string, Decision[], unknown[]][])(
    'resumes the function with the continuation when %s',
    async (kind, decisions, ran) => {
      const result = await decideThroughStore(`durable-${kind}`, decisions);
      expect(result).toMatchObject({ outcome: 'resumed', ran });
    },
  );

  it('hands the answer over as the answered call result, in the continuation messages', async () => {
    const result = await decideThroughStore('durable-answer', [
      { toolCallId: 'call_refund', decision: 'reject' },
      { toolCallId: 'call_ask', answer: 'it arrived broken' },
    ]);
    expect(result).toMatchObject({ last: { role: 'tool', tool_call_id: 'call_ask', content: 'it arrived broken' } });
  });

  it('sends the callback success with the pointer, exactly once per closing', async () => {
    await decideThroughStore('durable-commands', [
      { toolCallId: 'call_refund', decision: 'approve' },
      { toolCallId: 'call_ask', answer: 'ok' },
    ]);
    const calls = lambdaMock.commandCalls(SendDurableExecutionCallbackSuccessCommand);
    const pointer = JSON.parse(new TextDecoder().decode(calls[0]?.args[0].input.Result as Uint8Array));
    expect([calls.length, pointer.runId, pointer.outcome]).toEqual([1, 'durable-commands', 'resumed']);
  });

  it('throws PauseCancelledError in the function when the pause is cancelled', async () => {
    const runId = 'durable-cancel';
    const { interruptId, running } = await paused(
      agent(() => ({ store, tenant: TENANT })),
      runId,
    );
    await handoff.deliver(await store.cancel({ tenant: TENANT, runId, interruptId, reason: 'not now' }));
    expect([
      (await running).getResult(),
      lambdaMock.commandCalls(SendDurableExecutionCallbackFailureCommand)[0]?.args[0].input.Error?.ErrorType,
    ]).toEqual([{ error: 'PauseCancelledError' }, 'PauseCancelledError']);
  });

  it('resumes with the expired continuation when an onExpiry "reject" pause is closed by the sweep', async () => {
    const runId = 'durable-expired';
    const { running } = await paused(
      agent(() => ({ store, tenant: TENANT }), { expiresInSeconds: 1, onExpiry: 'reject' }),
      runId,
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const swept = await store.closeDue();
    for (const closed of swept.closed) await handoff.deliver(closed);
    expect((await running).getResult()).toMatchObject({ outcome: 'expired', ran: [] });
  });

  it('throws PauseExpiredError when an onExpiry "fail" pause expires and its callback times out', async () => {
    const { running } = await paused(
      agent(() => ({ store, tenant: TENANT }), { expiresInSeconds: 1 }, 1),
      'durable-expired-fail',
    );
    expect((await running).getResult()).toEqual({ error: 'PauseExpiredError' });
  });

  it('makes one pause when the submitter is retried after its pause was recorded', async () => {
    const runId = 'durable-retried';
    let attempts = 0;
    const flaky: HandbackStore = {
      getPause: (key, options) => store.getPause(key, options),
      async pause(input): Promise<PauseCreated | PauseClosed> {
        const created = await store.pause(input);
        attempts += 1;
        // The first answer is lost on the way back, as after a timeout: the step retries with the same callback id.
        if (attempts === 1) throw new Error('socket hang up');
        return created;
      },
      getContinuation: (key): Promise<Continuation> => store.getContinuation(key),
    };
    const { interruptId, running } = await paused(
      agent(() => ({ store: flaky, tenant: TENANT })),
      runId,
    );
    const all = await store.listPauses({ tenant: TENANT });
    expect([attempts, all.items.filter((item) => item.runId === runId).map((item) => item.interruptId)]).toEqual([
      2,
      [interruptId],
    ]);
    await handoff.deliver(
      (await store.decide({
        tenant: TENANT,
        runId,
        interruptId,
        decisions: [
          { toolCallId: 'call_refund', decision: 'approve' },
          { toolCallId: 'call_ask', answer: 'ok' },
        ],
      })) as never,
    );
    expect((await running).getResult()).toMatchObject({ outcome: 'resumed' });
  });

  it('makes no second pause when the function replays after the callback completes', async () => {
    const runId = 'durable-replayed';
    let pauses = 0;
    const counting: HandbackStore = {
      getPause: (key, options) => store.getPause(key, options),
      pause: (input) => {
        pauses += 1;
        return store.pause(input);
      },
      getContinuation: (key) => store.getContinuation(key),
    };
    const { interruptId, running } = await paused(
      agent(() => ({ store: counting, tenant: TENANT })),
      runId,
    );
    const closed = await store.decide({
      tenant: TENANT,
      runId,
      interruptId,
      decisions: [
        { toolCallId: 'call_refund', decision: 'approve' },
        { toolCallId: 'call_ask', answer: 'ok' },
      ],
    });
    await handoff.deliver(closed as never);
    const execution = await running;
    expect([execution.getInvocations().length > 1, pauses]).toEqual([true, 1]);
  });
});

describe('runApproved claiming through Handback (§19)', () => {
  it('claims each approved call in its step before it runs and records its end; a second delivery runs nothing', async () => {
    const refunds: unknown[] = [];
    const executions = createHandbackToolExecutions({ store, tenant: TENANT });
    const refund = async (call: { args: unknown }) => {
      refunds.push(call.args);
      return { refundId: 'rf_1' };
    };
    const handler = withDurableExecution(async (event: { runId: string }, context: DurableContext) => {
      const decided = await waitForDecision(context, pauseInput(event.runId), { handback: { store, tenant: TENANT } });
      return { decided, results: await runApproved(context, decided, refund, { executions }) };
    });
    const runId = `durable-claims-${Date.now()}`;
    const { interruptId, running } = await paused(handler, runId);
    const decisions: Decision[] = [
      { toolCallId: 'call_refund', decision: 'approve' },
      { toolCallId: 'call_ask', answer: 'ok' },
    ];
    const closed = await store.decide({ tenant: TENANT, runId, interruptId, decisions });
    if (closed.kind !== 'closed') throw new Error('the decisions should close the pause');
    await handoff.deliver(closed);
    const { decided, results } = (await running).getResult() as {
      decided: Parameters<typeof runApproved>[1];
      results: unknown;
    };
    expect(results).toEqual([{ toolCallId: 'call_refund', output: '{"refundId":"rf_1"}' }]);
    expect(refunds).toEqual([{ amount: 120 }]);
    const view = await store.getPause({ tenant: TENANT, runId, interruptId });
    expect(view.asks[0]?.execution).toMatchObject({ status: 'succeeded' });
    // Another execution handed the same decision (a redelivered hand-off): its step finds the claim taken.
    const step = (_name: string, run: () => Promise<unknown>) => run();
    await expect(
      runApproved({ step } as Parameters<typeof runApproved>[0], decided, refund, { executions }),
    ).rejects.toBeInstanceOf(AlreadyClaimedError);
    expect(refunds).toHaveLength(1);
  });
});

describe('waitForDecision through the local service over HTTP', () => {
  let service: LocalService;
  beforeAll(async () => {
    service = await startLocalService({ PORT: '0', HOST: '127.0.0.1' }, { handoff });
  });
  afterAll(() => service.close());

  /** The two calls the adapter makes, over HTTP: what `handback/client` does, without its retries. */
  const http = (): AdapterOperations => ({
    getPause: () => Promise.reject(new Error('waitForDecision reads no pause')),
    async pause({ runId, idempotencyKey, ...body }) {
      const response = await fetch(`${service.url}/runs/${runId}/pauses`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
      return (await response.json()) as PauseCreated;
    },
    async getContinuation({ runId, continuationId }) {
      return (await (
        await fetch(`${service.url}/runs/${runId}/continuations/${continuationId}`)
      ).json()) as Continuation;
    },
  });

  it('resumes the function once people decide over HTTP', async () => {
    const runId = 'durable-http';
    runner = new LocalDurableTestRunner({ handlerFunction: agent(http) });
    const running = runner.run({ payload: { runId } });
    await runner.getOperation(NAME).waitForData(WaitingOperationStatus.SUBMITTED);
    const list = (await (await fetch(`${service.url}/pauses?status=paused`)).json()) as {
      items: { runId: string; interruptId: string }[];
    };
    const interruptId = list.items.find((item) => item.runId === runId)?.interruptId;
    const response = await fetch(`${service.url}/runs/${runId}/resume`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        interruptId,
        decisions: [
          { toolCallId: 'call_refund', decision: 'edit', args: { amount: 10 } },
          { toolCallId: 'call_ask', answer: 'ok' },
        ],
      }),
    });
    expect([response.status, (await running).getResult()]).toEqual([
      200,
      expect.objectContaining({ outcome: 'resumed', ran: [['refund_order', { amount: 10 }]] }),
    ]);
  });
});
