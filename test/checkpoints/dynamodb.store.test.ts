import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBPersistence } from '../../functions/checkpoints/dynamodb/dynamodb-persistence.ts';
import { createTable } from '../../functions/local/embedded-dynamodb.ts';
import {
  executionSpec,
  persistenceSpec,
  policySpec,
  samePersonSpec,
  serviceSpec,
} from '../../functions/testing/index.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { whoDecidesSpec } from './who-decides-spec.ts';

const table = useTestTable();
const tables = new WeakMap<DynamoDBPersistence, string>();

persistenceSpec({
  name: 'the DynamoDB adapter (dynalite)',
  create: () => new DynamoDBPersistence({ client: table.client, tableName: table.tableName }),
});

// A table per case: the sweep reads the whole due index, and each case's clock is its own.
const perCase = {
  name: 'the DynamoDB adapter (dynalite)',
  create: async () => {
    const tableName = `handback-spec-${randomUUID()}`;
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
};

serviceSpec(perCase);
whoDecidesSpec(perCase);
samePersonSpec(perCase);
policySpec(perCase);
executionSpec(perCase);
