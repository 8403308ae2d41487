/**
 * `handback/dynamodb`: the checkpoint store on DynamoDB — built on your `DynamoDBDocumentClient`, with the client
 * settings Handback runs with and the table's layout. Its declarations name the AWS SDK for DynamoDB (an optional
 * peer: `@aws-sdk/client-dynamodb`, `@aws-sdk/lib-dynamodb`), which is why it is not in the root entry.
 */

export {
  createDynamoDBCheckpointStore,
  type DynamoDBCheckpointStoreOptions,
  storageClientConfig,
} from './checkpoints/dynamodb-store.ts';
export { createTableInput, TABLE } from './checkpoints/table.ts';
