import { CfnOutput, type Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Handoff } from './handoff.ts';
import type { LifecycleEvents } from './lifecycle-events.ts';
import type { ResumeTriggers } from './resume-triggers.ts';
import type { HandbackUserPool } from './user-pool.ts';

/** What the stack's outputs name. */
export interface StackOutputsProps {
  httpApi: { api: HttpApi };
  inboxUrl: string;
  table: ITable;
  triggers: ResumeTriggers;
  handoff: Handoff;
  lifecycle: LifecycleEvents;
  approval: { stateMachine: IStateMachine };
  resume: { stateMachine: IStateMachine };
  userPool: HandbackUserPool | undefined;
  /** SCIM's secret (§20), when `handback:scim` serves `/scim/v2`. */
  scimSecret: ISecret | undefined;
}

/**
 * The stack's outputs: where to call, where people decide, where resume requests and continuation pointers go, the
 * buses and topics to subscribe to, the workflows, with the user pool what agents and people sign in with, and with
 * SCIM where an identity provider provisions and the secret it needs.
 */
export function stackOutputs(
  stack: Stack,
  { httpApi, inboxUrl, table, triggers, handoff, lifecycle, approval, resume, userPool, scimSecret }: StackOutputsProps,
): void {
  new CfnOutput(stack, 'ApiUrl', { description: 'The HTTP API base URL', value: httpApi.api.apiEndpoint });
  new CfnOutput(stack, 'InboxUrl', { description: 'The inbox page, where people decide', value: inboxUrl });
  new CfnOutput(stack, 'TableName', {
    description: 'The checkpoint table (for your own agent Lambda)',
    value: table.tableName,
  });
  new CfnOutput(stack, 'ResumeQueueUrl', { description: 'Send resume requests here', value: triggers.queue.queueUrl });
  new CfnOutput(stack, 'ResumeEventBusName', {
    description: 'Put Resume Requested events here (only the principals of handback:resumeEventPrincipals may)',
    value: triggers.eventBus.eventBusName,
  });
  if (handoff.queue) {
    new CfnOutput(stack, 'HandoffQueueUrl', {
      description: 'Continuation pointers arrive here',
      value: handoff.queue.queueUrl,
    });
  }
  new CfnOutput(stack, 'LifecycleEventBusName', {
    description: 'Lifecycle events (source handback) go to this bus: add rules for your own notifications',
    value: lifecycle.eventBus.eventBusName,
  });
  new CfnOutput(stack, 'PauseCreatedTopicArn', {
    description: 'Pause Created notifications, with the answer link: subscribe an email address or a chat bot',
    value: lifecycle.topic.topicArn,
  });
  new CfnOutput(stack, 'ApprovalStateMachineArn', {
    description: 'The reference workflow',
    value: approval.stateMachine.stateMachineArn,
  });
  new CfnOutput(stack, 'ResumeStateMachineArn', {
    description: 'The resume as a one-task workflow',
    value: resume.stateMachine.stateMachineArn,
  });
  userPool?.addOutputs(stack);
  if (scimSecret) {
    new CfnOutput(stack, 'ScimUrl', {
      description: "SCIM 2.0 (§20): the identity provider's base URL",
      value: `${httpApi.api.apiEndpoint}/scim/v2`,
    });
    new CfnOutput(stack, 'ScimSecretArn', {
      description: 'The SCIM secret, the bearer token the identity provider sends: aws secretsmanager get-secret-value',
      value: scimSecret.secretArn,
    });
  }
}
