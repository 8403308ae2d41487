import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type {
  CheckpointStore,
  PauseCreated,
  PauseInput,
  ResumeInput,
  ResumeResult,
} from '../checkpoints/checkpoint-store.ts';
import { AlreadyResumedError, HandbackError, PauseExpiredError } from '../errors.ts';
import type { Handoff } from '../handoff/handoff.ts';
import { jsonBytes } from './request.ts';
import { Metric, type Telemetry } from './telemetry.ts';

/**
 * The use cases every entry point shares (STYLE rule 2): the HTTP API, the Step Functions task, the SQS and
 * EventBridge handlers and the local service all resume through `resumeTurn`, so each of them hands off, counts and
 * logs the same way.
 */

/** What the use cases run on: the storage port, the hand-off, logs and metrics. */
export interface UseCaseDeps extends Telemetry {
  store: CheckpointStore;
  handoff: Handoff;
  /** Milliseconds since the epoch; injected for tests. */
  now?: () => number;
}

/** Which entry point asked, for the logs. */
export type Trigger = 'http' | 'step-functions' | 'sqs' | 'eventbridge';

/**
 * Resumes a pause exactly once (the store's conditional write decides) and hands the continuation off. A replayed
 * resume (the same answer again) hands off again: delivery is at least once. A hand-off failure throws
 * `HandoffFailedError` after the resume is committed; retrying the same request replays it and delivers again.
 */
export async function resumeTurn(deps: UseCaseDeps, input: ResumeInput, trigger: Trigger): Promise<ResumeResult> {
  const { store, handoff, logger, metrics } = deps;
  const now = deps.now ?? Date.now;
  const ids = { runId: input.runId, interruptId: input.interruptId, trigger };
  const started = now();
  let result: ResumeResult;
  try {
    result = await store.resume(input);
  } catch (error) {
    if (error instanceof AlreadyResumedError) metrics.addMetric(Metric.ResumeConflicts, MetricUnit.Count, 1);
    if (error instanceof PauseExpiredError) metrics.addMetric(Metric.PausesExpired, MetricUnit.Count, 1);
    if (error instanceof HandbackError) logger.info('Resume refused', { ...ids, code: error.code, error: error.name });
    throw error;
  }
  metrics.addMetric(Metric.ResumeLatency, MetricUnit.Milliseconds, now() - started);
  metrics.addMetric(result.replayed ? Metric.ResumesReplayed : Metric.Resumes, MetricUnit.Count, 1);
  logger.info(result.replayed ? 'Resume replayed' : 'Resumed', {
    ...ids,
    continuationId: result.continuationId,
    format: result.format,
    messageCount: result.messages.length,
  });
  try {
    await handoff.deliver(result);
  } catch (error) {
    metrics.addMetric(Metric.HandoffFailures, MetricUnit.Count, 1);
    logger.error('Hand-off failed', { ...ids, continuationId: result.continuationId, error });
    throw error;
  }
  return result;
}

/** Records a paused turn, counting its transcript's bytes. */
export async function pauseTurn(deps: UseCaseDeps, input: PauseInput): Promise<PauseCreated> {
  const bytes = jsonBytes(input.messages);
  const created = await deps.store.pause(input);
  deps.metrics.addMetric(Metric.Pauses, MetricUnit.Count, 1);
  deps.metrics.addMetric(Metric.PauseBytes, MetricUnit.Bytes, bytes);
  deps.logger.info('Paused', {
    runId: created.runId,
    interruptId: created.interruptId,
    format: input.format,
    pauseBytes: bytes,
    messageCount: input.messages.length,
    expiresAt: created.expiresAt,
  });
  return created;
}
