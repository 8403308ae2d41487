import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The table's key schema and indexes, defined once: the DynamoDB adapter builds its keys from these names, the tests
 * and the local service create their table with `createTableInput`, and the CDK stack defines the real table from
 * the same object.
 */
export const TABLE = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  /** Epoch seconds after which DynamoDB may delete an item; expiry is still checked on every read. */
  timeToLiveAttribute: 'ttl',
  /**
   * Every pause of a tenant, newest first, over `listingShards` partitions per tenant. Keys only: a listing reads the pauses themselves (strongly consistent) by
   * the keys it finds, so it never shows what a GET cannot read.
   */
  byTenant: {
    indexName: 'byTenant',
    partitionKey: { name: 'gsi1pk', type: 'S' },
    sortKey: { name: 'gsi1sk', type: 'S' },
  },
  /**
   * The tenant's open pauses only (sparse: a pause leaves it when it closes), newest first, over `listingShards`
   * partitions per tenant: what an inbox lists.
   */
  openByTenant: {
    indexName: 'openByTenant',
    partitionKey: { name: 'openPk', type: 'S' },
    sortKey: { name: 'gsi1sk', type: 'S' },
  },
  /**
   * Open pauses by the time the sweep must next look at them (a reminder or the expiry), sparse, spread over
   * `dueShards` partitions so that no index partition takes every write.
   */
  byDue: {
    indexName: 'byDue',
    partitionKey: { name: 'duePk', type: 'S' },
    sortKey: { name: 'dueAtMs', type: 'N' },
  },
  /** Partitions of the `byDue` index; the sweep queries each. */
  dueShards: 16,
  /**
   * Partitions of each tenant's listing indexes (`byTenant`, `openByTenant`): a tenant's pauses are spread over them,
   * so no index key takes more than a sixteenth of one tenant's writes (§23); a listing reads them all, merged.
   */
  listingShards: 16,
} as const;

/** The table's global secondary indexes, as `CreateTable` and the CDK table define them. */
export const INDEXES = [TABLE.byTenant, TABLE.openByTenant, TABLE.byDue] as const;

/** A `CreateTable` input for `TABLE`, on-demand: what the tests and the local service create. */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey } = TABLE;
  const attributes = new Map<string, string>([
    [partitionKey.name, partitionKey.type],
    [sortKey.name, sortKey.type],
  ]);
  for (const index of INDEXES) {
    attributes.set(index.partitionKey.name, index.partitionKey.type);
    attributes.set(index.sortKey.name, index.sortKey.type);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map(([name, type]) => ({
      AttributeName: name,
      AttributeType: type as 'S' | 'N',
    })),
    KeySchema: [
      { AttributeName: partitionKey.name, KeyType: 'HASH' },
      { AttributeName: sortKey.name, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: INDEXES.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    })),
  };
}
