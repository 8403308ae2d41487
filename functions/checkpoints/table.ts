import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The table's key schema and index, defined once: the store builds its keys from these names, the tests create
 * their table with `createTableInput`, and the CDK stack defines the real table from the same object.
 */
export const TABLE = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  /** Epoch seconds after which DynamoDB may delete an item; expiry is still checked on every read. */
  timeToLiveAttribute: 'ttl',
  /** The sparse index that lists a tenant's pauses, newest first: only pause items carry its keys. */
  byTenant: {
    indexName: 'byTenant',
    partitionKey: { name: 'gsi1pk', type: 'S' },
    sortKey: { name: 'gsi1sk', type: 'S' },
  },
} as const;

/** A `CreateTable` input for `TABLE`, on-demand: what the tests and the local service create. */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, byTenant } = TABLE;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: partitionKey.name, AttributeType: partitionKey.type },
      { AttributeName: sortKey.name, AttributeType: sortKey.type },
      { AttributeName: byTenant.partitionKey.name, AttributeType: byTenant.partitionKey.type },
      { AttributeName: byTenant.sortKey.name, AttributeType: byTenant.sortKey.type },
    ],
    KeySchema: [
      { AttributeName: partitionKey.name, KeyType: 'HASH' },
      { AttributeName: sortKey.name, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: byTenant.indexName,
        KeySchema: [
          { AttributeName: byTenant.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: byTenant.sortKey.name, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}
