import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  InvokeCommand,
  LambdaClient,
  SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackSuccessCommand,
} from '@aws-sdk/client-lambda';
import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ResumeResult } from '../../functions/checkpoints/checkpoint-store.ts';
import { createHandoff } from '../../functions/handoff/handoff.ts';
import * as target from '../../functions/handoff/target.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

// §21: every hand-off carries the pause's traceparent back, so the agent's next invocation joins the trace.

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

const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const messages = [{ role: 'user', content: 'Delete the branch?' }];
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
  traceparent,
};
const pointer = JSON.stringify({
  runId: 'run-1',
  interruptId: 'int-1',
  continuationId: 'cont-1',
  format: 'openai-chat',
  outcome: 'resumed',
  dispatch: [],
  traceparent,
  messages,
});

beforeEach(() => {
  sqsMock.reset();
  eventBridgeMock.reset();
  lambdaMock.reset();
  sfnMock.reset();
});

describe('a hand-off of a pause made in a trace', () => {
  it('sends SQS the pointer with its traceparent, and the traceparent as a message attribute', async () => {
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    await createHandoff(
      { target: 'sqs', queueUrl: 'https://sqs.test/1/next' },
      clients,
      testTelemetry().logger,
    ).deliver(result);
    expect(sqsMock.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      {
        QueueUrl: 'https://sqs.test/1/next',
        MessageBody: pointer,
        MessageAttributes: { traceparent: { DataType: 'String', StringValue: traceparent } },
      },
    ]);
  });

  it('sends SQS no message attribute for a pause made outside a trace', async () => {
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    const { traceparent: _, ...untraced } = result;
    await createHandoff(
      { target: 'sqs', queueUrl: 'https://sqs.test/1/next' },
      clients,
      testTelemetry().logger,
    ).deliver(untraced);
    const [call] = sqsMock.commandCalls(SendMessageCommand);
    expect(call?.args[0].input.MessageAttributes).toBeUndefined();
    expect(JSON.parse(call?.args[0].input.MessageBody ?? '{}')).not.toHaveProperty('traceparent');
  });

  it("puts the traceparent in the EventBridge event's detail", async () => {
    eventBridgeMock.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    await createHandoff({ target: 'eventbridge', eventBusName: 'agents' }, clients, testTelemetry().logger).deliver(
      result,
    );
    expect(eventBridgeMock.commandCalls(PutEventsCommand).map((call) => call.args[0].input)).toEqual([
      { Entries: [{ EventBusName: 'agents', Source: 'handback', DetailType: 'Turn Resumed', Detail: pointer }] },
    ]);
  });

  it("puts the traceparent in the Lambda target's payload", async () => {
    lambdaMock.on(InvokeCommand).resolves({ StatusCode: 202 });
    await createHandoff({ target: 'lambda', functionName: 'agent' }, clients, testTelemetry().logger).deliver(result);
    const [call] = lambdaMock.commandCalls(InvokeCommand);
    expect(call?.args[0].input).toMatchObject({ FunctionName: 'agent', InvocationType: 'Event' });
    expect(new TextDecoder().decode(call?.args[0].input.Payload as Uint8Array)).toBe(pointer);
  });

  it("completes the Step Functions task with the traceparent in its output, and a cancel's failure in its cause", async () => {
    sfnMock.on(SendTaskSuccessCommand).resolves({});
    sfnMock.on(SendTaskFailureCommand).resolves({});
    const handoff = createHandoff({ target: 'none' }, clients, testTelemetry().logger);
    await handoff.deliver({ ...result, taskToken: 'token-1' });
    await handoff.deliver({ ...result, outcome: 'cancelled', taskToken: 'token-2' });
    expect(sfnMock.commandCalls(SendTaskSuccessCommand).map((call) => call.args[0].input)).toEqual([
      { taskToken: 'token-1', output: pointer },
    ]);
    const [failure] = sfnMock.commandCalls(SendTaskFailureCommand);
    expect(JSON.parse(failure?.args[0].input.cause ?? '{}')).toMatchObject({ outcome: 'cancelled', traceparent });
  });

  it("completes the durable callback with the traceparent in its result, and a cancel's in its error data", async () => {
    lambdaMock.on(SendDurableExecutionCallbackSuccessCommand).resolves({});
    lambdaMock.on(SendDurableExecutionCallbackFailureCommand).resolves({});
    const handoff = createHandoff({ target: 'none' }, clients, testTelemetry().logger);
    await handoff.deliver({ ...result, callbackId: 'cb-1' });
    await handoff.deliver({ ...result, outcome: 'cancelled', callbackId: 'cb-2' });
    const [success] = lambdaMock.commandCalls(SendDurableExecutionCallbackSuccessCommand);
    expect(success?.args[0].input.CallbackId).toBe('cb-1');
    expect(new TextDecoder().decode(success?.args[0].input.Result as Uint8Array)).toBe(pointer);
    const [failure] = lambdaMock.commandCalls(SendDurableExecutionCallbackFailureCommand);
    expect(JSON.parse(failure?.args[0].input.Error?.ErrorData ?? '{}')).toMatchObject({ traceparent });
  });
});
