import { Duration } from 'aws-cdk-lib';
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  Metric,
  SearchExpression,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { Metric as HandbackMetric } from '../functions/resume/telemetry.ts';
import * as S from '../functions/settings.ts';

/**
 * How decisions are going (§21), on one CloudWatch dashboard: time to decision per tool (p50 and p90 of the asks
 * people decided), the outcomes, the asks waiting and how long the oldest has waited. It reads the EMF metrics of
 * `functions/resume/decision-metrics.ts`; a tool is a dimension value no stack can know, so the per-tool graphs are
 * SEARCH expressions over the series each metric's dimension sets make.
 */

/** Props of {@link DecisionsDashboard}. */
export interface DecisionsDashboardProps {
  /** How long an ask may wait for people before its alarm fires: drawn on the oldest-waiting graph. */
  readonly pendingAlarm: Duration;
}

/** Every graph's period: the sweep counts what waits every five minutes. */
const PERIOD = Duration.minutes(5);
const NAMESPACE = S.metricsNamespace.default;

/**
 * A SEARCH of `metric`'s series with exactly one dimension, `by`, at `statistic` over the period: one line per value
 * of it, labelled with that value (a dynamic label).
 */
function search(metric: string, by: string, statistic: string): IMetric {
  return new SearchExpression({
    expression: `SEARCH('{${NAMESPACE},${by}} MetricName="${metric}"', '${statistic}', ${PERIOD.toSeconds()})`,
    label: `\${PROP('Dim.${by}')}`,
    period: PERIOD,
  });
}

/** The dashboard, and the metrics its alarm watches. */
export class DecisionsDashboard extends Construct {
  /** The dashboard. */
  readonly dashboard: Dashboard;
  /** Seconds the oldest waiting ask has waited, its maximum over five minutes: what the `OldestPendingAsk` alarm reads. */
  readonly oldestPending: Metric;
  /** How long an ask may wait before that alarm fires. */
  readonly pendingAlarm: Duration;

  constructor(scope: Construct, id: string, props: DecisionsDashboardProps) {
    super(scope, id);
    this.pendingAlarm = props.pendingAlarm;
    const gauge = (metricName: string) =>
      new Metric({ namespace: NAMESPACE, metricName, statistic: Stats.MAXIMUM, period: PERIOD });
    this.oldestPending = gauge(HandbackMetric.OldestPendingSeconds);
    const perTool = (statistic: string, title: string) =>
      new GraphWidget({
        title,
        left: [search(HandbackMetric.TimeToDecision, 'tool', statistic)],
        leftYAxis: { label: 'milliseconds', showUnits: false, min: 0 },
        width: 12,
      });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.days(7),
      widgets: [
        [
          new TextWidget({
            markdown:
              '## How decisions are going\nTime from a pause to the decision of the asks people decided, per tool; what settled every ask; the asks waiting now and the oldest of them. The exact counts of any window: `GET /stats` and the inbox page "How decisions are going".',
            width: 24,
            height: 2,
          }),
        ],
        [
          perTool('p50', 'Time to decision per tool: median'),
          perTool('p90', 'Time to decision per tool: 90th percentile'),
        ],
        [
          new GraphWidget({
            title: 'Outcomes (asks settled)',
            left: [search(HandbackMetric.Decisions, 'outcome', 'Sum')],
            stacked: true,
            width: 8,
          }),
          new GraphWidget({
            title: 'Asks waiting',
            left: [
              gauge(HandbackMetric.PendingAsks).with({ label: 'all tools' }),
              search(HandbackMetric.PendingAsks, 'tool', 'Maximum'),
            ],
            width: 8,
          }),
          new GraphWidget({
            title: 'Oldest waiting ask (seconds)',
            left: [this.oldestPending.with({ label: 'all tools' })],
            leftAnnotations: [{ value: props.pendingAlarm.toSeconds(), label: 'OldestPendingAsk alarm' }],
            width: 8,
          }),
        ],
      ],
    });
  }
}
