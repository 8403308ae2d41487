// What the hand-off uses of the EventBridge client (see sqs.ts for why this module exists).
export { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
