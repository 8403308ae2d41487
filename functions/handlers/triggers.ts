import type { EventBridgeEvent, SQSRecord } from 'aws-lambda';
import { HandbackError, InvalidAnswerError } from '../errors.ts';
import type { Decision } from '../rehydrate/decisions.ts';
import { pendingDue, reportPending } from '../resume/decision-metrics.ts';
import {
  type PendingBody,
  pendingBody,
  type ResumeBody,
  resumeBody,
  STEP_FUNCTIONS_MESSAGES_LIMIT_BYTES,
} from '../resume/fit.ts';
import { parseTriggerRequest } from '../resume/request.ts';
import { cancelTurn, decideTurn, resumeTurn, sweepDue, type UseCaseDeps } from '../resume/resume.ts';
import { Metric, MetricUnit } from '../resume/telemetry.ts';
import { LIMITS, type TriggerVia } from '../vocabulary.ts';
import { isPermanent, statusOf } from './problem.ts';
import { type EntryTelemetry, sqsBatchResponse, withTelemetry } from './telemetry.ts';

/**
 * The non-HTTP entry points (§6, §9, §10): the Step Functions task, SQS and EventBridge. Each parses its event into
 * the same request — `{runId, interruptId, answer | decisions, tenant?}`, or `{action: "cancel", runId, interruptId,
 * reason?, tenant?}` — and runs it through the same use cases as the HTTP API.
 */

/** What a trigger runs on: the use cases' dependencies, with the entry point's logger and metrics. */
export type TriggerDeps = UseCaseDeps & EntryTelemetry;

/** What a trigger answers: the resume body of a closing, or the pending body while asks wait (§9). */
export type TriggerOutput = ResumeBody | PendingBody;

/** Runs one trigger request; the output is sized for Step Functions (`messagesOmitted` past 256 KB). */
async function run(deps: UseCaseDeps, input: unknown, trigger: TriggerVia): Promise<TriggerOutput> {
  const request = parseTriggerRequest(input, trigger);
  const { tenant, runId, interruptId, by } = request;
  switch (request.action) {
    case 'cancel': {
      const cancel = {
        tenant,
        runId,
        interruptId,
        by,
        ...(request.reason === undefined ? {} : { reason: request.reason }),
      };
      return resumeBody(await cancelTurn(deps, cancel, trigger), STEP_FUNCTIONS_MESSAGES_LIMIT_BYTES);
    }
    case 'decide': {
      const decisions = request.decisions as Decision[];
      const result = await decideTurn(deps, { tenant, runId, interruptId, decisions, by }, trigger);
      if (result.kind === 'closed') return resumeBody(result, STEP_FUNCTIONS_MESSAGES_LIMIT_BYTES);
      return pendingBody(result);
    }
    case 'resume':
      return resumeBody(
        await resumeTurn(deps, { tenant, runId, interruptId, answer: request.answer, by }, trigger),
        STEP_FUNCTIONS_MESSAGES_LIMIT_BYTES,
      );
  }
}

/** The EventBridge detail-type that asks for a resume. */
export const RESUME_REQUESTED = 'Resume Requested';

/** The Step Functions task: output is the resume body, `messagesOmitted` past 256 KB; failures keep their error `name`. */
export function createStepFunctionsHandler(deps: TriggerDeps) {
  return withTelemetry(deps, async (input: unknown): Promise<TriggerOutput> => run(deps, input, 'step-functions'));
}

/**
 * The SQS handler, with partial batch responses. A message that can never succeed (a final error by its fate: bad
 * request, not found, conflict, expired, cancelled, invalid answer) is recorded — a `Resume request rejected` log line with its reason and
 * the `rejected` metric — and acknowledged, so it is neither retried nor silently dropped. Anything else (throttling,
 * a network error, a failed hand-off) is reported in `batchItemFailures` and retried by SQS, then the queue's
 * redrive policy moves it to the DLQ.
 */
export function createSqsHandler(deps: TriggerDeps) {
  const record = async (message: SQSRecord): Promise<void> => {
    await resumeOrReject(deps, 'sqs', () => JSON.parse(message.body), { messageId: message.messageId });
  };
  return withTelemetry(deps, async (event: { Records: SQSRecord[] }) => sqsBatchResponse(event, record));
}

/**
 * The EventBridge handler for `Resume Requested` events, input in `detail`. A request that can never succeed is
 * recorded (log line and `rejected` metric) and the invocation succeeds; a transient failure throws, so EventBridge's
 * retry policy (and the target's DLQ) take over.
 */
export function createEventBridgeHandler(deps: TriggerDeps) {
  return withTelemetry(deps, async (event: EventBridgeEvent<string, unknown>): Promise<void> => {
    if (event['detail-type'] !== RESUME_REQUESTED) {
      reject(deps, 'eventbridge', new Error(`detail-type ${event['detail-type']} is not ${RESUME_REQUESTED}`), {
        eventId: event.id,
      });
      return;
    }
    await resumeOrReject(deps, 'eventbridge', () => event.detail, { eventId: event.id });
  });
}

async function resumeOrReject(
  deps: UseCaseDeps,
  trigger: TriggerVia,
  read: () => unknown,
  ids: Record<string, string>,
): Promise<void> {
  let input: unknown;
  try {
    input = read();
  } catch (error) {
    reject(deps, trigger, error, ids);
    return;
  }
  const correlation = correlationOf(input);
  try {
    await run(deps, input, trigger);
  } catch (error) {
    if (!isPermanent(error)) throw error;
    reject(deps, trigger, error, { ...ids, ...correlation });
  }
}

/** Records a request that can never succeed: one structured line with the reason, and the `rejected` metric. */
function reject(deps: UseCaseDeps, trigger: TriggerVia, error: unknown, ids: Record<string, string>): void {
  deps.metrics.addMetric(Metric.Rejected, MetricUnit.Count, 1);
  deps.logger.warn('Resume request rejected', {
    ...ids,
    trigger,
    reason: error instanceof HandbackError ? error.code : 'bad_request',
    error: error instanceof HandbackError ? error.name : 'BadRequestError',
    status: error instanceof HandbackError ? statusOf(error) : 400,
    // An invalid answer's message may quote the answer's keys; answers are never logged.
    detail:
      error instanceof InvalidAnswerError
        ? 'The answer fails the pause answer schema or its format.'
        : error instanceof HandbackError
          ? error.message
          : 'The message is not a JSON resume request.',
  });
}

/** The ids of a request, for correlation, when it has them as strings (never the answer). */
function correlationOf(input: unknown): Record<string, string> {
  if (typeof input !== 'object' || input === null) return {};
  const { runId, interruptId } = input as Record<string, unknown>;
  return {
    ...(typeof runId === 'string' ? { runId: runId.slice(0, 128) } : {}),
    ...(typeof interruptId === 'string' ? { interruptId: interruptId.slice(0, LIMITS.idChars) } : {}),
  };
}

/** Each trigger's handler (§6): what its Lambda entry point exports (`functions/handlers/<trigger>.ts`). */
export const TRIGGER_HANDLERS = {
  'step-functions': createStepFunctionsHandler,
  sqs: createSqsHandler,
  eventbridge: createEventBridgeHandler,
} satisfies Record<TriggerVia, (deps: TriggerDeps) => unknown>;

/** Milliseconds of the invocation left at which a sweep stops starting new batches. */
export const SWEEP_RESERVE_MS = 10_000;

/**
 * The sweep (§10), on a schedule (every minute): due reminders, expiries, and `onExpiry: "reject"` closings with their
 * hand-offs. It takes batches until fewer than a batch are due or time runs short; what is left waits a minute. Every
 * fifth minute it then counts what waits, as metrics (§21, `reportPending`).
 */
export function createSweepHandler(deps: TriggerDeps) {
  return withTelemetry(deps, async (_event: unknown, context) => {
    const totals = { reminded: 0, expired: 0, closed: 0 };
    for (;;) {
      const result = await sweepDue(deps, { limit: LIMITS.sweepBatch });
      totals.reminded += result.reminded.length;
      totals.expired += result.expired.length;
      totals.closed += result.closed.length;
      const acted = result.reminded.length + result.expired.length + result.closed.length;
      if (acted < LIMITS.sweepBatch || context.getRemainingTimeInMillis() < SWEEP_RESERVE_MS) break;
    }
    deps.logger.info('Swept', totals);
    if (pendingDue((deps.now ?? Date.now)()) && context.getRemainingTimeInMillis() >= SWEEP_RESERVE_MS) {
      await reportPending(deps);
    }
    return totals;
  });
}
