import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PauseInput } from '../../functions/checkpoints/checkpoint-store.ts';
import { createDynamoDBCheckpointStore } from '../../functions/dynamodb.ts';
import { createStepFunctionsHandler } from '../../functions/handlers/triggers.ts';
import { createHandoff } from '../../functions/handoff/handoff.ts';
import type { CheckpointStore } from '../../functions/index.ts';
import { lambdaContext } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { definitionOf, type State } from './asl.ts';
import { defaultSynth } from './synth.ts';

/**
 * The reference workflow run state by state: its synthesized states move the data (their `Parameters`, `Payload`,
 * `ResultPath` and `Catch` read as Step Functions reads them), the example agent is the Lambda it invokes, the store
 * is real, people decide through the Step Functions task handler with `by`, and the hand-off's own `SendTaskSuccess`
 * and `SendTaskFailure` (captured from a mocked client) complete the waiting task. So the error the hand-off fails a
 * cancelled task with is the one the workflow catches, by construction.
 */

const table = useTestTable();
const sfnMock = mockClient(SFNClient);
const asl = definitionOf(defaultSynth().template, 'ApprovalWorkflowStateMachine');
let agent: (event: unknown) => Promise<unknown>;
let store: CheckpointStore;

beforeAll(async () => {
  // The agent builds its store at cold start from the environment, as on Lambda; here it points at the test table.
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
    AWS_REGION: 'local',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  ({ handler: agent } = (await import('../../infra/example-agent/handler.ts')) as unknown as {
    handler: typeof agent;
  });
  store = createDynamoDBCheckpointStore({ client: table.client, tableName: table.tableName });
});
beforeEach(() => {
  sfnMock.reset();
  sfnMock.on(SendTaskSuccessCommand).resolves({});
  sfnMock.on(SendTaskFailureCommand).resolves({});
});

type Json = Record<string, unknown>;

/** A JSONPath of the forms the workflow uses (`$.a.b`), read from `input`. */
function read(input: Json, path: string): unknown {
  if (path === '$') return input;
  return path
    .slice(2)
    .split('.')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], input);
}

/** A `Parameters` or `Payload` template filled in: `.$` keys read paths, `$$.Task.Token` and `States.StringToJson`. */
function fill(template: unknown, input: Json, taskToken: string): unknown {
  if (typeof template !== 'object' || template === null || Array.isArray(template)) return template;
  return Object.fromEntries(
    Object.entries(template).map(([key, value]) => {
      if (!key.endsWith('.$')) return [key, fill(value, input, taskToken)];
      const expression = String(value);
      const parsed = /^States\.StringToJson\((.+)\)$/.exec(expression);
      const resolved =
        expression === '$$.Task.Token'
          ? taskToken
          : parsed
            ? JSON.parse(String(read(input, parsed[1] as string)))
            : read(input, expression);
      return [key.slice(0, -2), resolved];
    }),
  );
}

/** `value` placed at a `ResultPath` of the forms the workflow uses (`$.name`). */
function place(input: Json, resultPath: string, value: unknown): Json {
  return { ...input, [resultPath.slice(2)]: value };
}

const state = (name: string) => asl.States[name] as State;

/** Runs the states from `name` until one waits for a person or the run ends; returns where it stopped. */
async function runFrom(name: string, input: Json, token: string): Promise<{ at: string; input: Json }> {
  let at = name;
  let data = input;
  for (let steps = 0; steps < 20; steps++) {
    const current = state(at);
    if (current.Type === 'Succeed' || current.Type === 'Fail') return { at, input: data };
    if (current.Type === 'Pass') data = fill(current.Parameters, data, token) as Json;
    if (current.Type === 'Choice') {
      const rule = current.Choices?.find((choice) => read(data, choice.Variable) === choice.StringEquals);
      at = rule?.Next ?? (current.Default as string);
      continue;
    }
    if (current.Type === 'Task') {
      const payload = current.Resource?.endsWith('.waitForTaskToken')
        ? (current.Parameters?.Payload as Json)
        : undefined;
      // The agent step hands the agent its whole input (payloadResponseOnly); the waiting step, its Payload.
      const response = await agent(payload === undefined ? data : fill(payload, data, token));
      if (payload !== undefined) return { at, input: data };
      data = response as Json;
    }
    at = current.Next as string;
  }
  throw new Error('the run did not stop');
}

/** The waiting task completed as the hand-off completed it: `SendTaskSuccess`'s output or `SendTaskFailure`'s error. */
function completeWait(waiting: Json): { next: string; input: Json } {
  const wait = state('Wait for answer');
  const success = sfnMock.commandCalls(SendTaskSuccessCommand)[0]?.args[0].input;
  if (success !== undefined) {
    return {
      next: wait.Next as string,
      input: place(waiting, wait.ResultPath as string, JSON.parse(String(success.output))),
    };
  }
  const failure = sfnMock.commandCalls(SendTaskFailureCommand)[0]?.args[0].input;
  const rule = wait.Catch?.find((c) => c.ErrorEquals.includes(String(failure?.error)));
  if (failure === undefined || rule === undefined) throw new Error(`no Catch for ${failure?.error}`);
  return {
    next: rule.Next,
    input: place(waiting, rule.ResultPath ?? '$', { Error: failure.error, Cause: failure.cause }),
  };
}

const TENANT = 'acme';
const alice = { subject: 'alice', email: 'alice@example.com', groups: ['refunds'] };
const bob = { subject: 'bob', groups: ['refunds'] };

/** The example agent's pause, with the §13 rules on it: refunds decided by two of the refunds group, four eyes. */
function withRules(pause: Json): Json {
  const asks = (pause.asks as PauseInput['asks'] & object).map((ask) =>
    ask.toolCallId === 'call_refund_1' ? { ...ask, approvers: { groups: ['refunds'] }, approvals: 2 } : ask,
  );
  return { ...pause, asks, fourEyes: true };
}

/** A run up to its waiting step: the agent pauses with the rules above, and records the pause with the token. */
async function pausedRun(runId: string) {
  const token = `token-${runId}`;
  const first = (await agent({ runId, tenant: TENANT })) as Json;
  const waiting = await runFrom('Needs a person?', { ...first, pause: withRules(first.pause as Json) }, token);
  const [open] = (await store.listPauses({ tenant: TENANT, status: 'paused' })).items.filter(
    (pause) => pause.runId === runId,
  );
  if (open === undefined) throw new Error('the waiting step should record the pause');
  return { token, waiting, interruptId: open.interruptId };
}

const { logger } = testTelemetry();
const sfnTask = () =>
  createStepFunctionsHandler({
    ...testTelemetry(),
    store,
    handoff: createHandoff({ target: 'none' }, { sfn: new SFNClient({ region: 'local' }) }, logger),
  });

describe('the reference workflow, run with the example agent', () => {
  it('records the pause with its asks, approvers, quorum and four eyes, and waits with the task token', async () => {
    const { waiting, interruptId } = await pausedRun('wf-record');
    const view = await store.getPause({ tenant: TENANT, runId: 'wf-record', interruptId });
    const refund = view.asks.find((ask) => ask.toolCallId === 'call_refund_1');
    expect([waiting.at, view.fourEyes, refund?.approvers, refund?.approvals, view.asks.map((ask) => ask.kind)]).toEqual(
      ['Wait for answer', true, { groups: ['refunds'] }, 2, ['answer', 'approval', 'approval']],
    );
  });

  it('goes on from the decisions made through the Step Functions task with by: two approvers, then the agent runs the calls', async () => {
    const runId = 'wf-decided';
    const { waiting, interruptId } = await pausedRun(runId);
    const task = sfnTask();
    const decide = (by: Json, decisions: Json[]) =>
      task({ runId, interruptId, tenant: TENANT, by, decisions }, lambdaContext());
    const votes = await decide(alice, [
      { toolCallId: 'call_ask_1', answer: 'It arrived broken.' },
      { toolCallId: 'call_refund_1', decision: 'approve' },
      { toolCallId: 'call_email_1', decision: 'approve' },
    ]);
    expect(votes).toMatchObject({ status: 'paused', pending: ['call_refund_1'] });
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
    await decide(bob, [{ toolCallId: 'call_refund_1', decision: 'approve' }]);
    const completed = completeWait(waiting.input);
    const end = await runFrom(completed.next, completed.input, 'unused');
    expect([end.at, end.input.outcome, end.input.reply]).toEqual([
      'Done',
      'resumed',
      'Done: refund_order and send_email.',
    ]);
  });

  it('refuses a decision by someone outside the approvers, through the Step Functions task, by name', async () => {
    const runId = 'wf-refused';
    const { interruptId } = await pausedRun(runId);
    const outsider = { subject: 'mallory', groups: ['sales'] };
    await expect(
      sfnTask()(
        {
          runId,
          interruptId,
          tenant: TENANT,
          by: outsider,
          decisions: [{ toolCallId: 'call_refund_1', decision: 'approve' }],
        },
        lambdaContext(),
      ),
    ).rejects.toHaveProperty('name', 'NotAnApproverError');
  });

  it('catches the cancel the hand-off sends (SendTaskFailure, PauseCancelledError), records it, and the agent goes on from the cancelled pointer', async () => {
    const runId = 'wf-cancelled';
    const { waiting, interruptId } = await pausedRun(runId);
    await sfnTask()(
      { action: 'cancel', runId, interruptId, tenant: TENANT, by: alice, reason: 'Customer withdrew.' },
      lambdaContext(),
    );
    const completed = completeWait(waiting.input);
    expect(completed.next).toBe('Record the cancellation');
    const end = await runFrom(completed.next, completed.input, 'unused');
    expect([end.at, end.input.outcome, end.input.ran, end.input.reply]).toEqual([
      'Done',
      'cancelled',
      [],
      'The request was cancelled, so I did not refund the order or send the email.',
    ]);
  });

  it('goes on with outcome expired when the sweep closes an onExpiry "reject" pause, running nothing', async () => {
    const runId = 'wf-expired';
    const { waiting } = await pausedRun(runId);
    const expiresInSeconds =
      (state('Wait for answer').Parameters?.Payload as { expiresInSeconds?: number } | undefined)?.expiresInSeconds ??
      0;
    const later = createDynamoDBCheckpointStore({
      client: table.client,
      tableName: table.tableName,
      clock: () => new Date(Date.now() + (expiresInSeconds + 1) * 1000),
    });
    const handoff = createHandoff({ target: 'none' }, { sfn: new SFNClient({ region: 'local' }) }, logger);
    const { closed } = await later.closeDue();
    const mine = closed.find((result) => result.runId === runId);
    if (mine === undefined) throw new Error('the sweep should close the expired pause');
    await handoff.deliver(mine);
    const completed = completeWait(waiting.input);
    const end = await runFrom(completed.next, completed.input, 'unused');
    expect([end.at, end.input.outcome, end.input.ran]).toEqual(['Done', 'expired', []]);
  });
});
