// What the hand-off uses of the Lambda client (see sqs.ts for why this module exists).
export { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
