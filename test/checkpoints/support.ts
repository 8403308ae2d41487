import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';

export { chatTranscript, pauseInput, testClock } from '../../functions/testing/fixtures.ts';

import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import type { TranscriptObjects } from '../../functions/checkpoints/transcript-objects.ts';
import type { TestTable } from '../support/dynamodb.ts';

/** Shared pieces of the checkpoint store tests: transcripts, a movable clock, raw reads of the table. */

/** A store on the file's table; `clock` for expiry tests, `objects` for transcripts in a bucket. */
export function storeOn(
  table: TestTable,
  options: { clock?: () => Date; client?: TestTable['client']; objects?: TranscriptObjects } = {},
): CheckpointStore {
  return createDynamoDBCheckpointStore({
    client: options.client ?? table.client,
    tableName: table.tableName,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.objects ? { objects: options.objects } : {}),
  });
}

/** Every item of a run's partition, as stored. */
export async function runItems(table: TestTable, tenant: string, runId: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const output = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': Keys.run(tenant, runId) },
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    items.push(...(output.Items ?? []));
    startKey = output.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** The answered transcript openai-chat yields for `chatTranscript(padding)`'s messages and `answerText`. */
export function expectedContinuation(messages: unknown[], answerText: string, notDispatched: string): unknown[] {
  return [
    ...messages,
    { role: 'tool', tool_call_id: 'call_1', content: answerText },
    { role: 'tool', tool_call_id: 'call_2', content: notDispatched },
  ];
}

/** Sets one attribute of a stored item behind the store's back (to break it, or to play a newer writer). */
export async function setAttribute(
  table: TestTable,
  item: Record<string, unknown>,
  name: string,
  value: unknown,
): Promise<void> {
  await table.client.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: { pk: item.pk, sk: item.sk },
      UpdateExpression: 'SET #name = :value',
      ExpressionAttributeNames: { '#name': name },
      ExpressionAttributeValues: { ':value': value },
    }),
  );
}
