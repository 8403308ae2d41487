/**
 * The example agent as a Lambda durable function (`-c handback:exampleAgent=durable`): the same fake model and tools
 * as `handler.ts`, with `handback/durable` instead of the workflow's task token. It pauses its first turn with
 * `waitForDecision` (the function stops running while people decide), runs the calls they approved in a step of its
 * own (so a replay never runs them twice), and goes on. Start it with `{runId, tenant?}`.
 */

import { type DurableContext, withDurableExecution } from '@aws/durable-execution-sdk-js';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { waitForDecision } from '../../functions/adapters/durable.ts';
import { createDynamoDBCheckpointStore } from '../../functions/dynamodb.ts';
import { requiredSetting, retentionSecondsOf } from '../../functions/handlers/config.ts';
import { appendResults, LIMITS } from '../../functions/index.ts';
import { tableName as TABLE_NAME } from '../../functions/settings.ts';
import { firstTurn, nextTurn, runTool } from './handler.ts';

const tableName = requiredSetting(TABLE_NAME);
// How long a pause and its audit trail are kept after it expires: the stack's handback:retentionDays.
const retentionSeconds = retentionSecondsOf();
const store = createDynamoDBCheckpointStore({
  client: DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } }),
  tableName,
  ...(retentionSeconds === undefined ? {} : { retentionSeconds }),
});

/** The durable function's input. */
export interface DurableTurnEvent {
  runId: string;
  tenant?: string;
}

/** The durable entry point. */
export const handler = withDurableExecution(async (event: DurableTurnEvent, context: DurableContext) => {
  const tenant = event.tenant ?? LIMITS.defaultTenant;
  const decided = await waitForDecision(
    context,
    { ...firstTurn(), runId: event.runId },
    { handback: { store, tenant } },
  );
  const results = await context.step('run-approved-calls', () => Promise.all(decided.dispatch.map(runTool)));
  const transcript = appendResults(decided.format, decided.messages, results);
  return {
    runId: event.runId,
    outcome: decided.outcome,
    ran: results,
    messageCount: transcript.length + 1,
    reply: nextTurn(decided.outcome, decided.dispatch),
  };
});
