import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll } from 'vitest';
import { DynamoDBPersistence } from '../../functions/checkpoints/dynamodb/dynamodb-persistence.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { createTable } from '../../functions/local/embedded-dynamodb.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { persistenceSpec } from './spec/persistence-spec.ts';
import { serviceSpec } from './spec/service-spec.ts';
import { whoDecidesSpec } from './spec/who-decides-spec.ts';

const table = useTestTable();
const tables: string[] = [];

persistenceSpec(
  'the DynamoDB adapter (dynalite)',
  () => new DynamoDBPersistence({ client: table.client, tableName: table.tableName }),
);

// A table per case: the sweep reads the whole due index, and each case's clock is its own.
serviceSpec('the DynamoDB adapter (dynalite)', async () => {
  const tableName = `handback-spec-${randomUUID()}`;
  await createTable(table.newClient(), tableName);
  tables.push(tableName);
  return (options) => createDynamoDBCheckpointStore({ client: table.client, tableName, ...options });
});

whoDecidesSpec('the DynamoDB adapter (dynalite)', async () => {
  const tableName = `handback-spec-${randomUUID()}`;
  await createTable(table.newClient(), tableName);
  tables.push(tableName);
  return (options) => createDynamoDBCheckpointStore({ client: table.client, tableName, ...options });
});

afterAll(async () => {
  const raw = table.newClient();
  for (const tableName of tables)
    await raw.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
});
