import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentCommands } from '../checkpoints/document-sdk.ts';
import { TABLE } from '../checkpoints/table.ts';
import { ExecutionInProgressError } from '../errors.ts';
import { type ExecutionLog, executionKey } from './shared.ts';

/**
 * The execution log in a DynamoDB table (the Handback table will do: its items have keys of their own, `X#…`, beside
 * the pauses' `T#…`, and none of its index attributes), so Lambdas that each receive the same continuation run an
 * approved call at most once between them (§15).
 *
 * **Claim before run.** `once(key, run)` first claims the key with one conditional put (`state: "started"`, who and
 * when); only the delivery whose put succeeds runs the tool, then records its output (`state: "done"`). Every other
 * delivery reads the record: the output once there is one, else `ExecutionInProgressError`.
 *
 * **A claimer that crashes mid-run** leaves its claim `started` for good: no lease expires and hands the call to
 * another delivery, because a tool with side effects (a refund, an email) may have done its work before the crash,
 * and running it again is the one thing an approval must never cause. A later delivery gets
 * `ExecutionInProgressError` with `startedAt` (retryable: a race heals by itself, a crash ends in the queue's
 * dead-letter queue), and a person settles it from the tool's own records — docs/ai-sdk.md, "Once". A `run` that
 * rejects (the adapters turn a tool's own error into its output first, so this means nothing ran) releases the claim.
 *
 * The AWS SDK is loaded on first use, so importing an adapter needs no `@aws-sdk/*` package: only this log does.
 */

/**
 * The AWS SDK's `DynamoDBDocumentClient` as the log uses it: its `send`. Declared by its shape, so the adapters'
 * declarations name no `@aws-sdk` package (an optional peer): a project on `handback/client` and an adapter, without
 * the DynamoDB SDK, type-checks with `skipLibCheck: false`.
 */
export interface DocumentClientLike {
  send(command: object): Promise<object>;
}

/** Where the executions are kept. */
export interface DynamoDBToolExecutionsOptions {
  /** A `DynamoDBDocumentClient` (`DynamoDBDocumentClient.from(new DynamoDBClient({...}))`). */
  client: DocumentClientLike;
  tableName: string;
  /** How long an execution's record is kept (its TTL), in seconds. @default 30 days */
  retentionSeconds?: number;
}

const DEFAULT_RETENTION_SECONDS = 30 * 24 * 3600;

/** The execution log in DynamoDB: at most once per key across processes, and every delivery reads the first output. */
export function createDynamoDBToolExecutions(options: DynamoDBToolExecutionsOptions): ExecutionLog {
  const { tableName } = options;
  // The shape above is what callers give; the commands' own types are the SDK's.
  const client = options.client as DynamoDBDocumentClient;
  const retention = options.retentionSeconds ?? DEFAULT_RETENTION_SECONDS;
  const { partitionKey: pk, sortKey: sk, timeToLiveAttribute: ttl } = TABLE;
  const keyOf = (key: string) => ({ [pk.name]: `X#${key}`, [sk.name]: 'X' });
  return {
    durable: true,
    async once(ids, run) {
      const key = executionKey(ids);
      const { DeleteCommand, GetCommand, PutCommand, UpdateCommand } =
        await documentCommands('createDynamoDBToolExecutions');
      const claim = crypto.randomUUID();
      const startedAt = new Date().toISOString();
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...keyOf(key),
              state: 'started',
              claim,
              startedAt,
              [ttl]: Math.floor(Date.now() / 1000) + retention,
            },
            // The claim: only the first delivery finds no item; every other one reads what the first recorded.
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': pk.name },
          }),
        );
      } catch (error) {
        if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
        const { Item } = await client.send(
          new GetCommand({ TableName: tableName, Key: keyOf(key), ConsistentRead: true }),
        );
        if (Item?.state === 'done' && typeof Item.output === 'string') return Item.output;
        throw new ExecutionInProgressError(key, typeof Item?.startedAt === 'string' ? Item.startedAt : startedAt);
      }
      let output: string;
      try {
        output = await run();
      } catch (error) {
        // Nothing ran to an output: a later delivery may claim it again. Only this claim's own record is removed.
        await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keyOf(key),
            ConditionExpression: '#claim = :claim',
            ExpressionAttributeNames: { '#claim': 'claim' },
            ExpressionAttributeValues: { ':claim': claim },
          }),
        );
        throw error;
      }
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keyOf(key),
          UpdateExpression: 'SET #state = :done, #output = :output, #doneAt = :doneAt',
          // Only the claimer records the output, over its own claim.
          ConditionExpression: '#claim = :claim',
          ExpressionAttributeNames: { '#state': 'state', '#output': 'output', '#doneAt': 'doneAt', '#claim': 'claim' },
          ExpressionAttributeValues: {
            ':done': 'done',
            ':output': output,
            ':doneAt': new Date().toISOString(),
            ':claim': claim,
          },
        }),
      );
      return output;
    },
  };
}
