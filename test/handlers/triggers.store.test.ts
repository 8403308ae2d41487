import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import {
  createEventBridgeHandler,
  createSqsHandler,
  createStepFunctionsHandler,
  createSweepHandler,
} from '../../functions/handlers/triggers.ts';
import { createHandoff } from '../../functions/handoff/handoff.ts';
import * as target from '../../functions/handoff/target.ts';
import { loadPolicyEngine } from '../../functions/policies/engine-files.ts';
import type { ResumeBody } from '../../functions/resume/fit.ts';
import { policyTranscript } from '../../functions/testing/index.ts';
import { eventBridgeEvent, lambdaContext, pausedTurn, sqsEvent } from './events.ts';
import { useStoreTable } from './store.ts';
import { testTelemetry } from './telemetry.ts';

const table = useStoreTable();
let store: CheckpointStore;
const sqsMock = mockClient(SQSClient);
const sfnMock = mockClient(SFNClient);
const clients = {
  sqs: new SQSClient({ region: 'eu-west-1' }),
  sfn: new SFNClient({ region: 'eu-west-1' }),
  targetModule: target,
};

beforeAll(() => {
  store = table.store();
});
beforeEach(() => {
  sqsMock.reset();
  sfnMock.reset();
  sqsMock.on(SendMessageCommand).resolves({});
  sfnMock.on(SendTaskSuccessCommand).resolves({});
});

let seq = 0;
async function pause(overrides: Partial<Parameters<CheckpointStore['pause']>[0]> = {}) {
  const runId = `trigger-run-${Date.now()}-${++seq}`;
  const created = await store.pause({
    tenant: 'acme',
    runId,
    format: 'openai-chat',
    messages: pausedTurn(),
    toolCallId: 'call_ask',
    ...overrides,
  });
  return { runId, interruptId: created.interruptId };
}

function deps(options: { handoffStore?: CheckpointStore } = {}) {
  const telemetry = testTelemetry();
  const handoff = createHandoff({ target: 'sqs', queueUrl: 'https://sqs/next' }, clients, telemetry.logger);
  return { ...telemetry, handoff, store: options.handoffStore ?? store };
}

describe('the Step Functions task handler', () => {
  it('outputs the resume body and completes the pause task token with the pointer', async () => {
    const { runId, interruptId } = await pause({ taskToken: 'AQCEAAAAKgAAAA-token' });
    const handler = createStepFunctionsHandler(deps());
    const output = (await handler(
      { runId, interruptId, answer: { approve: true }, tenant: 'acme' },
      lambdaContext(),
    )) as ResumeBody;
    expect(output).toEqual({
      runId,
      interruptId,
      continuationId: expect.any(String),
      format: 'openai-chat',
      outcome: 'resumed',
      dispatch: [],
      messages: expect.any(Array),
      resumedAt: expect.any(String),
    });
    expect(output.messages).toHaveLength(6);
    const pointer = JSON.stringify({
      runId,
      interruptId,
      continuationId: output.continuationId,
      format: 'openai-chat',
      outcome: 'resumed',
      dispatch: [],
      messages: output.messages,
    });
    expect(sfnMock.commandCalls(SendTaskSuccessCommand).map((call) => call.args[0].input)).toEqual([
      { taskToken: 'AQCEAAAAKgAAAA-token', output: pointer },
    ]);
    expect(sqsMock.commandCalls(SendMessageCommand).map((call) => call.args[0].input.MessageBody)).toEqual([pointer]);
  });

  it('leaves messages out of an output that would pass 256 KB', async () => {
    const messages = [{ role: 'user', content: 'z'.repeat(300 * 1024) }, ...pausedTurn().slice(1)];
    const { runId, interruptId } = await pause({ messages });
    const output = await createStepFunctionsHandler(deps())(
      { runId, interruptId, answer: 'yes', tenant: 'acme' },
      lambdaContext(),
    );
    expect(output).toMatchObject({ messagesOmitted: true, continuationId: expect.any(String) });
    expect(output).not.toHaveProperty('messages');
  });

  it.each([
    [
      'PauseNotFoundError',
      async () => ({ runId: 'nope', interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA', answer: 1, tenant: 'acme' }),
    ],
    ['PauseNotFoundError', async () => ({ ...(await pause()), answer: 1, tenant: 'globex' })],
    ['BadRequestError', async () => ({ runId: 'bad run', interruptId: 'x', answer: 1 })],
    [
      'InvalidAnswerError',
      async () => ({ ...(await pause({ answerSchema: { type: 'number' } })), answer: 'one', tenant: 'acme' }),
    ],
  ])('throws %s, by name, for Catch to match', async (name, input) => {
    const handler = createStepFunctionsHandler(deps());
    await expect(handler(await input(), lambdaContext())).rejects.toHaveProperty('name', name);
  });

  it('records decisions from the task input: pending while asks wait, then the continuation with its dispatch', async () => {
    const messages = [
      { role: 'user', content: 'Refund and notify.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_refund', type: 'function', function: { name: 'refund', arguments: '{"amount":120}' } },
          { id: 'call_notify', type: 'function', function: { name: 'notify', arguments: '{}' } },
        ],
      },
    ];
    const asks = [
      { toolCallId: 'call_refund', kind: 'approval' as const },
      { toolCallId: 'call_notify', kind: 'approval' as const },
    ];
    const { runId, interruptId } = await pause({ messages, asks, toolCallId: undefined });
    const handler = createStepFunctionsHandler(deps());
    const first = await handler(
      {
        runId,
        interruptId,
        tenant: 'acme',
        decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: { amount: 60 } }],
      },
      lambdaContext(),
    );
    expect(first).toEqual({ runId, interruptId, status: 'paused', decided: ['call_refund'], pending: ['call_notify'] });
    const last = await handler(
      {
        runId,
        interruptId,
        tenant: 'acme',
        decisions: [{ toolCallId: 'call_notify', decision: 'reject', reason: 'Not now.' }],
      },
      lambdaContext(),
    );
    expect(last).toMatchObject({
      outcome: 'resumed',
      dispatch: [{ toolCallId: 'call_refund', name: 'refund', args: { amount: 60 } }],
    });
  });

  it('cancels from the task input with action "cancel", and fails the pause task with PauseCancelledError', async () => {
    sfnMock.on(SendTaskFailureCommand).resolves({});
    const { runId, interruptId } = await pause({ taskToken: 'AQCE-cancel-token' });
    const handler = createStepFunctionsHandler(deps());
    const output = await handler(
      { action: 'cancel', runId, interruptId, reason: 'Withdrawn.', tenant: 'acme' },
      lambdaContext(),
    );
    expect(output).toMatchObject({ outcome: 'cancelled', dispatch: [] });
    const failures = sfnMock.commandCalls(SendTaskFailureCommand).map((call) => call.args[0].input);
    expect(failures).toEqual([
      { taskToken: 'AQCE-cancel-token', error: 'PauseCancelledError', cause: expect.any(String) },
    ]);
    expect(JSON.parse(failures[0]?.cause ?? '')).toMatchObject({ runId, interruptId, outcome: 'cancelled' });
  });

  it.each([
    ['an answer and decisions at once', { answer: 1, decisions: [] }],
    ['a cancel with an answer', { action: 'cancel', answer: 1 }],
    ['neither an answer nor decisions', {}],
  ])('refuses %s with BadRequestError', async (_, extra) => {
    const { runId, interruptId } = await pause();
    const handler = createStepFunctionsHandler(deps());
    await expect(handler({ runId, interruptId, tenant: 'acme', ...extra }, lambdaContext())).rejects.toHaveProperty(
      'name',
      'BadRequestError',
    );
  });

  it('throws AlreadyResumedError for another answer after a resume', async () => {
    const { runId, interruptId } = await pause();
    const handler = createStepFunctionsHandler(deps());
    await handler({ runId, interruptId, answer: 'yes', tenant: 'acme' }, lambdaContext());
    await expect(handler({ runId, interruptId, answer: 'no', tenant: 'acme' }, lambdaContext())).rejects.toMatchObject({
      name: 'AlreadyResumedError',
      code: 'already_resumed',
    });
  });
});

describe('the SQS handler', () => {
  it('resumes each message, records the ones that can never succeed, and reports only transient failures', async () => {
    const good = await pause();
    const transient = await pause();
    const d = deps();
    // The hand-off of the second resume fails once: a transient failure the queue must retry.
    sqsMock.on(SendMessageCommand).resolvesOnce({}).rejectsOnce(new Error('ThrottlingException')).resolves({});
    const handler = createSqsHandler(d);
    const event = sqsEvent([
      JSON.stringify({ ...good, answer: 'yes', tenant: 'acme' }),
      JSON.stringify({ ...transient, answer: 'yes', tenant: 'acme' }),
      JSON.stringify({ runId: 'ghost', interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA', answer: 'yes', tenant: 'acme' }),
      'not json',
    ]);
    // Records run concurrently; hand-off order follows resume order, so only assert which record failed.
    const response = await handler(event, lambdaContext());
    expect(response.batchItemFailures.length).toBe(1);
    const failed = response.batchItemFailures[0]?.itemIdentifier;
    expect(['msg-0', 'msg-1']).toContain(failed);
    expect(d.addMetric.mock.calls.filter((call) => call[0] === 'rejected')).toHaveLength(2);
    expect(d.logged.warn).toHaveBeenCalledWith(
      'Resume request rejected',
      expect.objectContaining({ messageId: 'msg-2', reason: 'pause_not_found', trigger: 'sqs', runId: 'ghost' }),
    );
    expect(d.logged.warn).toHaveBeenCalledWith(
      'Resume request rejected',
      expect.objectContaining({ messageId: 'msg-3', reason: 'bad_request' }),
    );

    // The retry of the failed message replays the committed resume and delivers the pointer again.
    const retried = event.Records.find((record) => record.messageId === failed);
    if (retried === undefined) throw new Error('the failed message is not in the batch');
    const again = await handler({ Records: [retried] }, lambdaContext());
    expect(again.batchItemFailures).toEqual([]);
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(3);
  });
});

describe('an edit through a trigger, judged by the policies (§19)', () => {
  it('refuses over SQS and EventBridge an edit past a forbid, recording nothing; the control edit is recorded', async () => {
    const engine = loadPolicyEngine({
      policies: 'test/fixtures/policies/edits.cedar',
      schema: 'test/fixtures/policies/edits.cedarschema',
      mode: 'enforce',
      default: 'ask',
      timeZone: 'UTC',
    });
    const judging = table.store(undefined, async () => engine);
    const runId = `trigger-policy-${Date.now()}`;
    // No amount: no policy applies, so the trigger's principal may decide it.
    const { interruptId } = await judging.pause({
      tenant: 'acme',
      runId,
      format: 'openai-chat',
      messages: policyTranscript([['call_refund', 'refund_order', { orderId: 'A-1' }]]),
      asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
    });
    const before = await judging.getPause({ tenant: 'acme', runId, interruptId });
    const d = { ...deps(), store: judging };
    const edit = (amount: number) => ({
      runId,
      interruptId,
      tenant: 'acme',
      decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1', amount } }],
    });
    const sqs = await createSqsHandler(d)(sqsEvent([JSON.stringify(edit(40_000))]), lambdaContext());
    // Never retried: the same edit would be refused again.
    expect(sqs.batchItemFailures).toEqual([]);
    await createEventBridgeHandler(d)(eventBridgeEvent(edit(900_000)), lambdaContext());
    for (const messageId of ['msg-0', undefined]) {
      expect(d.logged.warn).toHaveBeenCalledWith(
        'Resume request rejected',
        expect.objectContaining({ reason: 'policy_forbids', runId, ...(messageId === undefined ? {} : { messageId }) }),
      );
    }
    expect(await judging.getPause({ tenant: 'acme', runId, interruptId })).toEqual(before);
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(0);

    await createEventBridgeHandler(d)(
      eventBridgeEvent({
        ...edit(0),
        decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-2' } }],
      }),
      lambdaContext(),
    );
    const view = await judging.getPause({ tenant: 'acme', runId, interruptId });
    expect(view.asks[0]?.decision).toMatchObject({
      decision: 'edit',
      args: { orderId: 'A-2' },
      policy: { outcome: 'ask', basis: 'default', version: engine.version },
    });
  });
});

describe('the EventBridge handler', () => {
  it('resumes from a "Resume Requested" detail', async () => {
    const { runId, interruptId } = await pause();
    const d = deps();
    await createEventBridgeHandler(d)(
      eventBridgeEvent({ runId, interruptId, answer: { approve: true }, tenant: 'acme' }),
      lambdaContext(),
    );
    const view = await store.getPause({ tenant: 'acme', runId, interruptId });
    expect(view.status).toBe('resumed');
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(1);
  });

  it('records a request that can never succeed and returns, so EventBridge does not retry it', async () => {
    const { runId, interruptId } = await pause();
    const d = deps();
    const handler = createEventBridgeHandler(d);
    await handler(eventBridgeEvent({ runId, interruptId, answer: 'yes', tenant: 'acme' }), lambdaContext());
    await expect(
      handler(eventBridgeEvent({ runId, interruptId, answer: 'no', tenant: 'acme' }), lambdaContext()),
    ).resolves.toBeUndefined();
    await expect(
      handler(eventBridgeEvent({ runId, interruptId, answer: 'no' }, 'Something Else'), lambdaContext()),
    ).resolves.toBeUndefined();
    expect(d.addMetric.mock.calls.filter((call) => call[0] === 'rejected')).toHaveLength(2);
    expect(d.logged.warn).toHaveBeenCalledWith(
      'Resume request rejected',
      expect.objectContaining({ reason: 'already_resumed', runId }),
    );
  });

  it('throws on a transient failure so EventBridge retries', async () => {
    const { runId, interruptId } = await pause();
    sqsMock.on(SendMessageCommand).rejects(new Error('ServiceUnavailable'));
    const handler = createEventBridgeHandler(deps());
    await expect(
      handler(eventBridgeEvent({ runId, interruptId, answer: 'yes', tenant: 'acme' }), lambdaContext()),
    ).rejects.toHaveProperty('name', 'HandoffFailedError');
  });
});

describe('the sweep handler', () => {
  it('closes a due onExpiry "reject" pause, hands off its continuation and completes its task', async () => {
    let now = Date.now();
    const clocked = table.store(() => new Date(now));
    const { runId, interruptId } = await pause({ onExpiry: 'reject', expiresInSeconds: 30, taskToken: 'AQCE-expiry' });
    now += 31_000;
    const d = { ...deps(), store: clocked };
    const totals = await createSweepHandler(d)({}, lambdaContext());
    expect(totals.closed).toBeGreaterThanOrEqual(1);
    const view = await clocked.getPause({ tenant: 'acme', runId, interruptId });
    expect(view).toMatchObject({ status: 'expired', outcome: 'expired', continuationId: expect.any(String) });
    const pointers = sqsMock
      .commandCalls(SendMessageCommand)
      .map((call) => JSON.parse(String(call.args[0].input.MessageBody)))
      .filter((pointer) => pointer.interruptId === interruptId);
    expect(pointers).toEqual([expect.objectContaining({ outcome: 'expired', continuationId: view.continuationId })]);
    const tasks = sfnMock.commandCalls(SendTaskSuccessCommand).map((call) => call.args[0].input);
    expect(tasks).toContainEqual({ taskToken: 'AQCE-expiry', output: expect.stringContaining('"outcome":"expired"') });
    expect(d.metricNames()).toContain('PausesExpired');
  });

  it('counts what waits on the ticks of every fifth minute only, as PendingAsks and OldestPendingSeconds (§21)', async () => {
    await pause();
    const fifth = Math.floor(Date.now() / 300_000) * 300_000 + 1000;
    const counted = { ...deps(), now: () => fifth };
    await createSweepHandler(counted)({}, lambdaContext());
    const pending = counted.addMetric.mock.calls.filter(([name]) => name === 'PendingAsks');
    // At least the pause above, in all and per tool (the table is shared with the other tests).
    expect(pending[0]?.[2]).toBeGreaterThanOrEqual(1);
    expect(pending[0]?.[3]).toEqual({ values: {}, sets: [[]] });
    expect(counted.metricNames()).toContain('OldestPendingSeconds');
    expect(counted.logged.info).toHaveBeenCalledWith(
      'Pending asks counted',
      expect.objectContaining({ asks: expect.any(Number) }),
    );
    const other = { ...deps(), now: () => fifth + 60_000 };
    await createSweepHandler(other)({}, lambdaContext());
    expect(other.metricNames()).not.toContain('PendingAsks');
  });
});
