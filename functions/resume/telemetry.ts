/**
 * The logs and metrics the use cases report through: JSON log lines correlated by `runId`/`interruptId`, metrics by
 * name and unit. Answers and transcripts are never logged; only ids, sizes, counts and error codes. The Lambda
 * functions and the local service give them the implementation in `functions/handlers/telemetry.ts`; tests, spies.
 */

/** What a log line carries besides its message: its keys, at the line's top level. */
export type LogAttributes = Record<string, unknown>;

/** Writes one structured line per call, at the level the method names. */
export interface Logger {
  debug(message: string, attributes?: LogAttributes): void;
  info(message: string, attributes?: LogAttributes): void;
  warn(message: string, attributes?: LogAttributes): void;
  error(message: string, attributes?: LogAttributes): void;
}

/** The CloudWatch units Handback's metrics are counted in (CloudWatch's own names). */
export const MetricUnit = {
  Count: 'Count',
  Milliseconds: 'Milliseconds',
  Seconds: 'Seconds',
  Bytes: 'Bytes',
} as const;
/** One of `MetricUnit`. */
export type MetricUnit = (typeof MetricUnit)[keyof typeof MetricUnit];

/**
 * The dimensions of one metric value (§21): their values by name, and the sets of those names CloudWatch keeps a
 * series for (an empty set: one series for every value).
 */
export interface MetricDimensions {
  values: Readonly<Record<string, string>>;
  sets: ReadonlyArray<readonly string[]>;
}

/** Adds a value to a metric of the current invocation; the entry point publishes them once it ends. */
export interface Metrics {
  /** Without `dimensions`, the metric's one dimension is the service's name. */
  addMetric(name: string, unit: MetricUnit, value: number, dimensions?: MetricDimensions): void;
}

/** The logger and the metrics a use case is given. */
export interface Telemetry {
  logger: Logger;
  metrics: Metrics;
}

/** The metric names Handback emits (namespace `Handback`). */
export const Metric = {
  /** Milliseconds from the resume request to the committed continuation (before the hand-off). */
  ResumeLatency: 'ResumeLatency',
  /** Closings (resumed, cancelled, expired) that committed a continuation. */
  Resumes: 'Resumes',
  /** Closings answered from an earlier one with the same request. */
  ResumesReplayed: 'ResumesReplayed',
  /** Decision requests that left asks pending (202). */
  PartialDecisions: 'PartialDecisions',
  /** Requests refused because another answer or decision came first (409 `already_resumed` / `already_decided`). */
  ResumeConflicts: 'ResumeConflicts',
  /** Decisions refused because the pause had expired or was cancelled (410). */
  LateDecisions: 'LateDecisions',
  /** Pauses the sweep marked expired or closed at their expiry. */
  PausesExpired: 'PausesExpired',
  /** Lifecycle events that could not be delivered (logged; the request that caused them went on). */
  EventEmitFailures: 'EventEmitFailures',
  /** Closed pauses' transcripts the lifecycle stream could not move to the bucket (they stay in the table; logged). */
  ArchiveFailures: 'ArchiveFailures',
  /** Bytes of a paused transcript's JSON. */
  PauseBytes: 'PauseBytes',
  /** Pauses recorded. */
  Pauses: 'Pauses',
  /** Hand-offs that a target refused (the trigger retries). */
  HandoffFailures: 'HandoffFailures',
  /** Channel deliveries (a Slack post or update, an email) that failed and are retried (§14). */
  ChannelFailures: 'ChannelFailures',
  /** Trigger requests that can never succeed, recorded and not retried. */
  Rejected: 'rejected',
  // §21: how decisions are going (`decision-metrics.ts` gives each its dimensions).
  /** Milliseconds from a pause to its ask's settling decision, by `tool`, `outcome` and `via`. */
  TimeToDecision: 'TimeToDecision',
  /** Asks settled, one each, by `tool`, `outcome` and `via`. */
  Decisions: 'Decisions',
  /** Escalation levels reached (§21), by `tool`. */
  Escalations: 'Escalations',
  /** Asks waiting for people now, as the sweep counts them. */
  PendingAsks: 'PendingAsks',
  /** Seconds the oldest waiting ask has waited, as the sweep counts them. */
  OldestPendingSeconds: 'OldestPendingSeconds',
} as const;
