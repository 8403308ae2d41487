import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The floor of the Slack interactions function: a DynamoDB GetCommand through the document client, then the item
 * posted to Slack's Web API with Node's own `fetch` — the least a function that reads a pause and answers Slack has to
 * load. Bundled exactly as the handlers are (bench/bundle.ts).
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { pk: string; sk: string; token: string }) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }),
  );
  await fetch('https://slack.com/api/chat.update', {
    method: 'POST',
    headers: { authorization: `Bearer ${event.token}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(Item),
  });
};
