import { pathToFileURL } from 'node:url';
import type { withDurableExecution } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner, WaitingOperationStatus } from '@aws/durable-execution-sdk-js-testing';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Decision, ResumeResult } from 'handback';
import { createDynamoDBCheckpointStore } from 'handback/dynamodb';

/**
 * Runs docs/durable.md's snippet as Lambda would run it, in a process of its own (it builds its store from the
 * environment at import, as on Lambda): `node --import tsx durable-snippet-run.ts <snippet file> <decision JSON>
 * [handoff|runner]`. The SDK's local runner runs its handler; once the pause is made, the decision is recorded in the
 * store on the same table, and the callback is completed with the continuation — by Handback's hand-off (`handoff`,
 * the default: its Lambda commands handed to the runner), or, as the page's "Run it without AWS" tells an agent
 * developer, by handing the runner the continuation itself (`runner`: in a fresh project, where only the package is
 * installed). Prints the execution's result, or its error, as JSON.
 */

const [file = '', decisionJson = '{}', delivery = 'handoff'] = process.argv.slice(2);
const { handler } = (await import(pathToFileURL(file).href)) as { handler: ReturnType<typeof withDurableExecution> };
const store = createDynamoDBCheckpointStore({
  client: DynamoDBDocumentClient.from(new DynamoDBClient({})),
  tableName: process.env.TABLE_NAME as string,
});
const NAME = 'handback-decision';

await LocalDurableTestRunner.setupTestEnvironment({ skipTime: false });
const runner = new LocalDurableTestRunner({ handlerFunction: handler });
const deliver = delivery === 'runner' ? handToRunner : await handoffToRunner();

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
await deliver(closed);
const execution = await running;
console.log(
  JSON.stringify(
    execution.getStatus() === 'SUCCEEDED'
      ? { result: execution.getResult() }
      : { error: execution.getError().errorType },
  ),
);
await LocalDurableTestRunner.teardownTestEnvironment();

/** Handback's hand-off, its Lambda client's callback commands handed to the runner (the repository's modules). */
async function handoffToRunner(): Promise<(closed: ResumeResult) => Promise<void>> {
  const { mockClient } = await import('aws-sdk-client-mock');
  const lambdaSdk = await import('@aws-sdk/client-lambda');
  const { createHandoff } = await import('../../functions/handoff/handoff.ts');
  const lambda = mockClient(lambdaSdk.LambdaClient);
  lambda.on(lambdaSdk.SendDurableExecutionCallbackSuccessCommand).callsFake(async (input) => {
    await runner.getOperation(NAME).sendCallbackSuccess(new TextDecoder().decode(input.Result as Uint8Array));
    return {};
  });
  lambda.on(lambdaSdk.SendDurableExecutionCallbackFailureCommand).callsFake(async (input) => {
    await runner.getOperation(NAME).sendCallbackFailure(input.Error ?? {});
    return {};
  });
  const silent = { info: () => {}, warn: () => {} };
  const clients = { lambda: new lambdaSdk.LambdaClient({ region: 'local' }) };
  const handoff = createHandoff({ target: 'none' }, clients, silent);
  return (closed) => handoff.deliver(closed);
}

/**
 * The continuation handed to the runner as the page says a test does: the pointer as the callback's result, or, for
 * a cancel, the callback's failure in the shape the page gives (docs/durable.md, "The cancel's error shape").
 */
async function handToRunner(closed: ResumeResult): Promise<void> {
  const { resumedAt: _, ...pointer } = closed;
  const operation = runner.getOperation(NAME);
  if (closed.outcome !== 'cancelled') await operation.sendCallbackSuccess(JSON.stringify(pointer));
  else {
    const failure = {
      ErrorType: 'PauseCancelledError',
      ErrorData: JSON.stringify(pointer),
      ErrorMessage: 'Withdrawn.',
    };
    await operation.sendCallbackFailure(failure);
  }
}
