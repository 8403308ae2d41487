import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../checkpoints/table.ts';
import { ErrorCode, HandbackError } from '../errors.ts';
import type { ToolExecutions } from './shared.ts';

/**
 * Tool executions recorded in a DynamoDB table (the Handback table will do: these items have keys of their own, `X#…`,
 * beside the pauses' `T#…`, and none of its index attributes), so Lambdas that each receive the same continuation
 * run an approved call once between them (§15). A claim is one conditional put; the output, one update after the run.
 */

/** Where the executions are kept. */
export interface DynamoDBToolExecutionsOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** How long an execution's record is kept (its TTL), in seconds. @default 30 days */
  retentionSeconds?: number;
}

/** A call another worker claimed and has not finished (or crashed in): it is not run a second time. */
export class ToolExecutionInProgressError extends HandbackError {
  readonly key: string;
  constructor(key: string) {
    super(
      ErrorCode.StorageUnavailable,
      `Tool execution ${key} was started by another delivery and has no output yet; it is not run twice. Retry later, or look at the tool's own records if that delivery crashed.`,
    );
    this.name = 'ToolExecutionInProgressError';
    this.key = key;
  }
}

/** Tool executions in a DynamoDB table: at most once per key, and every delivery reads the first one's output. */
export function createDynamoDBToolExecutions(options: DynamoDBToolExecutionsOptions): ToolExecutions {
  const { client, tableName } = options;
  const retention = options.retentionSeconds ?? 30 * 24 * 3600;
  const { partitionKey: pk, sortKey: sk, timeToLiveAttribute: ttl } = TABLE;
  const keyOf = (key: string) => ({ [pk.name]: `X#${key}`, [sk.name]: 'X' });
  return {
    async once(key, execute) {
      try {
        // The claim: only the first delivery finds no item; every other one reads what the first recorded.
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...keyOf(key), [ttl]: Math.floor(Date.now() / 1000) + retention },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': pk.name },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const { Item } = await client.send(
          new GetCommand({ TableName: tableName, Key: keyOf(key), ConsistentRead: true }),
        );
        if (typeof Item?.output === 'string') return Item.output;
        throw new ToolExecutionInProgressError(key);
      }
      let output: string;
      try {
        output = await execute();
      } catch (error) {
        // The call failed before it had an output: let a later delivery try it again, as the memory record does.
        await client.send(new DeleteCommand({ TableName: tableName, Key: keyOf(key) }));
        throw error;
      }
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keyOf(key),
          UpdateExpression: 'SET #output = :output',
          ExpressionAttributeNames: { '#output': 'output' },
          ExpressionAttributeValues: { ':output': output },
        }),
      );
      return output;
    },
  };
}
