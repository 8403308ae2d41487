import { randomBytes, randomUUID } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CheckpointStore, PauseInput } from '../../functions/checkpoints/checkpoint-store.ts';
import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import type { TestTable } from '../support/dynamodb.ts';

/** Shared pieces of the checkpoint store tests: transcripts, a movable clock, raw reads of the table. */

/** An openai-chat transcript paused on `call_1` (ask_human) beside `call_2`; `padding` bytes of random base64 text. */
export function chatTranscript(padding = 0): unknown[] {
  const messages: unknown[] = [{ role: 'system', content: 'You are a careful assistant.' }];
  // Random base64 in pieces of at most 1 MB: JSON-incompressible beyond base64's own 6 bits a character.
  for (let left = padding; left > 0; left -= 1_000_000) {
    const size = Math.min(left, 1_000_000);
    messages.push({
      role: 'user',
      content: randomBytes(Math.ceil((size * 3) / 4))
        .toString('base64')
        .slice(0, size),
    });
    messages.push({ role: 'assistant', content: 'Noted.' });
  }
  messages.push({ role: 'user', content: 'hi' });
  messages.push({
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'ask_human', arguments: '{"question":"Ship it?"}' } },
      { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ],
  });
  return messages;
}

/** A pause input for a fresh run of `tenant`; `overrides` replace fields. */
export function pauseInput(overrides: Partial<PauseInput> = {}): PauseInput {
  return {
    tenant: 'acme',
    runId: `run-${randomUUID()}`,
    format: 'openai-chat',
    messages: chatTranscript(),
    toolCallId: 'call_1',
    prompt: 'Ship it?',
    ...overrides,
  };
}

/** A clock the test moves: starts at `start`, `advance(seconds)` moves it on. */
export function testClock(start = '2026-01-01T00:00:00.000Z'): { now: () => Date; advance(seconds: number): void } {
  let time = Date.parse(start);
  return {
    now: () => new Date(time),
    advance(seconds: number) {
      time += seconds * 1000;
    },
  };
}

/** A store on the file's table; `clock` for expiry tests. */
export function storeOn(
  table: TestTable,
  options: { clock?: () => Date; client?: TestTable['client'] } = {},
): CheckpointStore {
  return createDynamoDBCheckpointStore({
    client: options.client ?? table.client,
    tableName: table.tableName,
    ...(options.clock ? { clock: options.clock } : {}),
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
