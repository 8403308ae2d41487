import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBPersistence } from '../../functions/checkpoints/dynamodb/dynamodb-persistence.ts';
import { MemoryPersistence } from '../../functions/checkpoints/memory.ts';
import { createTable } from '../../functions/local/embedded-dynamodb.ts';
import { policySpec } from '../../functions/testing/index.ts';
import { useTestTable } from '../support/dynamodb.ts';

// §17 on both stores: the in-memory adapter, and DynamoDB (dynalite), a table per case.
policySpec({ name: 'the in-memory adapter', create: () => new MemoryPersistence() });

const table = useTestTable();
const tables = new WeakMap<DynamoDBPersistence, string>();
policySpec({
  name: 'the DynamoDB adapter (dynalite)',
  create: async () => {
    const tableName = `handback-policy-${randomUUID()}`;
    await createTable(table.newClient(), tableName);
    const persistence = new DynamoDBPersistence({ client: table.client, tableName });
    tables.set(persistence, tableName);
    return persistence;
  },
  destroy: async (persistence: DynamoDBPersistence) => {
    const tableName = tables.get(persistence);
    if (tableName !== undefined) {
      await table.client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    }
  },
});
