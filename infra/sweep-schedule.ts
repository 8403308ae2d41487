import { Duration, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/**
 * How often the sweep runs: with each sweep done within the next tick, an expired pause is closed within
 * `LIMITS.sweepBoundSeconds` (two minutes) of `expiresAt` (§10); a workflow that waits on a pause waits
 * `LIMITS.expiryGraceSeconds` past it, so that the sweep, not the workflow's own timeout, closes it.
 */
export const SWEEP_EVERY = Duration.minutes(1);

/** Props of {@link SweepSchedule}. */
export interface SweepScheduleProps {
  /** The sweep function; its timeout should not pass `SWEEP_EVERY`, so one sweep ends before the next begins. */
  readonly handler: IFunction;
}

/**
 * The sweep's clock (§10): an EventBridge rule on the default bus with `rate(1 minute)`, invoking the sweep function
 * asynchronously. A rule rather than an EventBridge Scheduler schedule: it reaches the function through the function's
 * resource policy (scoped to the rule's ARN), so there is no role for a scheduler to assume; scheduled rules cost
 * nothing, where Scheduler bills each invocation past its free tier; and it is the one kind of schedule cdk-nag's
 * packs already know. A tick carries no data, so a tick that fails is not retried or kept: the next one, a minute
 * later, does the same work, and the sweep is safe to run twice at once.
 */
export class SweepSchedule extends Construct {
  /** The rule. */
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: SweepScheduleProps) {
    super(scope, id);
    this.rule = new Rule(this, 'EveryMinute', {
      description: 'Runs the Handback sweep: due reminders, expiries, and onExpiry "reject" closings.',
      schedule: Schedule.rate(SWEEP_EVERY),
    });
    // A tick older than the next one is worth nothing: no retry past a minute, no dead-letter queue.
    this.rule.addTarget(new LambdaFunction(props.handler, { retryAttempts: 2, maxEventAge: SWEEP_EVERY }));
    props.handler.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: SWEEP_EVERY });
    Validations.of(this.rule).acknowledge({
      id: 'Serverless-EventBusDLQ',
      reason:
        'A scheduled tick carries no data: one that cannot be delivered is made up by the next, a minute later. The SweepTicksFailed alarm tells a person when ticks fail, and the SweepHeartbeat alarm (sweep invocations below one in five minutes, missing data breaching) when they stop arriving at all, the rule disabled or deleted included.',
    });
    const nothingToKeep =
      'The sweep is invoked by a scheduled tick that carries no data: a failed sweep has nothing to keep, the next tick a minute later redoes its work, and its errors raise an alarm.';
    Validations.of(props.handler).acknowledge(
      { id: 'Serverless-LambdaDLQ', reason: nothingToKeep },
      { id: 'Serverless-LambdaAsyncFailureDestination', reason: nothingToKeep },
    );
  }
}
