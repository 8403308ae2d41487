import { Console } from 'node:console';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { LogAttributes, Logger, MetricDimensions, Metrics, MetricUnit } from '../resume/telemetry.ts';

/**
 * The telemetry of the entry points, what Powertools' logger, metrics and batch utilities gave them and nothing more
 * (docs/choices.md weighs it): JSON log lines in Powertools' shape, CloudWatch EMF documents flushed once per
 * invocation, and the partial batch responses of SQS and DynamoDB Streams. Lines go to stdout (debug, info, EMF) and
 * stderr (warn, error) through a `Console` of their own, as Powertools writes them, so Lambda's JSON log format takes
 * them as they are.
 */

/** Where a line goes: `stdout` or `stderr`, without its newline. */
export type LineWriter = (stream: 'stdout' | 'stderr', line: string) => void;

let console_: Console | undefined;
const processWriter: LineWriter = (stream, line) => {
  // A Console of our own, not the global one Lambda's runtime patches with its own prefix and level.
  console_ ??= new Console({ stdout: process.stdout, stderr: process.stderr });
  if (stream === 'stdout') console_.log(line);
  else console_.error(line);
};

/** The levels Powertools and Lambda's log-level controls name, by threshold: a line prints at or above the level. */
const LEVELS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
/** A level's name. */
export type LogLevel = keyof typeof LEVELS;

function levelOf(name: string | undefined): number | undefined {
  const key = name?.trim().toUpperCase();
  return key !== undefined && Object.hasOwn(LEVELS, key) ? LEVELS[key as LogLevel] : undefined;
}

/**
 * What Lambda tells a logger, each read when asked (its reader of the environment, `functions/handlers/config.ts`,
 * gives them); outside Lambda, nothing.
 */
export interface LogRuntime {
  /** Lambda's application log-level control (`AWS_LAMBDA_LOG_LEVEL`), which wins over every other level. */
  logLevel?(): string | undefined;
  /** The level the deployment configures (`POWERTOOLS_LOG_LEVEL`), below the level given in code. */
  configuredLogLevel?(): string | undefined;
  /** How the container started (`AWS_LAMBDA_INITIALIZATION_TYPE`): only `on-demand` has cold starts. */
  initializationType?(): string | undefined;
  /** The current invocation's X-Ray trace header (`_X_AMZN_TRACE_ID`). */
  traceHeader?(): string | undefined;
}

/**
 * The threshold lines print at, as Powertools picks it: Lambda's advanced logging controls (its `FATAL` read as
 * `CRITICAL`) first, since Lambda drops lines below it anyway; then the level given in code; then the level the
 * deployment configures; else INFO.
 */
export function logThreshold(runtime: LogRuntime, configured?: string): number {
  const given = runtime.logLevel?.()?.trim();
  const lambda = given === 'FATAL' ? 'CRITICAL' : given;
  return levelOf(lambda) ?? levelOf(configured) ?? levelOf(runtime.configuredLogLevel?.()) ?? LEVELS.INFO;
}

/** Keys a line's own values hold; an attribute of that name is dropped, with a warning, as Powertools does. */
const RESERVED = new Set(['level', 'message', 'sampling_rate', 'service', 'timestamp']);

/** The X-Ray trace id (its `Root`) of the current invocation's trace header. */
function traceIdOf(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  if (!header.includes('=')) return header.trim();
  for (const field of header.trim().split(';')) {
    const [key, value] = field.split('=');
    if (key === 'Root') return value;
  }
  return undefined;
}

const LOCATION = /\(([^()]*?):(\d+?):(\d+?)\)\\?$/;

/** The first `file:line` of a stack, as Powertools names an error's `location`; '' without one. */
function locationOf(stack: string | undefined): string {
  for (const line of stack?.split('\n') ?? []) {
    const match = LOCATION.exec(line);
    if (match) return `${match[1]}:${Number(match[2])}`;
  }
  return '';
}

/** An error as Powertools logs it: name, location, message, stack, cause (an error in turn), then its own fields. */
export function formatError(error: Error, seen: Set<Error> = new Set()): Record<string, unknown> {
  seen.add(error);
  const { name, message, stack, cause } = error;
  const formatted: Record<string, unknown> = {
    name,
    location: locationOf(stack),
    message,
    stack,
    // A cause that leads back to an error already shown would never end.
    cause: cause instanceof Error ? (seen.has(cause) ? undefined : formatError(cause, seen)) : cause,
  };
  for (const key of Object.keys(error)) {
    if (key !== 'name' && key !== 'message' && key !== 'stack' && key !== 'cause') {
      formatted[key] = (error as unknown as Record<string, unknown>)[key];
    }
  }
  return formatted;
}

/** JSON.stringify's replacer of a line: errors formatted, bigints as strings, a reference back to an ancestor left out. */
function lineReplacer() {
  const ancestors: unknown[] = [];
  return function (this: unknown, _key: string, value: unknown): unknown {
    const replaced = value instanceof Error ? formatError(value) : value;
    if (typeof replaced === 'bigint') return replaced.toString();
    if (typeof replaced === 'object' && replaced !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(replaced)) return undefined;
      ancestors.push(replaced);
    }
    return replaced;
  };
}

/** The keys of the Lambda context every line of an invocation carries. */
interface ContextKeys {
  cold_start: boolean;
  function_arn: string;
  function_memory_size: string;
  function_name: string;
  function_request_id: string;
}

/** How a `JsonLogger` is made. */
export interface JsonLoggerOptions {
  /** The `service` of every line. */
  serviceName: string;
  /** A level's name (`LogLevel`), set in code; Lambda's log-level control wins over it. @default the runtime's, else INFO */
  logLevel?: string;
  /** What Lambda tells the logger: its level control, the initialization type, the trace header. @default none */
  runtime?: LogRuntime;
  /** Where lines go. @default stdout and stderr */
  write?: LineWriter;
}

/**
 * A logger of JSON lines in Powertools' shape: `level`, `message`, `timestamp`, `service`, the invocation's Lambda
 * context once `addContext` has it (`cold_start`, `function_arn`, `function_memory_size`, `function_name`,
 * `function_request_id`), `xray_trace_id` when the runtime has a trace header, then the attributes' keys; keys whose value
 * is undefined, null or '' are left out.
 */
export class JsonLogger implements Logger {
  readonly #service: string;
  readonly #threshold: number;
  readonly #runtime: LogRuntime;
  readonly #write: LineWriter;
  #context: ContextKeys | undefined;
  /** Only an on-demand container's first invocation is a cold start (not provisioned concurrency, not SnapStart). */
  #coldStart: boolean;

  constructor(options: JsonLoggerOptions) {
    this.#service = options.serviceName;
    this.#runtime = options.runtime ?? {};
    this.#threshold = logThreshold(this.#runtime, options.logLevel);
    this.#write = options.write ?? processWriter;
    this.#coldStart = this.#runtime.initializationType?.()?.trim() === 'on-demand';
  }

  /** Puts this invocation's context on every line from now on; the first invocation's lines say `cold_start: true`. */
  addContext(context: Context): void {
    this.#context = {
      cold_start: this.#coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: context.memoryLimitInMB,
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
    this.#coldStart = false;
  }

  debug(message: string, attributes?: LogAttributes): void {
    this.#line('DEBUG', message, attributes);
  }

  info(message: string, attributes?: LogAttributes): void {
    this.#line('INFO', message, attributes);
  }

  warn(message: string, attributes?: LogAttributes): void {
    this.#line('WARN', message, attributes);
  }

  error(message: string, attributes?: LogAttributes): void {
    this.#line('ERROR', message, attributes);
  }

  #line(level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR', message: string, attributes: LogAttributes = {}): void {
    if (LEVELS[level] < this.#threshold) return;
    const line: Record<string, unknown> = {
      level,
      message,
      timestamp: new Date().toISOString(),
      service: this.#service,
      ...this.#context,
      xray_trace_id: traceIdOf(this.#runtime.traceHeader?.()),
    };
    for (const [key, value] of Object.entries(attributes)) {
      if (RESERVED.has(key)) this.warn(`The key "${key}" is a reserved key and will be dropped.`);
      // An undefined attribute never hides a context key, as Powertools merges them.
      else if (value !== undefined || line[key] === undefined) line[key] = value;
    }
    for (const key of Object.keys(line)) {
      if (line[key] === undefined || line[key] === null || line[key] === '') delete line[key];
    }
    this.#write(level === 'DEBUG' || level === 'INFO' ? 'stdout' : 'stderr', JSON.stringify(line, lineReplacer()));
  }
}

/** The most metrics one EMF document may define (the EMF specification). */
export const MAX_METRICS_PER_DOCUMENT = 100;
/** The most values one metric may hold in one EMF document (the EMF specification). */
export const MAX_VALUES_PER_METRIC = 100;

/** How an `EmfMetrics` is made. */
export interface EmfMetricsOptions {
  /** The CloudWatch namespace of every metric. */
  namespace: string;
  /** The value of the one dimension, `service`, of the metrics added without dimensions of their own. */
  serviceName: string;
  /** Write nothing at all (`POWERTOOLS_METRICS_DISABLED`). @default false */
  disabled?: boolean;
  /** Where documents go. @default stdout */
  write?: LineWriter;
}

/** The metrics of one document: its dimensions (none: the service's), and each metric's unit and values. */
interface Stored {
  dimensions: MetricDimensions | undefined;
  metrics: Map<string, { unit: MetricUnit; values: number[] }>;
}

/**
 * Metrics in CloudWatch's embedded metric format: what is added during an invocation is kept and written by `publish`
 * on stdout, from which CloudWatch Logs extracts the metrics without an API call. The metrics added without dimensions
 * are one document, `{"_aws": {"Timestamp", "CloudWatchMetrics": [{"Namespace", "Dimensions": [["service"]],
 * "Metrics": [{"Name", "Unit"}]}]}, "service": …, "<Name>": value or [values]}`; those added with dimensions (§21) are
 * one document per set of dimension values and sets, the values at the top level in place of `service`. Nothing added,
 * nothing written. Documents are written early when one would pass the specification's 100 metrics or 100 values of
 * one metric. `disabled` writes nothing at all.
 */
export class EmfMetrics implements Metrics {
  readonly #namespace: string;
  readonly #service: string;
  readonly #disabled: boolean;
  readonly #write: LineWriter;
  #stored = new Map<string, Stored>();

  constructor(options: EmfMetricsOptions) {
    this.#namespace = options.namespace;
    this.#service = options.serviceName;
    this.#disabled = options.disabled === true;
    this.#write = options.write ?? processWriter;
  }

  /**
   * Adds `value` to the metric `name` (of `dimensions`, when given: each set names only dimensions it has a value for,
   * each value 1–1,024 characters); the same name keeps its first unit.
   */
  addMetric(name: string, unit: MetricUnit, value: number, dimensions?: MetricDimensions): void {
    // EMF takes only numbers; null (what JSON makes of NaN) would void the whole document.
    if (!Number.isFinite(value)) throw new RangeError(`${value} is not a valid number for the metric ${name}`);
    if (dimensions !== undefined) checkDimensions(name, dimensions);
    const key = dimensions === undefined ? '' : JSON.stringify([dimensions.values, dimensions.sets]);
    const metrics = this.#stored.get(key)?.metrics;
    const stored = metrics?.get(name);
    if (stored === undefined) {
      if ((metrics?.size ?? 0) >= MAX_METRICS_PER_DOCUMENT) this.publish();
      this.#group(key, dimensions).metrics.set(name, { unit, values: [value] });
      return;
    }
    if (stored.unit !== unit) {
      throw new Error(`Metric "${name}" has already been added with unit "${stored.unit}", not "${unit}".`);
    }
    stored.values.push(value);
    if (stored.values.length >= MAX_VALUES_PER_METRIC) this.publish();
  }

  /** Writes what was added, one EMF document per set of dimensions, if anything was, and starts afresh. */
  publish(): void {
    if (this.#stored.size === 0) return;
    const groups = [...this.#stored.values()];
    this.#stored = new Map();
    if (this.#disabled) return;
    for (const { dimensions, metrics } of groups) {
      const stored = [...metrics];
      const document: Record<string, unknown> = {
        _aws: {
          Timestamp: Date.now(),
          CloudWatchMetrics: [
            {
              Namespace: this.#namespace,
              Dimensions: dimensions === undefined ? [['service']] : dimensions.sets,
              Metrics: stored.map(([name, { unit }]) => ({ Name: name, Unit: unit })),
            },
          ],
        },
        ...(dimensions === undefined ? { service: this.#service } : dimensions.values),
      };
      for (const [name, { values }] of stored) document[name] = values.length === 1 ? values[0] : values;
      this.#write('stdout', JSON.stringify(document));
    }
  }

  /** The metrics stored under `key`, a new group when there are none yet. */
  #group(key: string, dimensions: MetricDimensions | undefined): Stored {
    let group = this.#stored.get(key);
    if (group === undefined) {
      group = { dimensions, metrics: new Map() };
      this.#stored.set(key, group);
    }
    return group;
  }
}

/** The most dimensions one set may name (the EMF specification). */
const MAX_DIMENSIONS_PER_SET = 30;
/** The most characters a dimension's value may hold (the EMF specification). */
const MAX_DIMENSION_VALUE_CHARS = 1024;

/** Throws for dimensions CloudWatch would refuse, voiding the whole document: checked as they are added. */
function checkDimensions(name: string, { values, sets }: MetricDimensions): void {
  for (const [dimension, value] of Object.entries(values)) {
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_DIMENSION_VALUE_CHARS) {
      throw new RangeError(`The dimension ${dimension} of the metric ${name} must be 1–1,024 characters.`);
    }
  }
  for (const set of sets) {
    if (set.length > MAX_DIMENSIONS_PER_SET || set.some((dimension) => !Object.hasOwn(values, dimension))) {
      throw new RangeError(`A dimension set of the metric ${name} names a dimension it has no value for.`);
    }
  }
}

/** The logger and the metrics of an entry point: the use cases' ports, and what each invocation does with them. */
export interface EntryTelemetry {
  logger: JsonLogger;
  metrics: EmfMetrics;
}

/**
 * `handler` with its invocation's Lambda context on every log line and its metrics written once it ends, returned or
 * thrown (what Powertools' `injectLambdaContext` and `logMetrics` middlewares did), and its spans sent (§21). Without
 * `metrics`, only the context.
 */
export function withTelemetry<E, R>(
  telemetry: { logger: JsonLogger; metrics?: EmfMetrics; traces?: { flush(): Promise<void> } },
  handler: (event: E, context: Context) => Promise<R>,
): (event: E, context: Context) => Promise<R> {
  return async (event, context) => {
    telemetry.logger.addContext(context);
    try {
      return await handler(event, context);
    } finally {
      telemetry.metrics?.publish();
      // §21: the invocation's spans are sent before Lambda freezes the container (a failed export is only logged).
      await telemetry.traces?.flush();
    }
  };
}

/** Thrown when every record of a batch failed: the invocation fails, and the whole batch is retried. */
export class FullBatchFailureError extends Error {
  /** Each record's error, in the batch's order. */
  readonly recordErrors: unknown[];

  constructor(recordErrors: unknown[]) {
    super('All records failed processing. See individual errors below.');
    this.name = 'FullBatchFailureError';
    this.recordErrors = recordErrors;
  }
}

/**
 * Runs `handle` on every record at once and reports the ones that threw, in the batch's order, by `idOf`. When every
 * record failed, throws `FullBatchFailureError`, as Powertools' `BatchProcessor` does. A record without an id (a
 * stream record without its sequence number) cannot be reported, and so counts as processed.
 */
async function partialBatch<R>(
  event: { Records: R[] },
  handle: (record: R) => Promise<void>,
  idOf: (record: R) => string | undefined,
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> {
  if (!Array.isArray(event?.Records)) throw new TypeError('The event is not a batch: it has no Records array.');
  const outcomes = await Promise.allSettled(event.Records.map(async (record) => handle(record)));
  const failed = event.Records.flatMap((record, i) => {
    const outcome = outcomes[i];
    return outcome?.status === 'rejected' ? [{ record, reason: outcome.reason as unknown }] : [];
  });
  if (failed.length > 0 && failed.length === event.Records.length) {
    throw new FullBatchFailureError(failed.map(({ reason }) => reason));
  }
  return {
    batchItemFailures: failed.flatMap(({ record }) => {
      const itemIdentifier = idOf(record);
      return itemIdentifier ? [{ itemIdentifier }] : [];
    }),
  };
}

/** SQS's partial batch response: the failed messages by `messageId`, which SQS makes visible again. */
export function sqsBatchResponse(
  event: { Records: SQSRecord[] },
  handle: (record: SQSRecord) => Promise<void>,
): Promise<SQSBatchResponse> {
  return partialBatch(event, handle, (record) => record.messageId);
}

/** A DynamoDB stream's partial batch response: the failed records by sequence number; the stream retries from there. */
export function streamBatchResponse(
  event: { Records: DynamoDBRecord[] },
  handle: (record: DynamoDBRecord) => Promise<void>,
): Promise<DynamoDBBatchResponse> {
  return partialBatch(event, handle, (record) => record.dynamodb?.SequenceNumber);
}
