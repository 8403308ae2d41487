import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  CallbackTimeoutException,
  InvokeCommand,
  LambdaClient,
  SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackSuccessCommand,
  ServiceException,
} from '@aws-sdk/client-lambda';
import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient, TaskTimedOut } from '@aws-sdk/client-sfn';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ResumeResult } from '../../functions/checkpoints/checkpoint-store.ts';
import { HandoffFailedError } from '../../functions/errors.ts';
import {
  createHandoff,
  createHandoffClients,
  HANDOFF_INLINE_LIMIT_BYTES,
  handoffPointer,
  TASK_FAILURE_CAUSE_LIMIT_BYTES,
} from '../../functions/handoff/handoff.ts';
import * as target from '../../functions/handoff/target.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

const sqsMock = mockClient(SQSClient);
const eventBridgeMock = mockClient(EventBridgeClient);
const lambdaMock = mockClient(LambdaClient);
const sfnMock = mockClient(SFNClient);
const clients = {
  sqs: new SQSClient({}),
  eventBridge: new EventBridgeClient({}),
  lambda: new LambdaClient({}),
  sfn: new SFNClient({}),
  targetModule: target,
};

const messages = [
  { role: 'user', content: 'Where is order 42?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ask_human', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'yes' },
];
const result: ResumeResult = {
  runId: 'run-1',
  interruptId: 'int-1',
  continuationId: 'cont-1',
  format: 'openai-chat',
  outcome: 'resumed',
  dispatch: [],
  messages,
  resumedAt: '2026-11-30T00:00:00.000Z',
  replayed: false,
};
const pointer = {
  runId: 'run-1',
  interruptId: 'int-1',
  continuationId: 'cont-1',
  format: 'openai-chat',
  outcome: 'resumed',
  dispatch: [],
  messages,
};

beforeEach(() => {
  sqsMock.reset();
  eventBridgeMock.reset();
  lambdaMock.reset();
  sfnMock.reset();
});

describe('handoffPointer', () => {
  it('carries the messages when the whole pointer is under the limit', () => {
    expect(handoffPointer(result)).toEqual(pointer);
  });

  it('leaves the messages out when the whole would pass 256 KB', () => {
    const big = { ...result, messages: [{ role: 'user', content: 'x'.repeat(HANDOFF_INLINE_LIMIT_BYTES) }] };
    expect(handoffPointer(big)).toEqual({
      runId: 'run-1',
      interruptId: 'int-1',
      continuationId: 'cont-1',
      format: 'openai-chat',
      outcome: 'resumed',
      dispatch: [],
    });
  });
});

describe('createHandoff', () => {
  it('sends the pointer to the SQS queue', async () => {
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    const { logger } = testTelemetry();
    await createHandoff(
      { target: 'sqs', queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/next' },
      clients,
      logger,
    ).deliver(result);
    expect(sqsMock.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/next', MessageBody: JSON.stringify(pointer) },
    ]);
    expect(sfnMock.calls()).toHaveLength(0);
  });

  it('puts a "Turn Resumed" event from source handback on the bus', async () => {
    eventBridgeMock.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    const { logger } = testTelemetry();
    await createHandoff({ target: 'eventbridge', eventBusName: 'agents' }, clients, logger).deliver(result);
    expect(eventBridgeMock.commandCalls(PutEventsCommand).map((call) => call.args[0].input)).toEqual([
      {
        Entries: [
          { EventBusName: 'agents', Source: 'handback', DetailType: 'Turn Resumed', Detail: JSON.stringify(pointer) },
        ],
      },
    ]);
  });

  it('fails when PutEvents refuses the entry, although the call itself succeeded', async () => {
    eventBridgeMock
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' }] });
    const { logger } = testTelemetry();
    const delivery = createHandoff({ target: 'eventbridge', eventBusName: 'agents' }, clients, logger).deliver(result);
    await expect(delivery).rejects.toBeInstanceOf(HandoffFailedError);
    await expect(delivery).rejects.toHaveProperty('name', 'HandoffFailedError');
  });

  it('invokes the agent function asynchronously with the pointer as payload', async () => {
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 202 });
    const { logger } = testTelemetry();
    await createHandoff({ target: 'lambda', functionName: 'agent' }, clients, logger).deliver(result);
    const calls = lambdaMock.commandCalls(InvokeCommand).map((call) => call.args[0].input);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ FunctionName: 'agent', InvocationType: 'Event' });
    expect(JSON.parse(new TextDecoder().decode(calls[0]?.Payload as Uint8Array))).toEqual(pointer);
  });

  it('sends nothing for target none', async () => {
    const { logger } = testTelemetry();
    await createHandoff({ target: 'none' }, clients, logger).deliver(result);
    expect([sqsMock, eventBridgeMock, lambdaMock, sfnMock].map((mock) => mock.calls().length)).toEqual([0, 0, 0, 0]);
  });

  it('completes the Step Functions task with the pointer when the pause carries a task token', async () => {
    sqsMock.on(SendMessageCommand).resolves({});
    sfnMock.on(SendTaskSuccessCommand).resolves({});
    const { logger } = testTelemetry();
    await createHandoff({ target: 'sqs', queueUrl: 'q' }, clients, logger).deliver({ ...result, taskToken: 'token-1' });
    expect(sfnMock.commandCalls(SendTaskSuccessCommand).map((call) => call.args[0].input)).toEqual([
      { taskToken: 'token-1', output: JSON.stringify(pointer) },
    ]);
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(1);
  });

  it('fails the Step Functions task with PauseCancelledError and the pointer as its cause for a cancel', async () => {
    sfnMock.on(SendTaskFailureCommand).resolves({});
    const { logger } = testTelemetry();
    const cancelled = { ...result, outcome: 'cancelled' as const, taskToken: 'token-2' };
    await createHandoff({ target: 'none' }, clients, logger).deliver(cancelled);
    expect(sfnMock.commandCalls(SendTaskFailureCommand).map((call) => call.args[0].input)).toEqual([
      {
        taskToken: 'token-2',
        error: 'PauseCancelledError',
        cause: JSON.stringify({ ...pointer, outcome: 'cancelled' }),
      },
    ]);
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
  });

  it.each([
    ['keeps the messages in the cause when it fits', 1_000, true],
    ['leaves the messages out of the cause past 32,768 bytes, the most SendTaskFailure takes', 40_000, false],
  ])('on a cancel %s', async (_, chars, inline) => {
    sfnMock.on(SendTaskFailureCommand).resolves({});
    const { logger } = testTelemetry();
    const long = [{ role: 'user', content: 'x'.repeat(chars) }, ...messages.slice(1)];
    const cancelled = { ...result, messages: long, outcome: 'cancelled' as const, taskToken: 'token-4' };
    await createHandoff({ target: 'none' }, clients, logger).deliver(cancelled);
    const cause = String(sfnMock.commandCalls(SendTaskFailureCommand)[0]?.args[0].input.cause);
    expect([Buffer.byteLength(cause) <= TASK_FAILURE_CAUSE_LIMIT_BYTES, 'messages' in JSON.parse(cause)]).toEqual([
      true,
      inline,
    ]);
  });

  it('completes the task with the pointer, dispatch included, for a pause closed at its expiry', async () => {
    sfnMock.on(SendTaskSuccessCommand).resolves({});
    const { logger } = testTelemetry();
    const dispatch = [{ toolCallId: 'call_1', name: 'refund_order', args: { amount: 60 } }];
    const expired = { ...result, outcome: 'expired' as const, dispatch, taskToken: 'token-3' };
    await createHandoff({ target: 'none' }, clients, logger).deliver(expired);
    const output = JSON.parse(String(sfnMock.commandCalls(SendTaskSuccessCommand)[0]?.args[0].input.output));
    expect(output).toMatchObject({ outcome: 'expired', dispatch });
  });

  it('counts an already settled task token as delivered, and warns', async () => {
    sfnMock.on(SendTaskSuccessCommand).rejects(new TaskTimedOut({ message: 'Task Timed Out', $metadata: {} }));
    const { logger, logged } = testTelemetry();
    await createHandoff({ target: 'none' }, clients, logger).deliver({ ...result, taskToken: 'token-1' });
    expect(logged.warn).toHaveBeenCalledWith(
      expect.stringContaining('already settled'),
      expect.objectContaining({ error: 'TaskTimedOut' }),
    );
  });

  it('fails with HandoffFailedError when the queue refuses, naming the continuation', async () => {
    sqsMock.on(SendMessageCommand).rejects(new Error('AccessDenied'));
    const { logger } = testTelemetry();
    const delivery = createHandoff({ target: 'sqs', queueUrl: 'q' }, clients, logger).deliver(result);
    await expect(delivery).rejects.toMatchObject({ name: 'HandoffFailedError', continuationId: 'cont-1' });
  });

  it('completes the Step Functions task even when the target refuses, then fails so the trigger retries', async () => {
    sqsMock.on(SendMessageCommand).rejects(new Error('AccessDenied'));
    sfnMock.on(SendTaskSuccessCommand).resolves({});
    const { logger } = testTelemetry();
    const delivery = createHandoff({ target: 'sqs', queueUrl: 'q' }, clients, logger).deliver({
      ...result,
      taskToken: 'token-1',
    });
    await expect(delivery).rejects.toMatchObject({ name: 'HandoffFailedError', continuationId: 'cont-1' });
    expect(sfnMock.commandCalls(SendTaskSuccessCommand).map((call) => call.args[0].input)).toEqual([
      { taskToken: 'token-1', output: JSON.stringify(pointer) },
    ]);
  });

  it('sends to the target even when the task token cannot be completed, and fails so the trigger retries', async () => {
    sqsMock.on(SendMessageCommand).resolves({});
    sfnMock.on(SendTaskSuccessCommand).rejects(new Error('Throttling'));
    const { logger } = testTelemetry();
    const delivery = createHandoff({ target: 'sqs', queueUrl: 'q' }, clients, logger).deliver({
      ...result,
      taskToken: 'token-1',
    });
    await expect(delivery).rejects.toMatchObject({ name: 'HandoffFailedError' });
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(1);
  });
});

describe('createHandoff for a pause that carries a durable callback id', () => {
  const decode = (bytes: unknown) => new TextDecoder().decode(bytes as Uint8Array);

  it('sends SendDurableExecutionCallbackSuccess with the pointer as the result', async () => {
    lambdaMock.on(SendDurableExecutionCallbackSuccessCommand).resolves({});
    const { logger } = testTelemetry();
    await createHandoff({ target: 'none' }, clients, logger).deliver({ ...result, callbackId: 'cb-1' });
    const calls = lambdaMock.commandCalls(SendDurableExecutionCallbackSuccessCommand).map((call) => call.args[0].input);
    expect(calls.map((input) => [input.CallbackId, decode(input.Result)])).toEqual([['cb-1', JSON.stringify(pointer)]]);
  });

  it('sends SendDurableExecutionCallbackFailure with PauseCancelledError and the pointer as its data for a cancel', async () => {
    lambdaMock.on(SendDurableExecutionCallbackFailureCommand).resolves({});
    const { logger } = testTelemetry();
    await createHandoff({ target: 'none' }, clients, logger).deliver({
      ...result,
      outcome: 'cancelled',
      callbackId: 'cb-2',
    });
    expect(
      lambdaMock.commandCalls(SendDurableExecutionCallbackFailureCommand).map((call) => call.args[0].input),
    ).toEqual([
      {
        CallbackId: 'cb-2',
        Error: {
          ErrorType: 'PauseCancelledError',
          ErrorMessage: 'A person cancelled the pause.',
          ErrorData: JSON.stringify({ ...pointer, outcome: 'cancelled' }),
        },
      },
    ]);
    expect(lambdaMock.commandCalls(SendDurableExecutionCallbackSuccessCommand)).toHaveLength(0);
  });

  it('completes the callback with the expired pointer for a pause closed at its expiry', async () => {
    lambdaMock.on(SendDurableExecutionCallbackSuccessCommand).resolves({});
    const { logger } = testTelemetry();
    await createHandoff({ target: 'none' }, clients, logger).deliver({
      ...result,
      outcome: 'expired',
      callbackId: 'cb-3',
    });
    const sent = lambdaMock.commandCalls(SendDurableExecutionCallbackSuccessCommand)[0]?.args[0].input;
    expect(JSON.parse(decode(sent?.Result))).toMatchObject({ outcome: 'expired', continuationId: 'cont-1' });
  });

  it('completes the task token and the callback even when the target refuses, then fails', async () => {
    sqsMock.on(SendMessageCommand).rejects(new Error('AccessDenied'));
    sfnMock.on(SendTaskSuccessCommand).resolves({});
    lambdaMock.on(SendDurableExecutionCallbackSuccessCommand).resolves({});
    const { logger } = testTelemetry();
    const delivery = createHandoff({ target: 'sqs', queueUrl: 'q' }, clients, logger).deliver({
      ...result,
      taskToken: 'token-1',
      callbackId: 'cb-4',
    });
    await expect(delivery).rejects.toBeInstanceOf(HandoffFailedError);
    expect([
      sqsMock.commandCalls(SendMessageCommand).length,
      sfnMock.commandCalls(SendTaskSuccessCommand).length,
      lambdaMock.commandCalls(SendDurableExecutionCallbackSuccessCommand).map((call) => call.args[0].input.CallbackId),
    ]).toEqual([1, 1, ['cb-4']]);
  });

  it('counts a callback already completed or timed out as delivered, and warns', async () => {
    lambdaMock
      .on(SendDurableExecutionCallbackSuccessCommand)
      .rejects(new CallbackTimeoutException({ message: 'closed', $metadata: {} }));
    const { logger, logged } = testTelemetry();
    await createHandoff({ target: 'none' }, clients, logger).deliver({ ...result, callbackId: 'cb-5' });
    expect(logged.warn).toHaveBeenCalledWith(
      expect.stringContaining('already settled'),
      expect.objectContaining({ error: 'CallbackTimeoutException' }),
    );
  });

  it('fails with HandoffFailedError naming the Lambda call when the callback cannot be completed', async () => {
    lambdaMock
      .on(SendDurableExecutionCallbackSuccessCommand)
      .rejects(new ServiceException({ message: 'boom', $metadata: {} }));
    const { logger } = testTelemetry();
    const delivery = createHandoff({ target: 'none' }, clients, logger).deliver({ ...result, callbackId: 'cb-6' });
    await expect(delivery).rejects.toMatchObject({
      name: 'HandoffFailedError',
      message: expect.stringContaining('SendDurableExecutionCallbackSuccess'),
    });
  });
});

describe('createHandoffClients', () => {
  /** A `capture` that records the class of each client it is given. */
  const capturing = () => {
    const captured: string[] = [];
    const capture = <C extends object>(client: C): C => {
      captured.push(client.constructor.name);
      return client;
    };
    return { captured, capture };
  };

  it('makes the target client at once, given target.ts, and the task token and callback clients when a closing first needs them', async () => {
    const { captured, capture } = capturing();
    const made = createHandoffClients('sqs', { capture, targetModule: target });
    expect([captured, made.sfn, made.lambda]).toEqual([['SQSClient'], undefined, undefined]);
    sqsMock.on(SendMessageCommand).resolves({});
    sfnMock.on(SendTaskSuccessCommand).resolves({});
    lambdaMock.on(SendDurableExecutionCallbackSuccessCommand).resolves({});
    const { logger } = testTelemetry();
    const handoff = createHandoff({ target: 'sqs', queueUrl: 'q' }, made, logger);
    await handoff.deliver(result);
    expect(captured).toEqual(['SQSClient']);
    await handoff.deliver({ ...result, taskToken: 'token-1', callbackId: 'cb-1' });
    await handoff.deliver({ ...result, taskToken: 'token-2', callbackId: 'cb-2' });
    expect([...captured].sort()).toEqual(['LambdaClient', 'SFNClient', 'SQSClient']);
    expect([
      sfnMock.commandCalls(SendTaskSuccessCommand).map((call) => call.args[0].input.taskToken),
      lambdaMock.commandCalls(SendDurableExecutionCallbackSuccessCommand).map((call) => call.args[0].input.CallbackId),
    ]).toEqual([
      ['token-1', 'token-2'],
      ['cb-1', 'cb-2'],
    ]);
  });

  it("completes callbacks with the lambda target's own client and makes no second one", () => {
    const { captured, capture } = capturing();
    const made = createHandoffClients('lambda', { withStepFunctions: false, capture, targetModule: target });
    expect([captured, made.onFirstUse]).toEqual([['LambdaClient'], undefined]);
  });

  it('given a loader of target.ts, loads it and makes the target client on the first hand-off, once however many wait', async () => {
    const { captured, capture } = capturing();
    let loads = 0;
    const made = createHandoffClients('sqs', {
      capture,
      targetModule: async () => {
        loads += 1;
        return target;
      },
    });
    expect([loads, captured, made.sqs]).toEqual([0, [], undefined]);
    sqsMock.on(SendMessageCommand).resolves({});
    const { logger } = testTelemetry();
    const handoff = createHandoff({ target: 'sqs', queueUrl: 'q' }, made, logger);
    expect([loads, captured]).toEqual([0, []]);
    await Promise.all([handoff.deliver(result), handoff.deliver({ ...result, continuationId: 'cont-2' })]);
    await handoff.deliver({ ...result, continuationId: 'cont-3' });
    expect([loads, captured]).toEqual([1, ['SQSClient']]);
    expect(
      sqsMock
        .commandCalls(SendMessageCommand)
        .map((call) => JSON.parse(String(call.args[0].input.MessageBody)).continuationId),
    ).toEqual(['cont-1', 'cont-2', 'cont-3']);
  });

  it('given a loader, tries again after a load that failed, as a HandoffFailedError the trigger retries', async () => {
    const { captured, capture } = capturing();
    const outcomes: Array<Error | typeof target> = [new Error('chunk unreadable'), target];
    const made = createHandoffClients('sqs', {
      capture,
      targetModule: async () => {
        const next = outcomes.shift();
        if (next instanceof Error) throw next;
        return next as typeof target;
      },
    });
    sqsMock.on(SendMessageCommand).resolves({});
    const { logger } = testTelemetry();
    const handoff = createHandoff({ target: 'sqs', queueUrl: 'q' }, made, logger);
    await expect(handoff.deliver(result)).rejects.toBeInstanceOf(HandoffFailedError);
    await handoff.deliver(result);
    expect([outcomes, captured, sqsMock.commandCalls(SendMessageCommand).length]).toEqual([[], ['SQSClient'], 1]);
  });

  it("given a loader for the lambda target, completes callbacks with the target's client made on first use", async () => {
    const { captured, capture } = capturing();
    const made = createHandoffClients('lambda', {
      withStepFunctions: false,
      capture,
      targetModule: async () => target,
    });
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 202 });
    lambdaMock.on(SendDurableExecutionCallbackSuccessCommand).resolves({});
    const { logger } = testTelemetry();
    await createHandoff({ target: 'lambda', functionName: 'agent' }, made, logger).deliver({
      ...result,
      callbackId: 'cb-1',
    });
    expect(captured).toEqual(['LambdaClient']);
    expect([
      lambdaMock.commandCalls(InvokeCommand).length,
      lambdaMock.commandCalls(SendDurableExecutionCallbackSuccessCommand).length,
    ]).toEqual([1, 1]);
  });

  it('is refused when the hand-off is made without its target module or client', () => {
    const { logger } = testTelemetry();
    expect(() => createHandoff({ target: 'sqs', queueUrl: 'q' }, { sqs: new SQSClient({}) }, logger)).toThrow(
      /needs an SQS client and target\.ts/,
    );
    expect(() => createHandoff({ target: 'eventbridge', eventBusName: 'b' }, { targetModule: target }, logger)).toThrow(
      /needs an EventBridge client/,
    );
  });
});
