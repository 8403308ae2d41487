import { Duration, Validations } from 'aws-cdk-lib';
import { EventBus, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { LambdaFunction, SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { durableQueue } from './queues.ts';

/** The detail-type of the EventBridge events that ask for a resume (§6). */
export const RESUME_REQUESTED = 'Resume Requested';

/** How many times a resume request is received before it goes to the dead-letter queue. */
export const MAX_RECEIVE_COUNT = 5;

/** Props of {@link ResumeTriggers}. */
export interface ResumeTriggersProps {
  /** The SQS resume handler; it reports partial batch failures. */
  readonly handler: IFunction;
  /** The handler's timeout: the queue's visibility timeout is six times it, as AWS advises for Lambda consumers. */
  readonly handlerTimeout: Duration;
  /**
   * The `source` of `Resume Requested` events.
   * @default 'handback'
   */
  readonly eventSource?: string;
  /**
   * The IAM principals (role, user or account-root ARNs; `*` and `?` wildcards allowed) that may put events on the
   * resume bus. Every other principal is refused by the bus's resource policy, whatever its own IAM policy allows
   * (`events:PutEvents` on `*` included): a `Resume Requested` event carries the `by` it decides as.
   * @default - none: no one may put events on it until the deployment names who
   */
  readonly putEventsPrincipals?: readonly string[];
  /**
   * Records per batch handed to the handler.
   * @default 10
   */
  readonly batchSize?: number;
  /**
   * The EventBridge resume handler. When given, the rule invokes it directly (asynchronously, its failures kept in
   * `failedInvocationsQueue`) instead of buffering events in the queue.
   * @default - the rule buffers each event's `detail` in the queue, for the SQS handler
   */
  readonly eventBridgeHandler?: IFunction;
}

/**
 * The asynchronous ways in: a queue of resume requests (body = `{runId, interruptId, answer, tenant?}`) feeding the
 * SQS handler with partial batch responses, its dead-letter queue after `MAX_RECEIVE_COUNT` receives, and, on a bus
 * of its own whose resource policy names who may put events, an EventBridge rule for `Resume Requested` that buffers
 * each event's `detail` into the same queue, with a dead-letter queue of its own for events it cannot deliver.
 */
export class ResumeTriggers extends Construct {
  /** The queue of resume requests. */
  readonly queue: Queue;
  /** Where requests land after `MAX_RECEIVE_COUNT` failed receives: the ones that can never succeed, with their reason in the logs. */
  readonly deadLetterQueue: Queue;
  /** Where the rule puts events it could not deliver to the queue. */
  readonly ruleDeadLetterQueue: Queue;
  /** Where the EventBridge handler's failed asynchronous invocations go, with their error, when it is deployed. */
  readonly failedInvocationsQueue?: Queue;
  /** The `Resume Requested` rule. */
  readonly rule: Rule;
  /** The bus of the stack's own the rule listens on; its resource policy names who may put events on it. */
  readonly eventBus: EventBus;

  constructor(scope: Construct, id: string, props: ResumeTriggersProps) {
    super(scope, id);
    this.deadLetterQueue = durableQueue(this, 'DeadLetterQueue');
    this.queue = durableQueue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(props.handlerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    this.ruleDeadLetterQueue = durableQueue(this, 'RuleDeadLetterQueue');

    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'The dead-letter queue of the resume queue is the end of the line: its messages wait for a person, not another redrive.',
    });
    Validations.of(this.ruleDeadLetterQueue).acknowledge(
      {
        id: 'Serverless-SQSRedrivePolicy',
        reason: "The rule target's dead-letter queue is the end of the line: nothing consumes it automatically.",
      },
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter queue (of the EventBridge target), which cdk-nag cannot see from a rule.',
      },
    );

    props.handler.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: props.batchSize ?? 10,
        reportBatchItemFailures: true,
      }),
    );

    // A bus of its own, not the account's default one: events:PutEvents on the default bus is often granted broadly,
    // and whoever may put a Resume Requested event decides as the `by` it names.
    this.eventBus = new EventBus(this, 'Bus', {
      description: 'Handback Resume Requested events: only the principals its policy names may put events',
    });
    const putters = [...(props.putEventsPrincipals ?? [])];
    this.eventBus.addToResourcePolicy(
      new PolicyStatement({
        sid: 'OnlyTheNamedPrincipalsPutEvents',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['events:PutEvents'],
        resources: [this.eventBus.eventBusArn],
        ...(putters.length === 0 ? {} : { conditions: { ArnNotLike: { 'aws:PrincipalArn': putters } } }),
      }),
    );
    if (putters.length > 0) {
      // Named principals of other accounts need the bus to allow them; those of this account, their own IAM policy too.
      this.eventBus.addToResourcePolicy(
        new PolicyStatement({
          sid: 'TheNamedPrincipalsPutEvents',
          effect: Effect.ALLOW,
          principals: [new AnyPrincipal()],
          actions: ['events:PutEvents'],
          resources: [this.eventBus.eventBusArn],
          conditions: { ArnLike: { 'aws:PrincipalArn': putters } },
        }),
      );
    }
    this.rule = new Rule(this, 'ResumeRequested', {
      description: 'Resume Requested events: each detail is one resume request.',
      eventBus: this.eventBus,
      eventPattern: { source: [props.eventSource ?? 'handback'], detailType: [RESUME_REQUESTED] },
    });
    const delivery = {
      deadLetterQueue: this.ruleDeadLetterQueue,
      retryAttempts: 185,
      maxEventAge: Duration.hours(24),
    };
    if (props.eventBridgeHandler) {
      this.failedInvocationsQueue = durableQueue(this, 'FailedInvocationsQueue');
      Validations.of(this.failedInvocationsQueue).acknowledge(
        {
          id: 'Serverless-SQSRedrivePolicy',
          reason: "The EventBridge handler's on-failure destination is the end of the line: records wait for a person.",
        },
        {
          id: 'AwsSolutions-SQS3',
          reason:
            'This queue is itself a dead-letter destination (of asynchronous Lambda invocations), which cdk-nag cannot see.',
        },
      );
      // Lambda retries an asynchronous invocation twice, then records the event with its error here.
      props.eventBridgeHandler.configureAsyncInvoke({
        onFailure: new SqsDestination(this.failedInvocationsQueue),
        retryAttempts: 2,
        maxEventAge: Duration.hours(6),
      });
      this.rule.addTarget(new LambdaFunction(props.eventBridgeHandler, delivery));
    } else {
      this.rule.addTarget(
        new SqsQueue(this.queue, { message: RuleTargetInput.fromEventPath('$.detail'), ...delivery }),
      );
    }
  }
}
