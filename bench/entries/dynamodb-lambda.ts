import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The floor of a function that hands off to a Lambda function: a DynamoDB GetCommand through the document client,
 * then the item sent by an asynchronous invoke. Bundled as the handlers are.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const lambda = new LambdaClient({});

export const handler = async (event: { pk: string; sk: string }) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }),
  );
  await lambda.send(
    new InvokeCommand({
      FunctionName: process.env.HANDOFF_FUNCTION_NAME,
      InvocationType: 'Event',
      Payload: new TextEncoder().encode(JSON.stringify(Item)),
    }),
  );
};
