import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IEventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import * as S from '../functions/settings.ts';
import {
  CHANNEL_NAMES,
  type ChannelName,
  LIFECYCLE_SOURCE,
  LIFECYCLE_TYPES,
  LifecycleType,
} from '../functions/vocabulary.ts';
import type { DirectoryBundle } from './directory.ts';
import { HandbackFunction } from './handback-function.ts';
import type { Handoff } from './handoff.ts';
import { ENTRY } from './paths.ts';
import type { PolicyBundle } from './policies.ts';
import { durableQueue } from './queues.ts';
import type { ChannelSettings } from './settings.ts';

/**
 * The lifecycle events each channel's rule matches (§14). The events carry no `notify` (an event names no person), so
 * a rule cannot tell which pauses name its channel: its function reads the pause and delivers to its entries or the
 * deployment's defaults, and to none when there are neither. Slack updates its message on every change; email
 * cannot update a mail, so it hears only of what it sends.
 */
export const CHANNEL_EVENTS: Record<ChannelName, readonly string[]> = {
  slack: LIFECYCLE_TYPES,
  email: [LifecycleType.Created, LifecycleType.Reminder, LifecycleType.Escalated],
};

/** A channel's delivery function: its entry point, words and environment, and what it is granted beyond the table. */
interface DeliveryFunction {
  entry: string;
  description: string;
  environment: Record<string, string>;
  grant(handler: HandbackFunction): void;
}

/** How one channel is delivered on AWS, from its settings (`infra/settings.ts`). */
interface Delivery<C extends ChannelName> {
  /** The construct ids' stem: `<id>Events`, `<id>Rule`, `<id>DeadLetterQueue`. */
  id: string;
  /** The name the stack's depth alarm gives its dead-letter queue. */
  alarmedQueue: string;
  function(
    settings: NonNullable<ChannelSettings[C]>,
    props: ChannelDeliveryProps,
    channels: HandbackChannels,
  ): DeliveryFunction;
}

/** Each channel's delivery on AWS (§14). */
const DELIVERIES: { [C in ChannelName]: Delivery<C> } = {
  slack: {
    id: 'Slack',
    alarmedQueue: 'SlackDeadLetterQueue',
    function: (slack, props, channels) => ({
      entry: ENTRY.slackEvents,
      description: 'Handback Slack channel: posts, updates and reminders from the lifecycle events',
      environment: { [S.inboxUrl.env]: props.inboxUrl, ...defaultsOf(S.slackChannel.env, slack.defaultChannels) },
      grant(handler) {
        const secret = channels.slackSecret as ISecret;
        handler.grantSecretRead(secret, S.slackSecretName.env);
        acknowledgeImportedSecret(handler, secret);
      },
    }),
  },
  email: {
    id: 'Email',
    alarmedQueue: 'EmailChannelDeadLetterQueue',
    function: (email, props) => {
      const sender = {
        [S.emailFrom.env]: email.from,
        ...(email.region === undefined ? {} : { [S.emailRegion.env]: email.region }),
        ...(email.configurationSet === undefined ? {} : { [S.emailConfigurationSet.env]: email.configurationSet }),
      };
      return {
        entry: ENTRY.emailEvents,
        description: 'Handback email channel: one SES email per recipient, with their own answer link',
        environment: {
          [S.inboxUrl.env]: props.inboxUrl,
          ...sender,
          ...defaultsOf(S.emailTo.env, email.defaultRecipients),
          ...((props.recipientDomains ?? []).length === 0
            ? {}
            : { [S.recipientDomains.env]: (props.recipientDomains ?? []).join(',') }),
        },
        grant(handler) {
          handler.grantSecretRead(props.linkKey);
          grantSendEmail(handler, email);
          if (props.api !== undefined) {
            for (const [name, value] of Object.entries(sender)) props.api.function.addEnvironment(name, value);
            grantSendEmail(props.api, email);
          }
        },
      };
    },
  },
};

/** How often EventBridge retries invoking a channel's function, and for how long, before the event goes to its DLQ. */
const RULE_RETRY = { retryAttempts: 185, maxEventAge: Duration.hours(24) } as const;

/** Props of {@link HandbackChannels}. */
export interface HandbackChannelsProps {
  /** The checkpoint table: the pauses each delivery reads, and the delivery log beside them. */
  readonly table: ITable;
  /** The transcript bucket (§23): a pause read whole may have its transcript there. */
  readonly transcripts: IBucket;
  /** The hand-off: a click in Slack that decides a pause's last ask closes it, and the continuation goes on. */
  readonly handoff: Handoff;
  /** Which channels are on. */
  readonly settings: ChannelSettings;
  /**
   * The inbox page's public URL when it is not the HTTP API's own, for the messages the interactions function updates
   * (the API's own URL would make the function depend on the API it serves).
   * @default - the `/inbox` of the host Slack's request came to
   */
  readonly inboxUrl?: string;
  /**
   * The deployment's Cedar policies, for the interactions function: a person's edit in a Slack modal is judged by
   * them like any other (§19).
   * @default - none: no policy applies
   */
  readonly policies?: PolicyBundle;
  /**
   * The deployment's directory file (§20), for every channel function: Slack's clicks resolve each person as every
   * other door does, and the deliveries tell delegates and mail a level's groups at their members' emails.
   * @default - none: no directory file
   */
  readonly directory?: DirectoryBundle;
  /**
   * How long the functions' logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the functions' log groups when the stack is deleted.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/** What the channels' delivery functions need once the bus and the inbox exist (see {@link HandbackChannels.deliverFrom}). */
export interface ChannelDeliveryProps {
  /** The lifecycle events' bus. */
  readonly eventBus: IEventBus;
  /** The answer-link key: each email carries its recipient's own link (§13). */
  readonly linkKey: ISecret;
  /** The inbox page's public URL, linked from each Slack message and email. */
  readonly inboxUrl: string;
  /** The recipient domains (§16): an agent's pause is mailed to its own addresses only inside them. */
  readonly recipientDomains?: readonly string[];
  /**
   * The API's function: with email on, it mails the links asked for with `deliver: true` (§16) by the same SES
   * identity, so it gets the sender and the grant too.
   */
  readonly api?: HandbackFunction;
}

/** One channel's delivery: its function, its rule, and the queue of what it could not deliver. */
export interface ChannelDelivery {
  readonly handler: HandbackFunction;
  readonly rule: Rule;
  /** The rule target's dead-letter queue and the function's on-failure destination. */
  readonly deadLetterQueue: Queue;
}

/**
 * The channels on AWS (§14), each only when its settings turn it on: per channel a function its rule on the lifecycle
 * bus invokes, a queue for what could not be delivered (events EventBridge could not hand over, and invocations that
 * failed after Lambda's retries, with their error), which the stack's alarms watch; for Slack, the app's secret
 * (named by the operator, read on first use) and the function of `POST /channels/slack/interactions`, small and of its
 * own. Made in two steps because the HTTP API needs the interactions function before the bus and the inbox URL exist:
 * the constructor makes what the API and the grants need, `deliverFrom` the rules and their functions.
 */
export class HandbackChannels extends Construct {
  /** The channels turned on, for the API's check of a pause's `notify` (`HANDBACK_CHANNELS`). */
  readonly names: ChannelName[] = [];
  /** The Slack app's secret, when Slack is on. */
  readonly slackSecret?: ISecret;
  /** The function of Slack's interactions route, when Slack is on. */
  readonly slackInteractions?: HandbackFunction;
  /** Each channel's delivery, once `deliverFrom` has run. */
  readonly deliveries: Partial<Record<ChannelName, ChannelDelivery>> = {};
  private readonly props: HandbackChannelsProps;

  constructor(scope: Construct, id: string, props: HandbackChannelsProps) {
    super(scope, id);
    this.props = props;
    this.names.push(...CHANNEL_NAMES.filter((name) => props.settings[name] !== undefined));
    // Slack's clicks come back through a route of the API (the `slack` door): its function is made with the API's.
    const { slack } = props.settings;
    if (slack !== undefined) {
      this.slackSecret = slack.secretName.startsWith('arn:')
        ? Secret.fromSecretCompleteArn(this, 'SlackSecret', slack.secretName)
        : Secret.fromSecretNameV2(this, 'SlackSecret', slack.secretName);
      const interactions = new HandbackFunction(this, 'SlackInteractions', {
        ...(props.policies === undefined ? {} : { policies: props.policies }),
        ...(props.directory === undefined ? {} : { directory: props.directory }),
        entry: ENTRY.slackInteractions,
        description: 'Handback Slack interactions: signed clicks and modal submissions, decided (payload 2.0)',
        // Slack waits 3 s for an answer; a request still running after that has lost the person anyway.
        timeout: Duration.seconds(10),
        handoffTarget: props.handoff.type,
        environment: {
          ...(props.inboxUrl === undefined ? {} : { [S.inboxUrl.env]: props.inboxUrl }),
          ...defaultsOf(S.slackChannel.env, slack.defaultChannels),
        },
        ...this.logging(),
      });
      interactions.bindTable(props.table, 'click');
      interactions.bindTranscripts(props.transcripts, 'read');
      interactions.grantSecretRead(this.slackSecret, S.slackSecretName.env);
      props.handoff.bind(interactions);
      acknowledgeImportedSecret(interactions, this.slackSecret);
      Validations.of(interactions).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason:
          'An asynchronous-invoke dead-letter queue would never receive anything: API Gateway invokes it synchronously and Slack sees its answer.',
      });
      this.slackInteractions = interactions;
    }
  }

  /** The functions that decide pauses: they complete task tokens and durable callbacks, as every resumer does. */
  get deciders(): HandbackFunction[] {
    return this.slackInteractions === undefined ? [] : [this.slackInteractions];
  }

  /** Every channel function, by a short name, for the stack's error and throttle alarms. */
  get functions(): Record<string, HandbackFunction['function']> {
    const functions: Record<string, HandbackFunction['function']> = {};
    if (this.slackInteractions) functions.SlackInteractions = this.slackInteractions.function;
    for (const name of CHANNEL_NAMES) {
      const delivery = this.deliveries[name];
      if (delivery !== undefined) functions[`${DELIVERIES[name].id}Events`] = delivery.handler.function;
    }
    return functions;
  }

  /** Every channel's dead-letter queue, by a short name, for the stack's depth alarms. */
  get deadLetterQueues(): Record<string, Queue> {
    const queues: Record<string, Queue> = {};
    for (const name of CHANNEL_NAMES) {
      const delivery = this.deliveries[name];
      if (delivery !== undefined) queues[DELIVERIES[name].alarmedQueue] = delivery.deadLetterQueue;
    }
    return queues;
  }

  /** Makes each channel's delivery function and its rule on the lifecycle bus. */
  deliverFrom(props: ChannelDeliveryProps): void {
    for (const name of CHANNEL_NAMES) this.deliverOne(name, props);
  }

  private deliverOne<C extends ChannelName>(name: C, props: ChannelDeliveryProps): void {
    const settings = this.props.settings[name];
    if (settings === undefined) return;
    const spec: Delivery<C> = DELIVERIES[name];
    const made = spec.function(settings, props, this);
    const delivery = this.delivery(name, spec.id, props, made);
    made.grant(delivery.handler);
    this.deliveries[name] = delivery;
  }

  private delivery(
    channel: ChannelName,
    id: string,
    props: ChannelDeliveryProps,
    fn: DeliveryFunction,
  ): ChannelDelivery {
    // Bundled for no hand-off: a delivery reads pauses and never closes one.
    const { entry, description, environment } = fn;
    const handler = new HandbackFunction(this, `${id}Events`, {
      ...(this.props.directory === undefined ? {} : { directory: this.props.directory }),
      entry,
      description,
      environment,
      handoffTarget: 'none',
      ...this.logging(),
    });
    handler.bindTable(this.props.table, 'deliver');
    handler.bindTranscripts(this.props.transcripts, 'read');
    const deadLetterQueue = durableQueue(this, `${id}DeadLetterQueue`);
    Validations.of(deadLetterQueue).acknowledge(
      {
        id: 'Serverless-SQSRedrivePolicy',
        reason: `The ${channel} channel's dead-letter queue is the end of the line: nothing consumes it automatically; its alarm calls a person.`,
      },
      {
        id: 'AwsSolutions-SQS3',
        reason: `This queue is itself a dead-letter destination (of the ${channel} rule's target and the function's asynchronous invocations), which cdk-nag cannot see.`,
      },
    );
    // Lambda retries a failed delivery twice (the delivery log keeps what was sent from being sent again), then
    // records the event with its error in the queue.
    handler.function.configureAsyncInvoke({
      onFailure: new SqsDestination(deadLetterQueue),
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
    });
    Validations.of(handler).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Failed asynchronous invocations go to an on-failure destination (the channel dead-letter queue), which keeps the error as well as the event; a DLQ would keep the event alone.',
    });
    const rule = new Rule(this, `${id}Rule`, {
      description: `Lifecycle events to the ${channel} channel: it reads each pause and delivers to whom it names.`,
      eventBus: props.eventBus,
      eventPattern: { source: [LIFECYCLE_SOURCE], detailType: [...CHANNEL_EVENTS[channel]] },
    });
    rule.addTarget(new LambdaFunction(handler.function, { deadLetterQueue, ...RULE_RETRY }));
    return { handler, rule, deadLetterQueue };
  }

  private logging() {
    const { logRetention, logRemovalPolicy } = this.props;
    return {
      ...(logRetention === undefined ? {} : { logRetention }),
      ...(logRemovalPolicy === undefined ? {} : { logRemovalPolicy }),
    };
  }
}

/**
 * SES v2 `SendEmail` as SES authorizes it (its IAM guide, "Identity and access management in Amazon SES"): on the
 * sender's identity; in the sandbox also on each recipient's identity (a verified address or domain), which a pause
 * names only at run time, so on the account's identities, for this sender alone (`ses:FromAddress`); and on the
 * configuration set when one is named.
 */
function grantSendEmail(fn: HandbackFunction, email: NonNullable<ChannelSettings['email']>): void {
  const arn = (resource: string, resourceName: string) =>
    Stack.of(fn).formatArn({
      service: 'ses',
      resource,
      resourceName,
      ...(email.region === undefined ? {} : { region: email.region }),
    });
  fn.role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [
        arn('identity', email.identity),
        ...(email.configurationSet === undefined ? [] : [arn('configuration-set', email.configurationSet)]),
      ],
    }),
  );
  if (!email.sandbox) return;
  fn.role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [arn('identity', '*')],
      conditions: { StringEquals: { 'ses:FromAddress': email.address } },
    }),
  );
  Validations.of(fn).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:${email.region ?? '<AWS::Region>'}:<AWS::AccountId>:identity/*]`,
    reason:
      "In the SES sandbox SES authorizes SendEmail against each recipient's verified identity too, and a pause names its recipients at run time: the grant covers the account's identities, only as recipients of mail from this one sender (ses:FromAddress). handback:emailSandbox=false drops it once the account has left the sandbox.",
  });
}

/** A channel's default recipients as its variable, or nothing when it has none. */
function defaultsOf(variable: string, recipients: readonly string[]): Record<string, string> {
  return recipients.length === 0 ? {} : { [variable]: recipients.join(',') };
}

/** A secret imported by name is granted with Secrets Manager's six-character suffix matched: say why, once. */
function acknowledgeImportedSecret(fn: HandbackFunction, secret: ISecret): void {
  if (secret.secretFullArn !== undefined) return;
  Validations.of(fn).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${secret.secretName}-??????]`,
    reason:
      "The Slack app's secret is named, not created, by the stack: its ARN ends in six random characters Secrets Manager adds, matched by ??????; the grant is GetSecretValue on that one secret.",
  });
}
