import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The old cold-start floor, and the floor of a function bundled for the hand-off target `none`: a Lambda that does
 * nothing but a DynamoDB GetCommand through the document client. Bundled exactly as the handlers are
 * (bench/bundle.ts).
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { pk: string; sk: string }) =>
  client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }));
