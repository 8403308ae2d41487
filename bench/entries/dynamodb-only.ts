import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The cold-start floor: a Lambda that does nothing but a DynamoDB GetCommand through the document client — the
 * least any DynamoDB-backed resume function has to load. Bundled exactly as the handlers are (bench/bundle.ts).
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { pk: string; sk: string }) =>
  client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }));
