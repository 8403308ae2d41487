import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, EventField, type IEventBus, type IRule, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { SnsTopic } from 'aws-cdk-lib/aws-events-targets';
import { Grant, type IGrantable, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ItemKind, TTL_REMOVER } from '../functions/checkpoints/dynamodb/items.ts';
import * as S from '../functions/settings.ts';
import { LIFECYCLE_SOURCE, LifecycleType } from '../functions/vocabulary.ts';
import { HandbackFunction } from './handback-function.ts';
import { ENTRY } from './paths.ts';
import { durableQueue } from './queues.ts';

/** Stream records one invocation takes: their events go out in PutEvents calls of ten, at once. */
export const STREAM_BATCH_SIZE = 100;

/** How many times a stream batch is retried (halved on each error) before its records go to the failure queue. */
export const STREAM_RETRY_ATTEMPTS = 10;

/** Props of {@link LifecycleEvents}. */
export interface LifecycleEventsProps {
  /** The checkpoint table; its stream (new and old images) must be on. */
  readonly table: ITable;
  /** The transcript bucket: the stream function deletes the object of each pause item TTL removes (§23). */
  readonly transcripts: IBucket;
  /** The answer-link key (Secrets Manager): `Pause Created` and `Pause Reminder` carry a link signed with it. */
  readonly linkKey: ISecret;
  /** The inbox page's public URL: answer links are `<inboxUrl>#<token>`. */
  readonly inboxUrl: string;
  /**
   * The bus lifecycle events go to.
   * @default - a bus of the stack's own
   */
  readonly eventBus?: IEventBus;
  /**
   * An address the `Pause Created` topic mails (the person confirms the subscription from a first email).
   * @default - no subscription: subscribe whoever should hear of new pauses to the topic
   */
  readonly notifyEmail?: string;
  /**
   * How long the function's logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the function's log group when the stack is deleted.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * The topic as a rule target sees it: EventBridge may publish to it for that one rule only (`aws:SourceArn`), where
 * `SnsTopic` alone would let `events.amazonaws.com` publish for any rule of any account — a confused deputy through
 * which another account's rule could mail the team "Pause Created" messages with links of its choosing.
 */
function publishedBy(topic: Topic, rule: IRule): ITopic {
  const scoped: ITopic = Object.create(topic);
  return Object.assign(scoped, {
    grantPublish: (grantee: IGrantable) => {
      const statement = new PolicyStatement({
        principals: [new ServicePrincipal('events.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: { ArnEquals: { 'aws:SourceArn': rule.ruleArn } },
      });
      topic.addToResourcePolicy(statement);
      return Grant.drop(grantee, 'sns:Publish to the topic, granted on its policy for one rule');
    },
  });
}

/** A queue for what could not be delivered: SQS-managed encryption, TLS only, kept 14 days for a person to look. */
function endOfTheLine(scope: Construct, id: string, what: string): Queue {
  const queue = durableQueue(scope, id);
  Validations.of(queue).acknowledge(
    {
      id: 'Serverless-SQSRedrivePolicy',
      reason: `This queue is the end of the line for ${what}: nothing consumes it automatically; its alarm calls a person.`,
    },
    {
      id: 'AwsSolutions-SQS3',
      reason: `This queue is itself a dead-letter destination (${what}), which cdk-nag cannot see from where it is attached.`,
    },
  );
  return queue;
}

/**
 * Lifecycle events on AWS (§11): the table's stream feeds a function that turns each committed change of a
 * pause into its event (`Pause Created`, `Pause Decided`, `Pause Resumed`, `Pause Expired`, `Pause Cancelled`,
 * `Pause Reminder`; source `handback`) on a bus, with an answer link on the events a person acts on. Only pause items
 * invoke it (an event filter: transcript parts never do); a batch that fails is halved and retried a bounded number
 * of times, then its records' stream positions go to a queue. An example rule sends `Pause Created` to an SNS topic,
 * in a message with the asks' prompts and the answer link, for a team to subscribe an email address to.
 */
export class LifecycleEvents extends Construct {
  /** The bus the events go to. */
  readonly eventBus: IEventBus;
  /** The stream function. */
  readonly handler: HandbackFunction;
  /** Where the stream positions of records that could not be delivered go (the stream keeps them 24 hours). */
  readonly failedRecordsQueue: Queue;
  /** The topic `Pause Created` notifications are published to. */
  readonly topic: Topic;
  /** The example rule: `Pause Created` to the topic. */
  readonly pauseCreatedRule: Rule;
  /** Where the rule puts notifications it could not publish. */
  readonly ruleDeadLetterQueue: Queue;
  /** Where the email subscription puts messages SNS could not deliver, when there is one. */
  readonly subscriptionDeadLetterQueue?: Queue;

  constructor(scope: Construct, id: string, props: LifecycleEventsProps) {
    super(scope, id);
    this.eventBus =
      props.eventBus ??
      new EventBus(this, 'Bus', { description: 'Handback lifecycle events: a pause created, decided, closed, due' });

    this.handler = new HandbackFunction(this, 'Handler', {
      entry: ENTRY.lifecycleEvents,
      description: 'Handback lifecycle events: the table stream to EventBridge',
      environment: { [S.eventBusName.env]: this.eventBus.eventBusName, [S.inboxUrl.env]: props.inboxUrl },
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      ...(props.logRemovalPolicy === undefined ? {} : { logRemovalPolicy: props.logRemovalPolicy }),
    });
    this.handler.grantSecretRead(props.linkKey);
    this.eventBus.grantPutEventsTo(this.handler.role);

    this.failedRecordsQueue = endOfTheLine(this, 'FailedRecords', 'stream records whose events could not be delivered');
    this.handler.bindTranscripts(props.transcripts, 'stream');
    // Closed transcripts of 8 KB or more move from the table to the bucket (§23): the stream function reads the pause
    // and its parts, names the object on the item and deletes the parts.
    this.handler.bindTable(props.table, 'archive');
    this.handler.function.addEventSource(
      new DynamoEventSource(props.table, {
        // Events of changes from now on: a new function never replays the table's last 24 hours.
        startingPosition: StartingPosition.LATEST,
        // A batch's events go out together, ten to a PutEvents call (§23): a tick of the sweep closing thousands of
        // pauses is a few hundred calls, not one call per change.
        batchSize: STREAM_BATCH_SIZE,
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: STREAM_RETRY_ATTEMPTS,
        maxRecordAge: Duration.hours(1),
        onFailure: new SqsDlq(this.failedRecordsQueue),
        // Transcript parts and other items never wake the function: only a pause has events, and only a pause item
        // TTL removes with its transcript in the bucket has an object to delete.
        filters: [
          FilterCriteria.filter({ dynamodb: { NewImage: { kind: { S: FilterRule.isEqual(ItemKind.Pause) } } } }),
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('REMOVE'),
            userIdentity: {
              type: FilterRule.isEqual(TTL_REMOVER.type),
              principalId: FilterRule.isEqual(TTL_REMOVER.principalId),
            },
            dynamodb: {
              OldImage: { kind: { S: FilterRule.isEqual(ItemKind.Pause) }, objectKey: { S: FilterRule.exists() } },
            },
          }),
        ],
      }),
    );
    Validations.of(this.handler).acknowledge(
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'The stream event source mapping invokes it synchronously; records that keep failing go to the mapping on-failure destination (FailedRecords), not an asynchronous-invoke DLQ.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Two actions take no resource: X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) and dynamodb:ListStreams, which the stream event source mapping needs; every other statement names its resource.',
      },
    );

    this.topic = new Topic(this, 'PauseCreatedTopic', {
      displayName: 'Handback: a decision is needed',
      enforceSSL: true,
    });
    this.ruleDeadLetterQueue = endOfTheLine(this, 'RuleDeadLetterQueue', 'Pause Created notifications not published');
    this.pauseCreatedRule = new Rule(this, 'PauseCreated', {
      description: 'Pause Created events to the notification topic, with the prompts and the answer link.',
      eventBus: this.eventBus,
      eventPattern: { source: [LIFECYCLE_SOURCE], detailType: [LifecycleType.Created] },
    });
    this.pauseCreatedRule.addTarget(
      new SnsTopic(publishedBy(this.topic, this.pauseCreatedRule), {
        // A JSON object whose values EventBridge inserts as JSON (quoted and escaped), so no prompt can break it.
        message: RuleTargetInput.fromObject({
          message: 'A paused agent turn waits for a decision. Open the link to decide; it works for this pause only.',
          runId: EventField.fromPath('$.detail.runId'),
          asked: EventField.fromPath('$.detail.asks[*].prompt'),
          tools: EventField.fromPath('$.detail.asks[*].name'),
          decideBefore: EventField.fromPath('$.detail.expiresAt'),
          answerUrl: EventField.fromPath('$.detail.answerUrl'),
        }),
        deadLetterQueue: this.ruleDeadLetterQueue,
        retryAttempts: 185,
        maxEventAge: Duration.hours(24),
      }),
    );

    if (props.notifyEmail !== undefined) {
      this.subscriptionDeadLetterQueue = endOfTheLine(
        this,
        'EmailDeadLetterQueue',
        'notification emails SNS could not deliver',
      );
      this.topic.addSubscription(
        new EmailSubscription(props.notifyEmail, { deadLetterQueue: this.subscriptionDeadLetterQueue }),
      );
    }
  }
}
