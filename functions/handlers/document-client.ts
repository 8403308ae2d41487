import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { storageClientConfig } from '../checkpoints/dynamodb/client-config.ts';
import { traceAwsClient } from './tracing.ts';

/**
 * The document client of a Lambda function's table: the store's timeouts and retries (`storageClientConfig`), traced
 * (X-Ray shows every DynamoDB call), at `endpoint` when one is configured.
 */
export function tracedDocumentClient(endpoint: string | undefined): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    traceAwsClient(new DynamoDBClient(storageClientConfig(endpoint === undefined ? {} : { endpoint }))),
    { marshallOptions: { removeUndefinedValues: true } },
  );
}
