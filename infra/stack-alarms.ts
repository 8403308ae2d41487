import { Duration, type Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { type ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Metric as HandbackMetric } from '../functions/resume/telemetry.ts';
import { HandbackAlarms } from './alarms.ts';
import type { HandbackChannels } from './channels.ts';
import type { DecisionsDashboard } from './decisions-dashboard.ts';
import type { HandbackFunction } from './handback-function.ts';
import type { Handoff } from './handoff.ts';
import type { LifecycleEvents } from './lifecycle-events.ts';
import type { PauseFunctions } from './pause-functions.ts';
import type { ResumeTriggers } from './resume-triggers.ts';
import type { HandbackUserPool } from './user-pool.ts';

/**
 * What the stack's alarms watch (`infra/alarms.ts` makes them): every function's errors and throttles, every
 * dead-letter queue's depth, the API's 5xx, the workflows' failures, and the counts, heartbeats and bounds that say
 * something needs a person — events not delivered, closed transcripts not moved to the bucket, a throttled table, a sweep that stopped, a stream behind, a
 * hand-off nobody consumes.
 */

/** The parts of the stack the alarms watch. */
export interface StackAlarmsProps {
  table: ITable;
  handoff: Handoff;
  fns: PauseFunctions;
  inbox: HandbackFunction;
  channels: HandbackChannels;
  lifecycle: LifecycleEvents;
  triggers: ResumeTriggers;
  userPool: HandbackUserPool | undefined;
  agent: IFunction;
  httpApi: { api: HttpApi };
  approval: { stateMachine: IStateMachine };
  resume: { stateMachine: IStateMachine };
  /** How decisions are going (§21): its oldest waiting ask has an alarm. */
  decisions: DecisionsDashboard;
  /** The topic every alarm notifies; undefined = the console only. */
  topic: ITopic | undefined;
}

/** Makes the stack's alarms in `stack`. */
export function stackAlarms(stack: Stack, parts: StackAlarmsProps): HandbackAlarms {
  const { table, handoff, fns, inbox, channels, lifecycle, triggers, userPool, agent, httpApi, approval, resume } =
    parts;
  const deadLetterQueues: Record<string, IQueue> = {
    ResumeDeadLetterQueue: triggers.deadLetterQueue,
    RuleDeadLetterQueue: triggers.ruleDeadLetterQueue,
    LifecycleFailedRecords: lifecycle.failedRecordsQueue,
    NotificationDeadLetterQueue: lifecycle.ruleDeadLetterQueue,
  };
  Object.assign(deadLetterQueues, channels.deadLetterQueues);
  if (handoff.deadLetterQueue) deadLetterQueues.HandoffDeadLetterQueue = handoff.deadLetterQueue;
  if (triggers.failedInvocationsQueue) deadLetterQueues.FailedInvocationsQueue = triggers.failedInvocationsQueue;
  if (lifecycle.subscriptionDeadLetterQueue) {
    deadLetterQueues.EmailDeadLetterQueue = lifecycle.subscriptionDeadLetterQueue;
  }
  const fiveMinutes = { period: Duration.minutes(5), statistic: 'Sum' };
  return new HandbackAlarms(stack, 'Alarms', {
    functions: {
      ApiHandler: fns.api.function,
      InboxHandler: inbox.function,
      McpHandler: fns.mcp.function,
      StepFunctionsHandler: fns.stepFunctions.function,
      SqsHandler: fns.sqs.function,
      Sweeper: fns.sweeper.function,
      LifecycleEvents: lifecycle.handler.function,
      ...(fns.eventBridge ? { EventBridgeHandler: fns.eventBridge.function } : {}),
      ...(userPool ? { TenantClaim: userPool.tenantClaimTrigger.function } : {}),
      ...channels.functions,
      Agent: agent,
    },
    deadLetterQueues,
    api: httpApi.api,
    stateMachines: { ApprovalWorkflow: approval.stateMachine, ResumeWorkflow: resume.stateMachine },
    counts: {
      EventEmitFailures: {
        description:
          'Lifecycle events could not be delivered to the bus: the stream retries them, then their records go to LifecycleFailedRecords.',
        // Every metric carries the `service` dimension (functions/handlers/telemetry.ts).
        metric: new Metric({
          namespace: 'Handback',
          metricName: HandbackMetric.EventEmitFailures,
          dimensionsMap: { service: 'handback' },
          ...fiveMinutes,
        }),
      },
      ArchiveFailures: {
        description:
          "Closed transcripts could not move to the transcript bucket (§23): they stay whole and readable in the table, at its storage price, and the next change of each pause tries the move again; read the stream function's warnings for why.",
        metric: new Metric({
          namespace: 'Handback',
          metricName: HandbackMetric.ArchiveFailures,
          dimensionsMap: { service: 'handback' },
          ...fiveMinutes,
        }),
      },
      TableThrottles: {
        description:
          'DynamoDB throttled requests to the checkpoint table: pauses and decisions may fail with storage_unavailable (503) and be retried.',
        metric: table.metricThrottledRequestsForOperations({
          operations: [
            Operation.GET_ITEM,
            Operation.BATCH_GET_ITEM,
            Operation.QUERY,
            Operation.PUT_ITEM,
            Operation.UPDATE_ITEM,
            Operation.DELETE_ITEM,
          ],
          ...fiveMinutes,
        }),
      },
      SweepTicksFailed: {
        description: 'The sweep schedule could not invoke the sweep: expiries and reminders are not being acted on.',
        metric: new Metric({
          namespace: 'AWS/Events',
          metricName: 'FailedInvocations',
          dimensionsMap: { RuleName: fns.sweep.rule.ruleName },
          ...fiveMinutes,
        }),
      },
    },
    heartbeats: {
      SweepHeartbeat: {
        description:
          'The sweep ran less than once in five minutes (or not at all): its schedule stopped, so expiries and reminders are not acted on.',
        metric: fns.sweeper.function.metricInvocations({ period: Duration.minutes(5), statistic: 'Sum' }),
      },
    },
    bounds: {
      LifecycleStreamAge: {
        description:
          'The lifecycle stream is five minutes or more behind: events, Slack messages and emails arrive late; records older than an hour are dropped to LifecycleFailedRecords.',
        metric: lifecycle.handler.function.metric('IteratorAge', {
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        threshold: Duration.minutes(5).toMilliseconds(),
      },
      OldestPendingAsk: {
        description:
          'An ask has waited for people as long as handback:pendingAlarmMinutes allows (the sweep counts OldestPendingSeconds every five minutes): see the Decisions dashboard and GET /stats for the tool, and who its approvers are.',
        metric: parts.decisions.oldestPending,
        threshold: parts.decisions.pendingAlarm.toSeconds(),
      },
      ...(handoff.queue
        ? {
            HandoffQueueAge: {
              description:
                'A continuation pointer has waited an hour in the hand-off queue: nothing in this stack consumes it, so your consumer is missing or failing. Pointers are deleted after 14 days (the queue retention); the continuations stay readable from the table.',
              metric: handoff.queue.metricApproximateAgeOfOldestMessage({
                period: Duration.minutes(5),
                statistic: 'Maximum',
              }),
              threshold: Duration.hours(1).toSeconds(),
            },
          }
        : {}),
    },
    topic: parts.topic,
  });
}
