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
  /** Resumes that committed or replayed a continuation. */
  Resumes: 'Resumes',
  /** Resumes answered from an earlier resume with the same answer. */
  ResumesReplayed: 'ResumesReplayed',
  /** Resumes refused because the pause was resumed with another answer (409 `already_resumed`). */
  ResumeConflicts: 'ResumeConflicts',
  /** Resumes refused because the pause had expired (410 `pause_expired`). */
  PausesExpired: 'PausesExpired',
  /** Bytes of a paused transcript's JSON. */
  PauseBytes: 'PauseBytes',
  /** Pauses recorded. */
  Pauses: 'Pauses',
  /** Hand-offs that a target refused (the trigger retries). */
  HandoffFailures: 'HandoffFailures',
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
