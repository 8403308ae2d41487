import { Duration, type Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { AGENT_STEPS, WAIT_BEYOND_EXPIRY } from './approval-workflow.ts';
import { HandbackFunction } from './handback-function.ts';
import { ENTRY } from './paths.ts';
import { acknowledgeSynchronous, type Logging, retentionEnvironment } from './pause-functions.ts';
import type { Settings } from './settings.ts';

/**
 * The example agents the stack offers (`infra/example-agent/`): the reference workflow's Lambda step, and on request
 * the same agent as a Lambda durable function (`handback/durable`). Each may read and write only its own tenant's
 * runs. Made in the stack's own scope, so their construct ids are the stack's.
 */

/** What an example agent is made from. */
export interface ExampleAgentProps {
  settings: Settings;
  table: ITable;
  /** The transcript bucket (§23). */
  transcripts: IBucket;
  logging: Logging;
}

/** The example agent the reference workflow runs, when the stack is given none of its own. */
export function exampleAgent(stack: Stack, { settings, table, transcripts, logging }: ExampleAgentProps): IFunction {
  const example = new HandbackFunction(stack, 'ExampleAgent', {
    entry: ENTRY.exampleAgent,
    description: 'Handback example agent: asks, pauses for approvals, runs the approved calls from the continuation',
    memorySize: 256,
    environment: retentionEnvironment(settings),
    ...logging,
  });
  // Its own tenant's runs only: an agent's credential is no key to every tenant's pauses.
  example.bindTable(table, 'readWrite', { tenants: [settings.exampleAgentTenant] });
  example.bindTranscripts(transcripts, 'readWrite', { tenants: [settings.exampleAgentTenant] });
  acknowledgeSynchronous(example, 'Step Functions invokes it synchronously (RequestResponse and waitForTaskToken)');
  return example.function;
}

/**
 * The example agent as a durable function: it waits through `handback/durable`, and whatever closes a pause (each of
 * `resumers`) completes its callback.
 */
export function durableExampleAgent(
  stack: Stack,
  { settings, table, transcripts, logging }: ExampleAgentProps,
  resumers: readonly HandbackFunction[],
): HandbackFunction {
  const durable = new HandbackFunction(stack, 'DurableExampleAgent', {
    entry: ENTRY.durableExampleAgent,
    description: 'Handback example agent as a durable function: waitForDecision, then the approved calls',
    memorySize: 256,
    environment: retentionEnvironment(settings),
    durableConfig: {
      executionTimeout: Duration.seconds(
        settings.pauseExpiry.toSeconds() + WAIT_BEYOND_EXPIRY.toSeconds() + AGENT_STEPS.toSeconds(),
      ),
    },
    ...logging,
  });
  durable.bindTable(table, 'readWrite', { tenants: [settings.exampleAgentTenant] });
  durable.bindTranscripts(transcripts, 'readWrite', { tenants: [settings.exampleAgentTenant] });
  Validations.of(durable).acknowledge({
    id: 'Serverless-LambdaDLQ',
    reason:
      'A durable execution keeps its own state, retries and history (GetDurableExecutionHistory): a failed one is there, not in a dead-letter queue.',
  });
  for (const fn of resumers) fn.grantDurableCallbacks(durable.function);
  return durable;
}
