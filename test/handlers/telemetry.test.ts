import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Context, DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lambdaRuntimeOf } from '../../functions/handlers/config.ts';
import {
  EmfMetrics,
  FullBatchFailureError,
  formatError,
  JsonLogger,
  type LineWriter,
  MAX_METRICS_PER_DOCUMENT,
  MAX_VALUES_PER_METRIC,
  sqsBatchResponse,
  streamBatchResponse,
  withTelemetry,
} from '../../functions/handlers/telemetry.ts';
import { MetricUnit } from '../../functions/resume/telemetry.ts';

const NOW = '2026-12-02T03:04:05.678Z';
const TRACE = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';

/** What a logger or metrics instance wrote, each line with its stream. */
function capture() {
  const lines: Array<{ stream: 'stdout' | 'stderr'; line: string }> = [];
  const write: LineWriter = (stream, line) => lines.push({ stream, line });
  return { write, lines, texts: () => lines.map((l) => l.line) };
}

function context(requestId = 'c0ffee-1'): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'handback-sqs',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:handback-sqs',
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/handback-sqs',
    logStreamName: '2026/12/02/[$LATEST]abc',
    getRemainingTimeInMillis: () => 30_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(NOW));
});
afterEach(() => {
  vi.useRealTimers();
});

describe('JsonLogger', () => {
  it('writes a line before any invocation with the level, message, timestamp, service and the attributes', () => {
    const out = capture();
    const logger = new JsonLogger({ serviceName: 'handback', write: out.write });
    logger.info('Paused', { runId: 'run-1', bytes: 1234 });
    expect(out.lines).toEqual([
      {
        stream: 'stdout',
        line: `{"level":"INFO","message":"Paused","timestamp":"${NOW}","service":"handback","runId":"run-1","bytes":1234}`,
      },
    ]);
  });

  it('puts the Lambda context and the X-Ray trace id on every line, cold_start true on the first invocation only', () => {
    const out = capture();
    const env = { AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand', _X_AMZN_TRACE_ID: TRACE };
    const logger = new JsonLogger({ serviceName: 'handback', runtime: lambdaRuntimeOf(env), write: out.write });
    logger.addContext(context('req-1'));
    logger.info('Closed', { runId: 'run-1' });
    logger.addContext(context('req-2'));
    logger.warn('Refused', { runId: 'run-1' });
    const keys =
      '"function_arn":"arn:aws:lambda:eu-west-1:123456789012:function:handback-sqs","function_memory_size":"512","function_name":"handback-sqs"';
    expect(out.lines).toEqual([
      {
        stream: 'stdout',
        line: `{"level":"INFO","message":"Closed","timestamp":"${NOW}","service":"handback","cold_start":true,${keys},"function_request_id":"req-1","xray_trace_id":"1-5759e988-bd862e3fe1be46a994272793","runId":"run-1"}`,
      },
      {
        stream: 'stderr',
        line: `{"level":"WARN","message":"Refused","timestamp":"${NOW}","service":"handback","cold_start":false,${keys},"function_request_id":"req-2","xray_trace_id":"1-5759e988-bd862e3fe1be46a994272793","runId":"run-1"}`,
      },
    ]);
  });

  it('reads the trace id of each invocation as Lambda sets it, and a bare id as the root', () => {
    const out = capture();
    const env: NodeJS.ProcessEnv = {};
    const logger = new JsonLogger({ serviceName: 'handback', runtime: lambdaRuntimeOf(env), write: out.write });
    logger.info('no trace');
    env._X_AMZN_TRACE_ID = 'Root=1-aaa;Sampled=0';
    logger.info('traced');
    env._X_AMZN_TRACE_ID = '1-bbb';
    logger.info('bare');
    expect(out.texts().map((line) => JSON.parse(line).xray_trace_id)).toEqual([undefined, '1-aaa', '1-bbb']);
  });

  it('is never on a cold start outside an on-demand container (provisioned concurrency, SnapStart, locally)', () => {
    for (const type of ['provisioned-concurrency', 'snap-start', undefined]) {
      const out = capture();
      const logger = new JsonLogger({
        serviceName: 'handback',
        runtime: lambdaRuntimeOf({ AWS_LAMBDA_INITIALIZATION_TYPE: type }),
        write: out.write,
      });
      logger.addContext(context());
      logger.info('first');
      expect(JSON.parse(out.texts()[0] ?? '{}').cold_start).toBe(false);
    }
  });

  it.each([
    ['INFO by default', {}, undefined, ['INFO', 'WARN', 'ERROR']],
    ['POWERTOOLS_LOG_LEVEL', { POWERTOOLS_LOG_LEVEL: 'WARN' }, undefined, ['WARN', 'ERROR']],
    ['the level in code over POWERTOOLS_LOG_LEVEL', { POWERTOOLS_LOG_LEVEL: 'DEBUG' }, 'ERROR', ['ERROR']],
    ['SILENT', {}, 'SILENT', []],
    [
      "Lambda's log-level control over the level in code",
      { AWS_LAMBDA_LOG_LEVEL: 'WARN', POWERTOOLS_LOG_LEVEL: 'DEBUG' },
      'DEBUG',
      ['WARN', 'ERROR'],
    ],
    ["Lambda's FATAL as CRITICAL, above every level the logger writes", { AWS_LAMBDA_LOG_LEVEL: 'FATAL' }, 'DEBUG', []],
    ['an unknown level as INFO', { POWERTOOLS_LOG_LEVEL: 'LOUD' }, undefined, ['INFO', 'WARN', 'ERROR']],
  ])('filters by level: %s', (_name, env, logLevel, levels) => {
    const out = capture();
    const logger = new JsonLogger({
      serviceName: 'handback',
      runtime: lambdaRuntimeOf(env),
      write: out.write,
      ...(logLevel === undefined ? {} : { logLevel }),
    });
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(out.texts().map((line) => JSON.parse(line).level)).toEqual(levels);
    expect(out.lines.map((l) => l.stream)).toEqual(
      levels.map((level) => (level === 'DEBUG' || level === 'INFO' ? 'stdout' : 'stderr')),
    );
  });

  it("leaves out top-level keys that are undefined, null or '', keeps nested ones JSON keeps, and writes bigints as strings", () => {
    const out = capture();
    const logger = new JsonLogger({ serviceName: 'handback', write: out.write });
    logger.info('shapes', {
      a: undefined,
      b: null,
      c: '',
      d: 0,
      e: false,
      f: { g: undefined, h: '', i: null },
      j: 10n,
    });
    expect(out.texts()).toEqual([
      `{"level":"INFO","message":"shapes","timestamp":"${NOW}","service":"handback","d":0,"e":false,"f":{"h":"","i":null},"j":"10"}`,
    ]);
  });

  it('lets an attribute replace a context key but never erases one with undefined', () => {
    const out = capture();
    const logger = new JsonLogger({ serviceName: 'handback', write: out.write });
    logger.addContext(context('req-9'));
    logger.info('a', { function_request_id: undefined });
    logger.info('b', { function_request_id: 'other' });
    expect(out.texts().map((line) => JSON.parse(line).function_request_id)).toEqual(['req-9', 'other']);
  });

  it("drops an attribute named as one of the line's own keys, with a warning first", () => {
    const out = capture();
    const logger = new JsonLogger({ serviceName: 'handback', write: out.write });
    logger.info('mine', { service: 'other', level: 'x', kept: 1 });
    expect(out.texts()).toEqual([
      `{"level":"WARN","message":"The key \\"service\\" is a reserved key and will be dropped.","timestamp":"${NOW}","service":"handback"}`,
      `{"level":"WARN","message":"The key \\"level\\" is a reserved key and will be dropped.","timestamp":"${NOW}","service":"handback"}`,
      `{"level":"INFO","message":"mine","timestamp":"${NOW}","service":"handback","kept":1}`,
    ]);
  });

  it('formats an error as Powertools does: name, location, message, stack, its cause in turn, then its own fields', () => {
    const out = capture();
    const logger = new JsonLogger({ serviceName: 'handback', write: out.write });
    const cause = new Error('socket hang up');
    cause.stack = 'Error: socket hang up\n    at connect (file:///var/task/index.mjs:3:14)';
    const error = Object.assign(new TypeError('Hand-off failed', { cause }), {
      code: 'handoff_failed',
      retryable: true,
    });
    error.stack =
      'TypeError: Hand-off failed\n    at deliver (file:///var/task/chunk.mjs:12:7)\n    at run (file:///var/task/index.mjs:40:2)';
    logger.error('Hand-off failed', { runId: 'run-1', error });
    expect(out.lines).toEqual([
      {
        stream: 'stderr',
        line: `{"level":"ERROR","message":"Hand-off failed","timestamp":"${NOW}","service":"handback","runId":"run-1","error":{"name":"TypeError","location":"file:///var/task/chunk.mjs:12","message":"Hand-off failed","stack":${JSON.stringify(error.stack)},"cause":{"name":"Error","location":"file:///var/task/index.mjs:3","message":"socket hang up","stack":${JSON.stringify(cause.stack)}},"code":"handoff_failed","retryable":true}}`,
      },
    ]);
  });

  it("formats errors wherever they are in the attributes, a cause that is not an error as it is, a stack's missing location as ''", () => {
    const error = new Error('outer', { cause: { code: 'ECONNRESET' } });
    error.stack = undefined;
    expect(formatError(error)).toEqual({
      name: 'Error',
      location: '',
      message: 'outer',
      stack: undefined,
      cause: { code: 'ECONNRESET' },
    });
    const out = capture();
    new JsonLogger({ serviceName: 'handback', write: out.write }).warn('nested', { failures: [{ error }] });
    expect(JSON.parse(out.texts()[0] ?? '{}').failures).toEqual([
      { error: { name: 'Error', location: '', message: 'outer', cause: { code: 'ECONNRESET' } } },
    ]);
  });

  it('leaves out a reference back to an ancestor and a cause that leads back to its error, instead of failing', () => {
    const out = capture();
    const logger = new JsonLogger({ serviceName: 'handback', write: out.write });
    const loop: Record<string, unknown> = { id: 'a' };
    loop.self = loop;
    const error = new Error('again');
    error.stack = undefined;
    error.cause = error;
    logger.info('loops', { loop, error });
    expect(JSON.parse(out.texts()[0] ?? '{}')).toMatchObject({
      loop: { id: 'a' },
      error: { name: 'Error', message: 'again', location: '' },
    });
    expect(JSON.parse(out.texts()[0] ?? '{}').loop).not.toHaveProperty('self');
  });
});

/**
 * The JSON schema AWS publishes for embedded metric format documents (Specification: Embedded metric format, in the
 * CloudWatch user guide), without its `$id`s, titles and examples.
 */
const NAME = { type: 'string', pattern: '^(.*)$', minLength: 1, maxLength: 255 };
const EMF_SCHEMA = {
  type: 'object',
  required: ['_aws'],
  properties: {
    _aws: {
      type: 'object',
      required: ['Timestamp', 'CloudWatchMetrics'],
      properties: {
        Timestamp: { type: 'integer' },
        CloudWatchMetrics: {
          type: 'array',
          items: {
            type: 'object',
            required: ['Namespace', 'Dimensions', 'Metrics'],
            properties: {
              Namespace: NAME,
              Dimensions: {
                type: 'array',
                minItems: 1,
                items: { type: 'array', minItems: 0, maxItems: 9, items: NAME },
              },
              Metrics: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['Name'],
                  properties: {
                    Name: NAME,
                    Unit: {
                      type: 'string',
                      pattern:
                        '^(Seconds|Microseconds|Milliseconds|Bytes|Kilobytes|Megabytes|Gigabytes|Terabytes|Bits|Kilobits|Megabits|Gigabits|Terabits|Percent|Count|Bytes\\/Second|Kilobytes\\/Second|Megabytes\\/Second|Gigabytes\\/Second|Terabytes\\/Second|Bits\\/Second|Kilobits\\/Second|Megabits\\/Second|Gigabits\\/Second|Terabits\\/Second|Count\\/Second|None)$',
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};
const validateEmf = new Ajv2020({ allErrors: true }).compile(EMF_SCHEMA);

/**
 * The rules of the specification's text the schema cannot state: at most 100 metric definitions, every metric's
 * target a number or an array of at most 100 numbers on the root, every dimension's target a string on the root.
 */
function emfViolations(document: unknown): string[] {
  if (!validateEmf(document)) return (validateEmf.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  const root = document as Record<string, unknown> & {
    _aws: { CloudWatchMetrics: Array<{ Dimensions: string[][]; Metrics: Array<{ Name: string }> }> };
  };
  const violations: string[] = [];
  for (const directive of root._aws.CloudWatchMetrics) {
    if (directive.Metrics.length > 100) violations.push(`${directive.Metrics.length} metric definitions`);
    for (const { Name } of directive.Metrics) {
      const target = root[Name];
      const numbers = Array.isArray(target) ? target : [target];
      if (numbers.some((n) => typeof n !== 'number') || numbers.length > 100) violations.push(`the target of ${Name}`);
    }
    for (const key of directive.Dimensions.flat()) {
      if (typeof root[key] !== 'string') violations.push(`the dimension ${key}`);
    }
  }
  return violations;
}

describe('the EMF check of these tests', () => {
  it('refuses documents CloudWatch would not extract metrics from', () => {
    const directive = {
      Namespace: 'Handback',
      Dimensions: [['service']],
      Metrics: [{ Name: 'Resumes', Unit: 'Count' }],
    };
    const valid = { _aws: { Timestamp: 1, CloudWatchMetrics: [directive] }, service: 'handback', Resumes: 1 };
    expect(emfViolations(valid)).toEqual([]);
    expect(emfViolations({ ...valid, _aws: { CloudWatchMetrics: [directive] } })).not.toEqual([]);
    expect(emfViolations({ ...valid, Resumes: '1' })).toEqual(['the target of Resumes']);
    expect(emfViolations({ ...valid, Resumes: [...Array(101).keys()] })).toEqual(['the target of Resumes']);
    expect(emfViolations({ ...valid, service: undefined })).toEqual(['the dimension service']);
    const unit = { ...directive, Metrics: [{ Name: 'Resumes', Unit: 'Requests' }] };
    expect(emfViolations({ ...valid, _aws: { Timestamp: 1, CloudWatchMetrics: [unit] } })).not.toEqual([]);
  });
});

describe('EmfMetrics', () => {
  const make = (env: NodeJS.ProcessEnv = {}) => {
    const out = capture();
    const metrics = new EmfMetrics({
      namespace: 'Handback',
      serviceName: 'handback',
      disabled: lambdaRuntimeOf(env).metricsDisabled(),
      write: out.write,
    });
    return { out, metrics };
  };

  it('writes what an invocation added as one EMF document on stdout: the values of a metric added twice as an array', () => {
    const { out, metrics } = make();
    metrics.addMetric('Resumes', MetricUnit.Count, 1);
    metrics.addMetric('ResumeLatency', MetricUnit.Milliseconds, 12.5);
    metrics.addMetric('Resumes', MetricUnit.Count, 1);
    metrics.addMetric('PauseBytes', MetricUnit.Bytes, 2048);
    metrics.publish();
    const timestamp = Date.parse(NOW);
    expect(out.lines).toEqual([
      {
        stream: 'stdout',
        line: `{"_aws":{"Timestamp":${timestamp},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[["service"]],"Metrics":[{"Name":"Resumes","Unit":"Count"},{"Name":"ResumeLatency","Unit":"Milliseconds"},{"Name":"PauseBytes","Unit":"Bytes"}]}]},"service":"handback","Resumes":[1,1],"ResumeLatency":12.5,"PauseBytes":2048}`,
      },
    ]);
    expect(emfViolations(JSON.parse(out.texts()[0] ?? '{}'))).toEqual([]);
  });

  it('writes nothing when nothing was added, and starts afresh after each document', () => {
    const { out, metrics } = make();
    metrics.publish();
    metrics.addMetric('rejected', MetricUnit.Count, 1);
    metrics.publish();
    metrics.publish();
    expect(out.texts().map((line) => JSON.parse(line).rejected)).toEqual([1]);
  });

  it('writes a document early rather than define more than 100 metrics in one', () => {
    const { out, metrics } = make();
    for (let i = 0; i <= MAX_METRICS_PER_DOCUMENT; i += 1) metrics.addMetric(`Metric${i}`, MetricUnit.Count, i);
    metrics.publish();
    const documents = out.texts().map((line) => JSON.parse(line));
    expect(documents.map((d) => d._aws.CloudWatchMetrics[0].Metrics.length)).toEqual([100, 1]);
    expect(documents[1]).toMatchObject({ Metric100: 100, service: 'handback' });
    expect(documents.flatMap(emfViolations)).toEqual([]);
  });

  it('writes a document once a metric holds 100 values, the most one may', () => {
    const { out, metrics } = make();
    for (let i = 0; i < MAX_VALUES_PER_METRIC + 1; i += 1) metrics.addMetric('PauseBytes', MetricUnit.Bytes, i);
    metrics.publish();
    const documents = out.texts().map((line) => JSON.parse(line));
    expect(documents.map((d) => d.PauseBytes)).toEqual([[...Array(100).keys()], 100]);
    expect(documents.flatMap(emfViolations)).toEqual([]);
  });

  it.each(['true', '1', 'yes', 'on', 'TRUE'])('writes nothing with POWERTOOLS_METRICS_DISABLED=%s', (value) => {
    const { out, metrics } = make({ POWERTOOLS_METRICS_DISABLED: value });
    metrics.addMetric('Resumes', MetricUnit.Count, 1);
    metrics.publish();
    expect(out.lines).toEqual([]);
  });

  it('writes with POWERTOOLS_METRICS_DISABLED=false', () => {
    const { out, metrics } = make({ POWERTOOLS_METRICS_DISABLED: 'false' });
    metrics.addMetric('Resumes', MetricUnit.Count, 1);
    metrics.publish();
    expect(out.lines).toHaveLength(1);
  });

  it('writes the metrics added with dimensions (§21) as one document per set of values, the values on the root', () => {
    const { out, metrics } = make();
    const approve = { values: { tool: 'deploy', outcome: 'approve', via: 'api' }, sets: [['tool', 'outcome', 'via']] };
    metrics.addMetric('TimeToDecision', MetricUnit.Milliseconds, 1500, approve);
    metrics.addMetric('Resumes', MetricUnit.Count, 1);
    metrics.addMetric('TimeToDecision', MetricUnit.Milliseconds, 2500, approve);
    metrics.addMetric('TimeToDecision', MetricUnit.Milliseconds, 700, {
      values: { tool: 'deploy', outcome: 'reject', via: 'slack' },
      sets: [['tool', 'outcome', 'via'], ['tool']],
    });
    metrics.addMetric('PendingAsks', MetricUnit.Count, 4, { values: {}, sets: [[]] });
    metrics.publish();
    const timestamp = Date.parse(NOW);
    expect(out.texts()).toEqual([
      `{"_aws":{"Timestamp":${timestamp},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[["tool","outcome","via"]],"Metrics":[{"Name":"TimeToDecision","Unit":"Milliseconds"}]}]},"tool":"deploy","outcome":"approve","via":"api","TimeToDecision":[1500,2500]}`,
      `{"_aws":{"Timestamp":${timestamp},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[["service"]],"Metrics":[{"Name":"Resumes","Unit":"Count"}]}]},"service":"handback","Resumes":1}`,
      `{"_aws":{"Timestamp":${timestamp},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[["tool","outcome","via"],["tool"]],"Metrics":[{"Name":"TimeToDecision","Unit":"Milliseconds"}]}]},"tool":"deploy","outcome":"reject","via":"slack","TimeToDecision":700}`,
      `{"_aws":{"Timestamp":${timestamp},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[[]],"Metrics":[{"Name":"PendingAsks","Unit":"Count"}]}]},"PendingAsks":4}`,
    ]);
    expect(out.texts().flatMap((line) => emfViolations(JSON.parse(line)))).toEqual([]);
  });

  it('refuses dimensions CloudWatch would void the document for: a blank or too long value, a set naming no value', () => {
    const { out, metrics } = make();
    const sets = [['tool']];
    expect(() => metrics.addMetric('Decisions', MetricUnit.Count, 1, { values: { tool: '' }, sets })).toThrow(
      /dimension tool of the metric Decisions/,
    );
    expect(() =>
      metrics.addMetric('Decisions', MetricUnit.Count, 1, { values: { tool: 'x'.repeat(1025) }, sets }),
    ).toThrow(RangeError);
    expect(() => metrics.addMetric('Decisions', MetricUnit.Count, 1, { values: { outcome: 'approve' }, sets })).toThrow(
      /names a dimension it has no value for/,
    );
    metrics.addMetric('Decisions', MetricUnit.Count, 1, { values: { tool: 'x'.repeat(1024) }, sets });
    metrics.publish();
    expect(out.texts().map((line) => JSON.parse(line).Decisions)).toEqual([1]);
  });

  it('refuses a value that is not a finite number, and another unit for a metric already added', () => {
    const { metrics } = make();
    expect(() => metrics.addMetric('ResumeLatency', MetricUnit.Milliseconds, Number.NaN)).toThrow(RangeError);
    metrics.addMetric('PauseBytes', MetricUnit.Bytes, 1);
    expect(() => metrics.addMetric('PauseBytes', MetricUnit.Count, 1)).toThrow(/already been added with unit "Bytes"/);
  });
});

describe('withTelemetry', () => {
  it('gives the lines of an invocation its context and writes its metrics once it returns', async () => {
    const out = capture();
    const logger = new JsonLogger({ serviceName: 'handback', write: out.write });
    const metrics = new EmfMetrics({ namespace: 'Handback', serviceName: 'handback', write: out.write });
    const handler = withTelemetry({ logger, metrics }, async (event: { n: number }) => {
      logger.info('Handled', { n: event.n });
      metrics.addMetric('Resumes', MetricUnit.Count, event.n);
      return event.n * 2;
    });
    expect(await handler({ n: 3 }, context('req-3'))).toBe(6);
    const [line, document] = out.texts().map((text) => JSON.parse(text));
    expect(line).toMatchObject({ message: 'Handled', function_request_id: 'req-3', n: 3 });
    expect(document).toMatchObject({ service: 'handback', Resumes: 3 });
    expect(out.lines).toHaveLength(2);
  });

  it('writes the metrics of an invocation that throws, and throws its error', async () => {
    const out = capture();
    const logger = new JsonLogger({ serviceName: 'handback', write: out.write });
    const metrics = new EmfMetrics({ namespace: 'Handback', serviceName: 'handback', write: out.write });
    const failure = new Error('ServiceUnavailable');
    const handler = withTelemetry({ logger, metrics }, async () => {
      metrics.addMetric('HandoffFailures', MetricUnit.Count, 1);
      throw failure;
    });
    await expect(handler({}, context())).rejects.toBe(failure);
    expect(out.texts().map((text) => JSON.parse(text).HandoffFailures)).toEqual([1]);
  });

  it('takes a logger alone', async () => {
    const out = capture();
    const logger = new JsonLogger({ serviceName: 'handback', write: out.write });
    const handler = withTelemetry({ logger }, async () => logger.info('page'));
    await handler({}, context('req-inbox'));
    expect(JSON.parse(out.texts()[0] ?? '{}').function_request_id).toBe('req-inbox');
  });
});

describe('the partial batch responses', () => {
  const sqsRecord = (messageId: string, body: string) => ({ messageId, body }) as SQSRecord;
  const streamRecord = (SequenceNumber: string | undefined) =>
    ({ dynamodb: SequenceNumber === undefined ? {} : { SequenceNumber } }) as DynamoDBRecord;

  it("reports SQS's failed messages by messageId, in the batch's order", async () => {
    const records = ['ok', 'fail', 'ok', 'fail'].map((body, i) => sqsRecord(`msg-${i}`, body));
    const response = await sqsBatchResponse({ Records: records }, async (record) => {
      if (record.body === 'fail') throw new Error(`failed ${record.messageId}`);
    });
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-1' }, { itemIdentifier: 'msg-3' }] });
  });

  it('answers an empty batch, and one where every record succeeds, with no failures', async () => {
    const handle = async () => {};
    expect(await sqsBatchResponse({ Records: [] }, handle)).toEqual({ batchItemFailures: [] });
    expect(await sqsBatchResponse({ Records: [sqsRecord('m', '')] }, handle)).toEqual({ batchItemFailures: [] });
  });

  it('throws FullBatchFailureError with every record’s error when all of them failed, so the whole batch is retried', async () => {
    const errors = [new Error('a'), new Error('b')];
    const records = [sqsRecord('m0', '0'), sqsRecord('m1', '1')];
    const failing = sqsBatchResponse({ Records: records }, async (record) => {
      throw errors[Number(record.body)];
    });
    await expect(failing).rejects.toBeInstanceOf(FullBatchFailureError);
    await expect(failing).rejects.toMatchObject({
      name: 'FullBatchFailureError',
      message: 'All records failed processing. See individual errors below.',
      recordErrors: errors,
    });
  });

  it('starts every record before any finishes: they run at once', async () => {
    const steps: string[] = [];
    const records = ['a', 'b', 'c'].map((id) => sqsRecord(id, ''));
    await sqsBatchResponse({ Records: records }, async (record) => {
      steps.push(`start ${record.messageId}`);
      await Promise.resolve();
      steps.push(`end ${record.messageId}`);
    });
    expect(steps).toEqual(['start a', 'start b', 'start c', 'end a', 'end b', 'end c']);
  });

  it('counts a record whose handler throws before its first await as failed, like any other', async () => {
    const records = [sqsRecord('m0', ''), sqsRecord('m1', 'x')];
    const response = await sqsBatchResponse({ Records: records }, ((record: SQSRecord) => {
      if (record.body === 'x') throw new Error('at once');
      return Promise.resolve();
    }) as (record: SQSRecord) => Promise<void>);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
  });

  it("reports a stream's failed records by sequence number; one without a sequence number cannot be reported", async () => {
    const records = [streamRecord('100'), streamRecord('101'), streamRecord(undefined), streamRecord('103')];
    const response = await streamBatchResponse({ Records: records }, async (record) => {
      if (record.dynamodb?.SequenceNumber !== '100') throw new Error('not delivered');
    });
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '101' }, { itemIdentifier: '103' }] });
  });

  it('refuses an event that is not a batch', async () => {
    await expect(sqsBatchResponse({} as { Records: SQSRecord[] }, async () => {})).rejects.toThrow(/no Records array/);
  });
});
