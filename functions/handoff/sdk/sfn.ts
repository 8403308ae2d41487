// What the hand-off uses of the Step Functions client (see sqs.ts for why this module exists).
export { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
