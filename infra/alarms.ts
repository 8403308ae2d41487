import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

/** Props of {@link HandbackAlarms}. */
export interface HandbackAlarmsProps {
  /** Functions whose errors and throttles raise an alarm, by a short name. */
  readonly functions: Record<string, IFunction>;
  /** Dead-letter queues whose depth raises an alarm, by a short name. */
  readonly deadLetterQueues: Record<string, IQueue>;
  /** The HTTP API whose 5xx responses raise an alarm. */
  readonly api: IHttpApi;
  /** Workflows whose failed executions raise an alarm, by a short name. */
  readonly stateMachines: Record<string, IStateMachine>;
  /**
   * Any other metric whose first count in five minutes needs a person, by a short name, with what it means.
   * @default - none
   */
  readonly counts?: Record<string, { readonly metric: IMetric; readonly description: string }>;
  /**
   * Metrics that must keep arriving, by a short name: an alarm when one counts less than one in five minutes, or stops
   * (missing data breaches), as a schedule that stopped emits no data at all.
   * @default - none
   */
  readonly heartbeats?: Record<string, { readonly metric: IMetric; readonly description: string }>;
  /**
   * Metrics that must stay below a bound, by a short name: an alarm when one reaches `threshold` (in the metric's
   * unit) in five minutes; no data is fine (nothing waits).
   * @default - none
   */
  readonly bounds?: Record<
    string,
    { readonly metric: IMetric; readonly description: string; readonly threshold: number }
  >;
  /**
   * Where alarms notify.
   * @default - no action: the alarms show in the CloudWatch console only
   */
  readonly topic?: ITopic;
}

/**
 * One alarm per thing that needs a person: anything in a dead-letter queue, any function error or throttle, any API
 * 5xx, any failed workflow execution, and the counts given (lifecycle events not delivered, sweep ticks not
 * delivered, table throttles): each "at least one in five minutes", as Handback's normal is zero; the heartbeats given
 * (the sweep running), "fewer than one in five minutes, or no data"; and the bounds given (how late the stream is, how
 * long a pointer has waited).
 */
export class HandbackAlarms extends Construct {
  /** Every alarm, by id. */
  readonly alarms: Record<string, Alarm> = {};
  private readonly topic: ITopic | undefined;

  constructor(scope: Construct, id: string, props: HandbackAlarmsProps) {
    super(scope, id);
    this.topic = props.topic;
    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      this.add(
        `${name}Depth`,
        `${name}: messages are waiting in a dead-letter queue; read their reason and redrive or discard them.`,
        queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      );
    }
    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(`${name}Errors`, `${name}: the function failed.`, fn.metricErrors({ period: Duration.minutes(5) }));
      this.add(
        `${name}Throttles`,
        `${name}: the function was throttled.`,
        fn.metricThrottles({ period: Duration.minutes(5) }),
      );
    }
    this.add(
      'Api5xx',
      'The HTTP API answered with a 5xx: an unexpected error in the API handler or an integration failure.',
      props.api.metricServerError({ period: Duration.minutes(5) }),
    );
    for (const [name, stateMachine] of Object.entries(props.stateMachines)) {
      this.add(
        `${name}Failed`,
        `${name}: an execution failed.`,
        stateMachine.metricFailed({ period: Duration.minutes(5) }),
      );
    }
    for (const [name, { metric, description }] of Object.entries(props.counts ?? {})) {
      this.add(name, description, metric);
    }
    for (const [name, { metric, description }] of Object.entries(props.heartbeats ?? {})) {
      this.add(name, description, metric, {
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.BREACHING,
      });
    }
    for (const [name, { metric, description, threshold }] of Object.entries(props.bounds ?? {})) {
      this.add(name, description, metric, { threshold });
    }
  }

  private add(
    id: string,
    description: string,
    metric: IMetric,
    options: { threshold?: number; comparisonOperator?: ComparisonOperator; treatMissingData?: TreatMissingData } = {},
  ): void {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold: options.threshold ?? 1,
      evaluationPeriods: 1,
      comparisonOperator: options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
    });
    if (this.topic) {
      alarm.addAlarmAction(new SnsAction(this.topic));
    }
    this.alarms[id] = alarm;
  }
}
