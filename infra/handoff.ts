import { Duration, Validations } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import * as S from '../functions/settings.ts';
import type { HandbackFunction } from './handback-function.ts';

/**
 * Where a successful resume's pointer `{runId, interruptId, continuationId, format, messages?}` goes (§6):
 * - `sqs`: a queue; the stack creates one (with a dead-letter queue) unless `queue` is given;
 * - `eventbridge`: `PutEvents` to a bus (the account's default bus unless `eventBus` is given);
 * - `lambda`: an asynchronous invoke of `function`;
 * - `none`: nothing but the task token's `SendTaskSuccess`.
 */
export type HandoffTargetProps =
  | { readonly type: 'sqs'; readonly queue?: IQueue }
  | { readonly type: 'eventbridge'; readonly eventBus: IEventBus }
  | { readonly type: 'lambda'; readonly function: IFunction }
  | { readonly type: 'none' };

/** Props of {@link Handoff}. */
export interface HandoffProps {
  /** The target. */
  readonly target: HandoffTargetProps;
}

/** The hand-off target, created or imported, and the one way to give a function its variables and send permission. */
export class Handoff extends Construct {
  /** The target's kind, as `HANDOFF_TARGET` spells it. */
  readonly type: HandoffTargetProps['type'];
  /** The queue pointers go to, when the target is `sqs`. */
  readonly queue?: IQueue;
  /** The dead-letter queue of a queue this construct created. */
  readonly deadLetterQueue?: Queue;
  private readonly target: HandoffTargetProps;

  constructor(scope: Construct, id: string, props: HandoffProps) {
    super(scope, id);
    this.target = props.target;
    this.type = props.target.type;
    if (props.target.type === 'sqs') {
      if (props.target.queue) {
        this.queue = props.target.queue;
      } else {
        this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          retentionPeriod: Duration.days(14),
        });
        Validations.of(this.deadLetterQueue).acknowledge({
          id: 'Serverless-SQSRedrivePolicy',
          reason:
            'This is the dead-letter queue of the hand-off queue: the end of the line, where failed pointers wait for a person.',
        });
        this.queue = new Queue(this, 'Queue', {
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          retentionPeriod: Duration.days(14),
          deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 5 },
        });
      }
    }
  }

  /** Sets `HANDOFF_TARGET` and the target's variable, and grants sending to the target alone. */
  bind(fn: HandbackFunction): void {
    const target = this.target;
    if (fn.handoffTarget !== undefined && fn.handoffTarget !== target.type) {
      throw new Error(
        `${fn.node.path} is bundled for the hand-off target ${fn.handoffTarget}, not ${target.type}: give it handoffTarget: '${target.type}'.`,
      );
    }
    fn.function.addEnvironment(S.handoff.env, target.type);
    switch (target.type) {
      case 'sqs': {
        const queue = this.queue as IQueue;
        fn.function.addEnvironment(S.handoffQueueUrl.env, queue.queueUrl);
        queue.grantSendMessages(fn.role);
        break;
      }
      case 'eventbridge':
        fn.function.addEnvironment(S.handoffEventBusName.env, target.eventBus.eventBusName);
        target.eventBus.grantPutEventsTo(fn.role);
        break;
      case 'lambda':
        fn.function.addEnvironment(S.handoffFunction.env, target.function.functionName);
        // The unqualified ARN only: `grantInvoke` would add `<arn>:*`, every version and alias too.
        fn.role.addToPrincipalPolicy(
          new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [target.function.functionArn] }),
        );
        break;
      case 'none':
        break;
    }
  }
}
