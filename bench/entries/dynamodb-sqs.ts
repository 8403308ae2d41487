import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The floor of a function that hands off to SQS (the stack's default): a DynamoDB GetCommand through the document
 * client, then the item sent to a queue — the least a resume function that reads, writes and hands off has to load.
 * Bundled exactly as the handlers are (bench/bundle.ts).
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const sqs = new SQSClient({});

export const handler = async (event: { pk: string; sk: string }) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }),
  );
  await sqs.send(
    new SendMessageCommand({ QueueUrl: process.env.HANDOFF_QUEUE_URL, MessageBody: JSON.stringify(Item) }),
  );
};
