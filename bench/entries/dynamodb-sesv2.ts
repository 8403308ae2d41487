import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The floor of the email channel's function: a DynamoDB GetCommand through the document client, then one SES v2
 * SendEmail — the least a function that reads a pause and mails it has to load. Bundled exactly as the handlers are
 * (bench/bundle.ts).
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const ses = new SESv2Client({});

export const handler = async (event: { pk: string; sk: string; to: string }) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }),
  );
  await ses.send(
    new SendEmailCommand({
      FromEmailAddress: 'bench@example.org',
      Destination: { ToAddresses: [event.to] },
      Content: { Simple: { Subject: { Data: 'bench' }, Body: { Text: { Data: JSON.stringify(Item) } } } },
    }),
  );
};
