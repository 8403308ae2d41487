/**
 * The document client's commands the store and the execution log send, named one by one: a bundle keeps only these,
 * where `import('@aws-sdk/lib-dynamodb')` as a namespace would keep every command of the package (the aggregated
 * `DynamoDBDocument` with them, and the DynamoDB client's schemas of every operation) in every function's init.
 */
export {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
