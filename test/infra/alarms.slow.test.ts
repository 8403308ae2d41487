import { readFileSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { repoPath } from '../../infra/paths.ts';
import { ConfigurationError, DEFAULT_RETENTION_DAYS } from '../../infra/settings.ts';
import { SweepSchedule } from '../../infra/sweep-schedule.ts';
import { defaultSynth, synthesize } from './synth.ts';

/** The alarms that can fire when something needs a person, the count docs/deploy.md gives, and the audit's retention. */

const { template } = defaultSynth();

/** The one alarm whose logical id starts with `Alarms<name>`. */
function alarm(template: Template, name: string): Record<string, unknown> {
  const found = Object.entries(template.findResources('AWS::CloudWatch::Alarm')).filter(([id]) =>
    id.startsWith(`Alarms${name}`),
  );
  expect(found).toHaveLength(1);
  return found[0]?.[1].Properties as Record<string, unknown>;
}

describe('the sweep heartbeat', () => {
  it('fires when the sweep is invoked less than once in five minutes', () => {
    expect(alarm(template, 'SweepHeartbeat')).toMatchObject({
      MetricName: 'Invocations',
      Namespace: 'AWS/Lambda',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
    });
  });

  it('treats missing data as breaching: a stopped schedule emits none', () => {
    expect(alarm(template, 'SweepHeartbeat').TreatMissingData).toBe('breaching');
  });

  it('watches the sweep function', () => {
    expect(alarm(template, 'SweepHeartbeat').Dimensions).toEqual([
      { Name: 'FunctionName', Value: { Ref: expect.stringMatching(/^SweeperFunction/) } },
    ]);
  });
});

describe('the sweep schedule’s cdk-nag reason', () => {
  /** What the schedule's rule says to cdk-nag's Serverless-EventBusDLQ, as the construct's metadata carries it. */
  const reason = () => {
    const stack = new Stack(new App(), 'Sweep');
    const handler = new LambdaFunction(stack, 'Sweeper', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => {};'),
    });
    const rule = new SweepSchedule(stack, 'Sweep', { handler }).rule;
    const acknowledged = rule.node.metadata.find((entry) => entry.type === 'aws:cdk:acknowledged-rules');
    return String((acknowledged?.data as Record<string, unknown> | undefined)?.['Annotation::Serverless-EventBusDLQ']);
  };

  it('names the alarm that fires when ticks stop arriving, an alarm the stack has', () => {
    expect(reason()).toContain('SweepHeartbeat alarm');
    expect(reason()).toContain('missing data breaching');
    alarm(template, 'SweepHeartbeat');
  });
});

describe('the lifecycle stream’s age', () => {
  it('fires when the stream function is five minutes behind (IteratorAge, its maximum)', () => {
    expect(alarm(template, 'LifecycleStreamAge')).toMatchObject({
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Threshold: 300_000,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: expect.stringMatching(/^LifecycleHandlerFunction/) } }],
    });
  });
});

describe('the table’s throttles', () => {
  it('fire on one throttled request of any operation the functions send', () => {
    const metrics = alarm(template, 'TableThrottles').Metrics as Array<{
      MetricStat?: { Metric: { MetricName: string; Dimensions: Array<{ Name: string; Value: unknown }> } };
    }>;
    const operations = metrics
      .flatMap((metric) => metric.MetricStat?.Metric.Dimensions ?? [])
      .filter((dimension) => dimension.Name === 'Operation')
      .map((dimension) => dimension.Value)
      .sort();
    expect(operations).toEqual(['BatchGetItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem']);
    expect(
      metrics.every(
        (metric) => metric.MetricStat === undefined || metric.MetricStat.Metric.MetricName === 'ThrottledRequests',
      ),
    ).toBe(true);
  });
});

describe('the hand-off queue’s oldest pointer', () => {
  it('fires when a pointer has waited an hour', () => {
    expect(alarm(template, 'HandoffQueueAge')).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
      Threshold: 3600,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('watches a queue that keeps a pointer 14 days, as docs/deploy.md says, and says nothing here consumes it', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    const watched = (alarm(template, 'HandoffQueueAge').Dimensions as Array<{ Value: { 'Fn::GetAtt': string[] } }>)[0];
    const queue = queues[watched?.Value['Fn::GetAtt'][0] ?? '']?.Properties as Record<string, unknown>;
    expect(queue.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    expect(String(alarm(template, 'HandoffQueueAge').AlarmDescription)).toMatch(/nothing in this stack consumes it/);
    const docs = readFileSync(repoPath('docs/deploy.md'), 'utf8').replace(/\s+/g, ' ');
    expect(docs).toContain('Nothing in this stack consumes that queue');
    expect(docs).toContain("a pointer it has not read in 14 days (the queue's retention) is deleted");
  });

  it('is not made without a hand-off queue', () => {
    const none = synthesize({ handoff: { type: 'none' } }, { bundle: false }).template;
    expect(
      Object.keys(none.findResources('AWS::CloudWatch::Alarm')).filter((id) => id.startsWith('AlarmsHandoff')),
    ).toEqual([]);
  });
});

describe('docs/deploy.md’s alarm count', () => {
  const count = (template: Template) => Object.keys(template.findResources('AWS::CloudWatch::Alarm')).length;
  const stated = (() => {
    const text = readFileSync(repoPath('docs/deploy.md'), 'utf8').replace(/\s+/g, ' ');
    const match =
      /(\d+) CloudWatch alarms with the user pool \((\d+) with your own issuer; (\d+) more with `resumeRequestsVia=function`, (\d+) more with `notifyEmail`, (\d+) more with Slack and (\d+) with email, (\d+) fewer with a hand-off other than `sqs`\)/.exec(
        text,
      );
    expect(match).not.toBeNull();
    const [pool, issuer, via, notify, slack, email, handoff] = (match ?? []).slice(1).map(Number);
    return { pool, issuer, via, notify, slack, email, handoff };
  })();
  const issuer = count(template);

  it('is the count with your own issuer', () => {
    expect(stated.issuer).toBe(issuer);
  });

  it('is the count with the user pool', () => {
    expect(stated.pool).toBe(
      count(synthesize({ jwtIssuer: undefined, jwtAudience: undefined }, { bundle: false }).template),
    );
  });

  it.each([
    ['via', { resumeRequestsVia: 'function' as const }, {}, 1],
    ['notify', { notifyEmail: 'team@example.org' }, {}, 1],
    ['slack', {}, { 'handback:slackSecretName': 'handback/slack' }, 1],
    ['email', {}, { 'handback:emailFrom': 'approvals@example.org' }, 1],
    ['handoff', { handoff: { type: 'none' as const } }, {}, -1],
  ] as const)('gives what %s adds', (key, props, context, sign) => {
    const changed = count(synthesize(props, { bundle: false, context }).template);
    expect(sign * (changed - issuer)).toBe(stated[key]);
  });
});

describe('the audit trail’s retention', () => {
  const variables = (template: Template, prefix: string) => {
    const found = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) =>
      id.startsWith(prefix),
    );
    expect(found).toHaveLength(1);
    return found[0]?.[1].Properties.Environment.Variables as Record<string, string>;
  };

  it.each(['ApiHandlerFunction', 'ExampleAgentFunction'])(
    'keeps a pause a year after it expires by default, in %s',
    (prefix) => {
      expect(variables(template, prefix).HANDBACK_RETENTION_DAYS).toBe(String(DEFAULT_RETENTION_DAYS));
      expect(DEFAULT_RETENTION_DAYS).toBeGreaterThanOrEqual(365);
    },
  );

  it('keeps it as long as handback:retentionDays says', () => {
    const longer = synthesize({}, { bundle: false, context: { 'handback:retentionDays': '730' } }).template;
    expect(variables(longer, 'ApiHandlerFunction').HANDBACK_RETENTION_DAYS).toBe('730');
  });

  it('refuses a retention that is not a whole number of days', () => {
    expect(() => synthesize({}, { bundle: false, context: { 'handback:retentionDays': 'a year' } })).toThrow(
      ConfigurationError,
    );
  });
});
