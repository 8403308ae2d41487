import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The floor of a function that hands off to EventBridge (and of the lifecycle stream, which puts events on a bus): a
 * DynamoDB GetCommand through the document client, then the item put on a bus. Bundled as the handlers are.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const eventBridge = new EventBridgeClient({});

export const handler = async (event: { pk: string; sk: string }) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }),
  );
  await eventBridge.send(
    new PutEventsCommand({ Entries: [{ Source: 'bench', DetailType: 'Floor', Detail: JSON.stringify(Item) }] }),
  );
};
