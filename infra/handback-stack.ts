import { CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { Metric as HandbackMetric } from '../functions/resume/telemetry.ts';
import { HandbackAlarms } from './alarms.ts';
import {
  AGENT_STEPS,
  ApprovalWorkflow,
  MAX_PAUSE_EXPIRY,
  ResumeWorkflow,
  WAIT_BEYOND_EXPIRY,
} from './approval-workflow.ts';
import { HandbackChannels } from './channels.ts';
import { CheckpointTable } from './checkpoint-table.ts';
import { HandbackFunction } from './handback-function.ts';
import { Handoff } from './handoff.ts';
import { HandbackHttpApi } from './http-api.ts';
import { LifecycleEvents } from './lifecycle-events.ts';
import { ENTRY } from './paths.ts';
import { ResumeTriggers } from './resume-triggers.ts';
import { ConfigurationError, type HandbackStackProps, resolveChannelSettings, resolveSettings } from './settings.ts';

export type { HandbackStackProps };

import * as S from '../functions/settings.ts';
import { SWEEP_EVERY, SweepSchedule } from './sweep-schedule.ts';
import { HandbackUserPool, INBOX_SCOPES } from './user-pool.ts';

/**
 * Handback on AWS: the checkpoint table, the HTTP API (with the inbox page and answer links), the resume triggers
 * (Step Functions task, SQS, EventBridge), the hand-off target, the sweep that acts on expiries and reminders,
 * lifecycle events on a bus with an example notification, a reference approval workflow, and alarms.
 * Environment-agnostic: nothing is looked up at synthesis.
 */
export class HandbackStack extends Stack {
  constructor(scope: Construct, id: string, props: HandbackStackProps = {}) {
    super(scope, id, props);
    const settings = resolveSettings(this, props);
    if (settings.pauseExpiry.toSeconds() > MAX_PAUSE_EXPIRY.toSeconds()) {
      throw new ConfigurationError(
        `pauseExpiry (context handback:pauseExpirySeconds) is ${settings.pauseExpiry.toSeconds()} seconds: at most ${MAX_PAUSE_EXPIRY.toSeconds()}, so that the reference workflow's wait (the expiry and the sweep's bound) fits Step Functions' one-year execution limit.`,
      );
    }
    const logging = { logRetention: settings.logRetention, logRemovalPolicy: settings.removalPolicy };
    // Every function that writes pauses sets their TTL from it: a closed pause's audit trail lives that long.
    const retention = { [S.retentionDays.env]: String(settings.retentionDays) };

    const { table } = new CheckpointTable(this, 'Checkpoints', {
      encryptionKey: settings.encryptionKey,
      removalPolicy: settings.removalPolicy,
    });
    const handoff = new Handoff(this, 'Handoff', { target: settings.handoff });

    // The answer-link key (§11): letters and digits only, so the value is safe in any header or URL it meets.
    const linkKey = new Secret(this, 'AnswerLinkKey', {
      description: 'Handback answer-link key: HMAC-SHA256 key of the signed links to the inbox page',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      encryptionKey: settings.encryptionKey,
      removalPolicy: settings.removalPolicy,
    });
    Validations.of(linkKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The key signs answer links that stay valid until their pause closes (up to a year): rotating it would void every open link at once, so people could no longer decide from the emails and messages they already have. Rotate it by hand, knowing that.',
    });

    const resumeFunction = (
      name: string,
      entry: string,
      description: string,
      timeoutSeconds: number,
      access: 'decide' | 'readWrite' = 'decide',
    ) => {
      // The functions that pause judge their approval asks by the deployment's policies (§17): they carry the files.
      const pauses = access === 'readWrite' && settings.policies !== undefined;
      const fn = new HandbackFunction(this, name, {
        ...(pauses ? { policies: settings.policies } : {}),
        entry,
        description,
        timeout: Duration.seconds(timeoutSeconds),
        environment: {
          [S.tenantClaim.env]: settings.tenantClaim,
          [S.groupsClaim.env]: settings.groupsClaim,
          ...retention,
          // Every function that may pause holds an agent to the deployment's recipient domains (§16).
          ...(settings.recipientDomains.length === 0
            ? {}
            : { [S.recipientDomains.env]: settings.recipientDomains.join(',') }),
        },
        handoffTarget: handoff.type,
        ...logging,
      });
      fn.bindTable(table, access);
      handoff.bind(fn);
      return fn;
    };
    // API Gateway waits at most 30 s for an integration; the function gives up first.
    // The API pauses as well as decides; every other resumer only decides, closes and reads.
    const api = resumeFunction('ApiHandler', ENTRY.api, 'Handback HTTP API (payload 2.0)', 29, 'readWrite');
    api.grantSecretRead(linkKey);
    if (settings.inboxUrl !== undefined) api.function.addEnvironment(S.inboxUrl.env, settings.inboxUrl);
    const stepFunctionsHandler = resumeFunction(
      'StepFunctionsHandler',
      ENTRY.stepFunctions,
      'Handback resume as a Step Functions task',
      60,
    );
    const sqsHandler = resumeFunction(
      'SqsHandler',
      ENTRY.sqs,
      'Handback resume from SQS (partial batch responses)',
      60,
    );
    // One sweep per tick: its timeout is the tick's period, so a sweep ends before the next one starts.
    const sweeper = resumeFunction(
      'Sweeper',
      ENTRY.sweeper,
      'Handback sweep: due reminders, expiries and onExpiry reject closings',
      SWEEP_EVERY.toSeconds(),
    );
    const sweep = new SweepSchedule(this, 'Sweep', { handler: sweeper.function });

    const eventBridgeHandler =
      settings.resumeRequestsVia === 'function'
        ? resumeFunction(
            'EventBridgeHandler',
            ENTRY.eventBridge,
            'Handback resume from EventBridge Resume Requested',
            60,
          )
        : undefined;

    let agent = props.agent;
    if (!agent) {
      const example = new HandbackFunction(this, 'ExampleAgent', {
        entry: ENTRY.exampleAgent,
        description:
          'Handback example agent: asks, pauses for approvals, runs the approved calls from the continuation',
        memorySize: 256,
        environment: retention,
        ...logging,
      });
      // Its own tenant's runs only: an agent's credential is no key to every tenant's pauses.
      example.bindTable(table, 'readWrite', { tenants: [settings.exampleAgentTenant] });
      acknowledgeSynchronous(example, 'Step Functions invokes it synchronously (RequestResponse and waitForTaskToken)');
      agent = example.function;
    }
    const approval = new ApprovalWorkflow(this, 'ApprovalWorkflow', {
      agent,
      pauseExpiry: settings.pauseExpiry,
      ...logging,
    });
    const resume = new ResumeWorkflow(this, 'ResumeWorkflow', {
      resumeFunction: stepFunctionsHandler.function,
      ...logging,
    });
    // The channels (§14): Slack and email, each only when its context turns it on.
    const channels = new HandbackChannels(this, 'Channels', {
      table,
      handoff,
      settings: resolveChannelSettings(this),
      ...(settings.inboxUrl === undefined ? {} : { inboxUrl: settings.inboxUrl }),
      ...logging,
    });
    if (channels.names.length > 0) api.function.addEnvironment(S.channels.env, channels.names.join(','));
    const resumers = [
      ...channels.deciders,
      api,
      stepFunctionsHandler,
      sqsHandler,
      sweeper,
      ...(eventBridgeHandler ? [eventBridgeHandler] : []),
    ];
    for (const fn of resumers) {
      fn.grantTaskCallbacks(approval.stateMachine);
    }

    if (settings.exampleAgent === 'durable') {
      // The example agent as a durable function: it waits through `handback/durable`, and whatever closes a pause
      // completes its callback.
      const durable = new HandbackFunction(this, 'DurableExampleAgent', {
        entry: ENTRY.durableExampleAgent,
        description: 'Handback example agent as a durable function: waitForDecision, then the approved calls',
        memorySize: 256,
        environment: retention,
        durableConfig: {
          executionTimeout: Duration.seconds(
            settings.pauseExpiry.toSeconds() + WAIT_BEYOND_EXPIRY.toSeconds() + AGENT_STEPS.toSeconds(),
          ),
        },
        ...logging,
      });
      durable.bindTable(table, 'readWrite', { tenants: [settings.exampleAgentTenant] });
      Validations.of(durable).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason:
          'A durable execution keeps its own state, retries and history (GetDurableExecutionHistory): a failed one is there, not in a dead-letter queue.',
      });
      for (const fn of resumers) fn.grantDurableCallbacks(durable.function);
    }

    let userPool: HandbackUserPool | undefined;
    let jwt: { jwtIssuer: string; jwtAudience: string[] };
    if (settings.auth.kind === 'userPool') {
      userPool = new HandbackUserPool(this, 'Users', {
        tenantClaim: settings.tenantClaim,
        groups: settings.auth.groups,
        domainPrefix: settings.auth.domainPrefix,
        agentTenant: settings.auth.agentTenant,
        removalPolicy: settings.removalPolicy,
        logRetention: settings.logRetention,
      });
      jwt = { jwtIssuer: userPool.issuer, jwtAudience: userPool.audience };
      // The pool's pre-token trigger puts only verified emails in its access tokens (§16): the API may trust them.
      api.function.addEnvironment(S.ownUserPoolIssuer.env, userPool.issuer);
    } else {
      jwt = { jwtIssuer: settings.auth.jwtIssuer, jwtAudience: settings.auth.jwtAudience };
    }
    // The inbox page's files on a function of their own: the API function's bundle and cold start stay without them.
    // `POST /mcp` (§18) on a function of its own: the MCP SDK stays out of the API function's bundle and cold start.
    // It pauses as the API's pause route does (and may see a policy close a pause at once, handing it off); a call
    // waits at most 25 s, inside the 29 s it has, inside API Gateway's 30 s.
    // It pauses, as the API does (the MCP tools' permission prompts and questions).
    const mcp = resumeFunction(
      'McpHandler',
      ENTRY.mcp,
      'Handback MCP server, Streamable HTTP (payload 2.0)',
      29,
      'readWrite',
    );
    if (settings.inboxUrl !== undefined) mcp.function.addEnvironment(S.inboxUrl.env, settings.inboxUrl);
    if (channels.names.length > 0) mcp.function.addEnvironment(S.channels.env, channels.names.join(','));
    acknowledgeSynchronous(mcp, 'API Gateway invokes it synchronously and returns its errors to the caller');
    const inbox = new HandbackFunction(this, 'InboxHandler', {
      entry: ENTRY.inbox,
      description: 'Handback inbox page (static files, payload 2.0)',
      timeout: Duration.seconds(10),
      ...logging,
    });
    acknowledgeSynchronous(inbox, 'API Gateway invokes it synchronously and returns its errors to the caller');
    const httpApi = new HandbackHttpApi(this, 'Http', {
      handler: api.function,
      inboxHandler: inbox.function,
      mcpHandler: mcp.function,
      ...(channels.slackInteractions ? { slackHandler: channels.slackInteractions.function } : {}),
      ...jwt,
      requireScopes: settings.requireScopes,
      ...logging,
    });
    const inboxUrl = settings.inboxUrl ?? `${httpApi.api.apiEndpoint}/inbox`;
    if (userPool) {
      // The page signs people in with the pool (§13): `GET /inbox/config.json` tells it the issuer, its client and
      // scopes; the token endpoint lives on the managed-login domain, which the page's policy must let it call.
      const inboxClient = userPool.addInboxClient(inboxUrl);
      inbox.function.addEnvironment(S.jwtIssuer.env, userPool.issuer);
      inbox.function.addEnvironment(S.oidcClientId.env, inboxClient.userPoolClientId);
      inbox.function.addEnvironment(S.oidcScopes.env, INBOX_SCOPES.join(' '));
      inbox.function.addEnvironment(S.oidcEndpointOrigins.env, userPool.signInUrl);
    }

    const lifecycle = new LifecycleEvents(this, 'Lifecycle', {
      table,
      linkKey,
      inboxUrl,
      eventBus: settings.eventBus,
      notifyEmail: settings.notifyEmail,
      ...logging,
    });

    channels.deliverFrom({
      eventBus: lifecycle.eventBus,
      linkKey,
      inboxUrl,
      recipientDomains: settings.recipientDomains,
      api: api,
    });

    const triggers = new ResumeTriggers(this, 'ResumeRequests', {
      handler: sqsHandler.function,
      handlerTimeout: Duration.seconds(60),
      eventSource: settings.eventSource,
      eventBridgeHandler: eventBridgeHandler?.function,
      putEventsPrincipals: settings.resumeEventPrincipals,
    });
    if (eventBridgeHandler) {
      Validations.of(eventBridgeHandler).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason:
          'Failed asynchronous invocations go to an on-failure destination (the FailedInvocationsQueue), which keeps the error as well as the event; a DLQ would keep the event alone.',
      });
    }

    acknowledgeSynchronous(api, 'API Gateway invokes it synchronously and returns its errors to the caller');
    acknowledgeSynchronous(
      stepFunctionsHandler,
      'Step Functions invokes it synchronously and Catches its errors by name',
    );
    acknowledgeSynchronous(
      sqsHandler,
      'the SQS poller invokes it synchronously; failed records return to the queue and reach its dead-letter queue',
    );
    Validations.of(sqsHandler).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        'SQS event source mappings take no on-failure destination: failed records go to the queue redrive policy (dead-letter queue after 5 receives).',
    });

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
    new HandbackAlarms(this, 'Alarms', {
      functions: {
        ApiHandler: api.function,
        InboxHandler: inbox.function,
        McpHandler: mcp.function,
        StepFunctionsHandler: stepFunctionsHandler.function,
        SqsHandler: sqsHandler.function,
        Sweeper: sweeper.function,
        LifecycleEvents: lifecycle.handler.function,
        ...(eventBridgeHandler ? { EventBridgeHandler: eventBridgeHandler.function } : {}),
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
            dimensionsMap: { RuleName: sweep.rule.ruleName },
            ...fiveMinutes,
          }),
        },
      },
      heartbeats: {
        SweepHeartbeat: {
          description:
            'The sweep ran less than once in five minutes (or not at all): its schedule stopped, so expiries and reminders are not acted on.',
          metric: sweeper.function.metricInvocations({ period: Duration.minutes(5), statistic: 'Sum' }),
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
      topic: settings.alarmTopic,
    });

    new CfnOutput(this, 'ApiUrl', { description: 'The HTTP API base URL', value: httpApi.api.apiEndpoint });
    new CfnOutput(this, 'InboxUrl', { description: 'The inbox page, where people decide', value: inboxUrl });
    new CfnOutput(this, 'TableName', {
      description: 'The checkpoint table (for your own agent Lambda)',
      value: table.tableName,
    });
    new CfnOutput(this, 'ResumeQueueUrl', { description: 'Send resume requests here', value: triggers.queue.queueUrl });
    new CfnOutput(this, 'ResumeEventBusName', {
      description: 'Put Resume Requested events here (only the principals of handback:resumeEventPrincipals may)',
      value: triggers.eventBus.eventBusName,
    });
    if (handoff.queue) {
      new CfnOutput(this, 'HandoffQueueUrl', {
        description: 'Continuation pointers arrive here',
        value: handoff.queue.queueUrl,
      });
    }
    new CfnOutput(this, 'LifecycleEventBusName', {
      description: 'Lifecycle events (source handback) go to this bus: add rules for your own notifications',
      value: lifecycle.eventBus.eventBusName,
    });
    new CfnOutput(this, 'PauseCreatedTopicArn', {
      description: 'Pause Created notifications, with the answer link: subscribe an email address or a chat bot',
      value: lifecycle.topic.topicArn,
    });
    new CfnOutput(this, 'ApprovalStateMachineArn', {
      description: 'The reference workflow',
      value: approval.stateMachine.stateMachineArn,
    });
    new CfnOutput(this, 'ResumeStateMachineArn', {
      description: 'The resume as a one-task workflow',
      value: resume.stateMachine.stateMachineArn,
    });
    userPool?.addOutputs(this);
  }
}

/** A Lambda invoked only synchronously never uses an asynchronous-invoke dead-letter queue: say so, once. */
function acknowledgeSynchronous(fn: HandbackFunction, why: string): void {
  Validations.of(fn).acknowledge({
    id: 'Serverless-LambdaDLQ',
    reason: `An asynchronous-invoke dead-letter queue would never receive anything: ${why}.`,
  });
}
