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
import { createDynamoDBCheckpointStore, S3TranscriptObjects } from '../../functions/dynamodb.ts';
import { requiredSetting, retentionSecondsOf, settingOf } from '../../functions/handlers/config.ts';
import { appendResults, LIMITS } from '../../functions/index.ts';
import { tableName as TABLE_NAME, transcriptBucket as TRANSCRIPT_BUCKET } from '../../functions/settings.ts';
import { firstTurn, nextTurn, runTool } from './handler.ts';

const tableName = requiredSetting(TABLE_NAME);
// How long a pause and its audit trail are kept after it expires: the stack's handback:retentionDays.
const retentionSeconds = retentionSecondsOf();
const store = createDynamoDBCheckpointStore({
  client: DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } }),
  tableName,
  // Transcripts over 64 KB go to the stack's bucket, its SDK loaded only when one does.
  objects: new S3TranscriptObjects({ bucket: settingOf(TRANSCRIPT_BUCKET) as string }),
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
