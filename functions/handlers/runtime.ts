import type { CheckpointChecks } from '../checkpoints/checks.ts';
import * as target from '../handoff/target.ts';
import { type LambdaUseCaseDeps, useCaseDepsWith } from './runtime-base.ts';

/**
 * The Lambda wiring (`runtime-base.ts`) with the hand-off target's module imported statically, so its client is read
 * and made at init: for the Step Functions, SQS and EventBridge resumes, which hand off with nearly every request;
 * the API, whose resume, decide and cancel routes — a person's answer among them — hand off without waiting for a
 * chunk; and the sweep, run on a schedule, whose cold start no one waits for. The Slack interactions function, whose
 * clicks mostly close nothing, does not import this module.
 */

export { config, dynamodb, logger, metrics } from './runtime-base.ts';

/** The use cases' dependencies (`useCaseDepsWith`), the hand-off target's client made now. */
export function useCaseDeps(checks: CheckpointChecks): LambdaUseCaseDeps {
  return useCaseDepsWith(checks, target);
}
