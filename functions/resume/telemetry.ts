import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';

/**
 * Logs and metrics, via Powertools: JSON log lines correlated by `runId`/`interruptId`, metrics in EMF. Answers and
 * transcripts are never logged; only ids, sizes, counts and error codes.
 */
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
  Decisions: 'Decisions',
  /** Requests refused because another answer or decision came first (409 `already_resumed` / `already_decided`). */
  ResumeConflicts: 'ResumeConflicts',
  /** Decisions refused because the pause had expired or was cancelled (410). */
  LateDecisions: 'LateDecisions',
  /** Pauses the sweep marked expired or closed at their expiry. */
  PausesExpired: 'PausesExpired',
  /** Lifecycle events that could not be delivered (logged; the request that caused them went on). */
  EventEmitFailures: 'EventEmitFailures',
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
} as const;

/**
 * The logger Powertools metrics reports through: the service's logger, with "No application metrics to publish"
 * (said after every read-only request) lowered to debug.
 */
export function metricsLogger(logger: Logger) {
  return {
    debug: (...args: unknown[]) => logger.debug(String(args[0])),
    info: (...args: unknown[]) => logger.info(String(args[0])),
    error: (...args: unknown[]) => logger.error(String(args[0])),
    warn: (...args: unknown[]) => {
      const message = String(args[0]);
      if (message.startsWith('No application metrics to publish')) logger.debug(message);
      else logger.warn(message);
    },
  };
}
