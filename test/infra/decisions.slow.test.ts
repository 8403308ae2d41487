import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../infra/settings.ts';
import { defaultSynth, synthesize } from './synth.ts';

/** How decisions are going (§21), as the stack shows them: the dashboard's graphs and the oldest waiting ask's alarm. */

const { template, violations } = defaultSynth();

/** CloudWatch's dynamic label of a SEARCH's lines: the value of their dimension `by`. */
const dynamicLabel = (by: string) => `\${PROP('Dim.${by}')}`;

/** The one dashboard's body, parsed: its `Fn::Join` with every token (the region) left as a placeholder. */
function dashboardBody(): { widgets: Array<{ type: string; properties: Record<string, unknown> }> } {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  const body = dashboards[0]?.Properties.DashboardBody as string | { 'Fn::Join': [string, unknown[]] };
  const text =
    typeof body === 'string'
      ? body
      : body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'TOKEN')).join('');
  return JSON.parse(text);
}

/** Each graph's title and the expressions or metrics it draws. */
function graphs(): Array<{ title: string; lines: unknown[]; annotations: unknown }> {
  return dashboardBody()
    .widgets.filter((widget) => widget.type === 'metric')
    .map(({ properties }) => ({
      title: String(properties.title),
      lines: properties.metrics as unknown[],
      annotations: properties.annotations,
    }));
}

/** The one graph titled `title`. */
function graph(title: string) {
  const found = graphs().filter((g) => g.title === title);
  expect(found).toHaveLength(1);
  return found[0] as ReturnType<typeof graphs>[number];
}

/** The one alarm whose logical id starts with `Alarms<name>`. */
function alarm(name: string, from = template): Record<string, unknown> {
  const found = Object.entries(from.findResources('AWS::CloudWatch::Alarm')).filter(([id]) =>
    id.startsWith(`Alarms${name}`),
  );
  expect(found).toHaveLength(1);
  return found[0]?.[1].Properties as Record<string, unknown>;
}

describe('the decisions dashboard', () => {
  it.each([
    ['median', 'p50'],
    ['90th percentile', 'p90'],
  ])('graphs the %s time to decision per tool: a SEARCH of the series by tool alone', (name, statistic) => {
    expect(graph(`Time to decision per tool: ${name}`).lines).toEqual([
      [
        {
          expression: `SEARCH('{Handback,tool} MetricName="TimeToDecision"', '${statistic}', 300)`,
          label: dynamicLabel('tool'),
        },
      ],
    ]);
  });

  it('graphs the outcomes, stacked: the asks settled, by outcome', () => {
    expect(graph('Outcomes (asks settled)').lines).toEqual([
      [
        {
          expression: `SEARCH('{Handback,outcome} MetricName="Decisions"', 'Sum', 300)`,
          label: dynamicLabel('outcome'),
        },
      ],
    ]);
    expect(
      dashboardBody().widgets.find((w) => w.properties.title === 'Outcomes (asks settled)')?.properties,
    ).toMatchObject({ stacked: true });
  });

  it('graphs the asks waiting, in all and per tool, and the oldest with the alarm’s threshold', () => {
    expect(graph('Asks waiting').lines).toEqual([
      ['Handback', 'PendingAsks', { label: 'all tools', stat: 'Maximum' }],
      [
        {
          expression: `SEARCH('{Handback,tool} MetricName="PendingAsks"', 'Maximum', 300)`,
          label: dynamicLabel('tool'),
        },
      ],
    ]);
    const oldest = graph('Oldest waiting ask (seconds)');
    expect(oldest.lines).toEqual([['Handback', 'OldestPendingSeconds', { label: 'all tools', stat: 'Maximum' }]]);
    expect(oldest.annotations).toEqual({
      horizontal: [{ value: 86_400, label: 'OldestPendingAsk alarm', yAxis: 'left' }],
    });
  });

  it('passes cdk-nag’s packs', () => {
    expect(violations).toEqual([]);
  });
});

describe('the oldest waiting ask’s alarm', () => {
  it('fires when the sweep’s oldest waiting ask has waited a day (its maximum in five minutes, no dimension)', () => {
    const properties = alarm('OldestPendingAsk');
    expect(properties).toMatchObject({
      Namespace: 'Handback',
      MetricName: 'OldestPendingSeconds',
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 86_400,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(properties.Dimensions).toBeUndefined();
  });

  it('waits as long as handback:pendingAlarmMinutes says', () => {
    const hour = synthesize({}, { bundle: false, context: { 'handback:pendingAlarmMinutes': '60' } }).template;
    expect(alarm('OldestPendingAsk', hour).Threshold).toBe(3600);
  });

  it('refuses a wait that is not a whole number of minutes, naming the key', () => {
    expect(() => synthesize({}, { bundle: false, context: { 'handback:pendingAlarmMinutes': 'a day' } })).toThrow(
      ConfigurationError,
    );
    expect(() => synthesize({}, { bundle: false, context: { 'handback:pendingAlarmMinutes': 'a day' } })).toThrow(
      /handback:pendingAlarmMinutes/,
    );
  });
});
