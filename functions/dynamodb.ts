/**
 * `handback/dynamodb`: the checkpoint store on DynamoDB — built on your `DynamoDBDocumentClient`, with the client
 * settings Handback runs with and the table's layout, and the transcript bucket large transcripts go to (§23). Its
 * declarations name the AWS SDK for DynamoDB and S3 (optional peers: `@aws-sdk/client-dynamodb`,
 * `@aws-sdk/lib-dynamodb`, `@aws-sdk/client-s3`, the last loaded only when a transcript needs it), which is why it is
 * not in the root entry.
 */

export {
  createDynamoDBCheckpointStore,
  type DynamoDBCheckpointStoreOptions,
  storageClientConfig,
} from './checkpoints/dynamodb-store.ts';
export {
  S3TranscriptObjects,
  type S3TranscriptObjectsOptions,
  s3ClientConfig,
} from './checkpoints/s3/s3-objects.ts';
export { createTableInput, TABLE } from './checkpoints/table.ts';
export type { TranscriptObjects } from './checkpoints/transcript-objects.ts';
