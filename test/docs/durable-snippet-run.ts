import { pathToFileURL } from 'node:url';
import type { withDurableExecution } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner, WaitingOperationStatus } from '@aws/durable-execution-sdk-js-testing';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  LambdaClient,
  SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackSuccessCommand,
} from '@aws-sdk/client-lambda';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createHandoff } from '../../functions/handoff/handoff.ts';
import { createDynamoDBCheckpointStore, type Decision } from '../../functions/index.ts';

/**
 * Runs docs/durable.md's snippet as Lambda would run it, in a process of its own (it builds its store from the
 * environment at import, as on Lambda): `node --import tsx durable-snippet-run.ts <snippet file> <decision JSON>`.
 * The SDK's local runner runs its handler; once the pause is made, the decision is recorded in the store on the same
 * table, and Handback's hand-off completes the callback (its Lambda command handed to the runner). Prints the
 * execution's result, or its error, as JSON.
 */

const [file = '', decisionJson = '{}'] = process.argv.slice(2);
const { handler } = (await import(pathToFileURL(file).href)) as { handler: ReturnType<typeof withDurableExecution> };
const store = createDynamoDBCheckpointStore({
  client: DynamoDBDocumentClient.from(new DynamoDBClient({})),
  tableName: process.env.TABLE_NAME as string,
});
const NAME = 'handback-decision';

await LocalDurableTestRunner.setupTestEnvironment({ skipTime: false });
const runner = new LocalDurableTestRunner({ handlerFunction: handler });
const lambda = mockClient(LambdaClient);
lambda.on(SendDurableExecutionCallbackSuccessCommand).callsFake(async (input) => {
  await runner.getOperation(NAME).sendCallbackSuccess(new TextDecoder().decode(input.Result as Uint8Array));
  return {};
});
lambda.on(SendDurableExecutionCallbackFailureCommand).callsFake(async (input) => {
  await runner.getOperation(NAME).sendCallbackFailure(input.Error ?? {});
  return {};
});
const silent = { info: () => {}, warn: () => {} };
const handoff = createHandoff({ target: 'none' }, { lambda: new LambdaClient({ region: 'local' }) }, silent);

const runId = `durable-snippet-${process.pid}`;
const running = runner.run({ payload: { runId } });
await runner.getOperation(NAME).waitForData(WaitingOperationStatus.SUBMITTED);
const pause = (await store.listPauses({ tenant: 'acme', status: 'paused' })).items.find((p) => p.runId === runId);
if (pause === undefined) throw new Error('the snippet made no pause');
const decision = JSON.parse(decisionJson) as Decision;
const key = { tenant: 'acme', runId, interruptId: pause.interruptId };
const closed =
  'decision' in decision || 'answer' in decision
    ? await store.decide({ ...key, decisions: [decision] })
    : { kind: 'closed' as const, ...(await store.cancel({ ...key, reason: 'Withdrawn.' })) };
if (closed.kind !== 'closed') throw new Error('one decision should close the pause');
await handoff.deliver(closed);
const execution = await running;
console.log(
  JSON.stringify(
    execution.getStatus() === 'SUCCEEDED'
      ? { result: execution.getResult() }
      : { error: execution.getError().errorType },
  ),
);
await LocalDurableTestRunner.teardownTestEnvironment();
