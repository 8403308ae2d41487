// What the hand-off uses of the SQS client, re-exported so that a dynamic import() of this module keeps only these
// in a bundle (a dynamic import of the package itself keeps every command it exports).
export { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
