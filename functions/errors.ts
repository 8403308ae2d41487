/**
 * Handback's errors: one base class and a few named subclasses.
 *
 * `name` and `code` are a contract: Step Functions `Catch` matches on `name`,
 * HTTP problems carry `code`, and the tests pin both. HTTP statuses are mapped in
 * one place, at the API edge (`functions/handlers/problem.ts`).
 */

/** The stable machine words of every Handback error. */
export const ErrorCode = {
  MissingTurnState: 'missing_turn_state',
  InvalidTranscript: 'invalid_transcript',
  PauseNotFound: 'pause_not_found',
  OpenPauseExists: 'open_pause_exists',
  AlreadyResumed: 'already_resumed',
  PauseExpired: 'pause_expired',
  InvalidAnswer: 'invalid_answer',
  ContinuationNotFound: 'continuation_not_found',
  CorruptCheckpoint: 'corrupt_checkpoint',
  BadRequest: 'bad_request',
  HandoffFailed: 'handoff_failed',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** One broken rule of a transcript: which rule, at which message, in the provider's words. */
export interface Violation {
  rule: string;
  index: number;
  message: string;
}

/** One reason an answer was refused: where in the answer (a JSON pointer) and why. */
export interface AnswerFailure {
  path: string;
  message: string;
}

/** The base of every error Handback throws on purpose. */
export class HandbackError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HandbackError';
    this.code = code;
  }
}

/** A resume found no turn state to rebuild from: a missing or empty checkpoint. */
export class MissingTurnStateError extends HandbackError {
  constructor(
    message = 'No turn state to rebuild from: the checkpoint is missing or holds no messages.',
    options?: { cause?: unknown },
  ) {
    super(ErrorCode.MissingTurnState, message, options);
    this.name = 'MissingTurnStateError';
  }
}

/** A transcript breaks the format's shape or the strict transcript check, or names an unknown format. */
export class InvalidTranscriptError extends HandbackError {
  readonly violations: Violation[];

  constructor(message: string, violations: Violation[] = [], options?: { cause?: unknown }) {
    super(ErrorCode.InvalidTranscript, message, options);
    this.name = 'InvalidTranscriptError';
    this.violations = violations;
  }
}

/** No pause with this id for this run and tenant (unknown, or another tenant's: never told apart). */
export class PauseNotFoundError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;

  constructor(runId: string, interruptId: string, options?: { cause?: unknown }) {
    super(ErrorCode.PauseNotFound, `No pause ${interruptId} was found for run ${runId}.`, options);
    this.name = 'PauseNotFoundError';
    this.runId = runId;
    this.interruptId = interruptId;
  }
}

/** The run already has a pause that is neither resumed nor expired. */
export class OpenPauseExistsError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string | undefined;

  constructor(runId: string, interruptId: string | undefined, options?: { cause?: unknown }) {
    super(
      ErrorCode.OpenPauseExists,
      `Run ${runId} already has an open pause${interruptId ? ` (${interruptId})` : ''}: resume it or let it expire before pausing again.`,
      options,
    );
    this.name = 'OpenPauseExistsError';
    this.runId = runId;
    this.interruptId = interruptId;
  }
}

/** The pause was already resumed with a different answer; `continuationId` names the winner's continuation. */
export class AlreadyResumedError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;
  readonly continuationId: string;

  constructor(runId: string, interruptId: string, continuationId: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.AlreadyResumed,
      `Pause ${interruptId} of run ${runId} was already resumed with a different answer; its continuation is ${continuationId}.`,
      options,
    );
    this.name = 'AlreadyResumedError';
    this.runId = runId;
    this.interruptId = interruptId;
    this.continuationId = continuationId;
  }
}

/** The pause was still unanswered at its `expiresAt`. */
export class PauseExpiredError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;
  readonly expiresAt: string;

  constructor(runId: string, interruptId: string, expiresAt: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.PauseExpired,
      `Pause ${interruptId} of run ${runId} expired at ${expiresAt} without an answer.`,
      options,
    );
    this.name = 'PauseExpiredError';
    this.runId = runId;
    this.interruptId = interruptId;
    this.expiresAt = expiresAt;
  }
}

/** The answer fails the pause's `answerSchema`, or the format's provider cannot carry it. */
export class InvalidAnswerError extends HandbackError {
  readonly failures: AnswerFailure[];

  constructor(message: string, failures: AnswerFailure[] = [], options?: { cause?: unknown }) {
    super(ErrorCode.InvalidAnswer, message, options);
    this.name = 'InvalidAnswerError';
    this.failures = failures;
  }
}

/** No continuation with this id for this run and tenant. */
export class ContinuationNotFoundError extends HandbackError {
  readonly runId: string;
  readonly continuationId: string;

  constructor(runId: string, continuationId: string, options?: { cause?: unknown }) {
    super(ErrorCode.ContinuationNotFound, `No continuation ${continuationId} was found for run ${runId}.`, options);
    this.name = 'ContinuationNotFoundError';
    this.runId = runId;
    this.continuationId = continuationId;
  }
}

/** A stored checkpoint is missing a chunk, fails its hash or length, cannot be decoded, or has an unknown schema version. */
export class CorruptCheckpointError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;

  constructor(runId: string, interruptId: string, reason: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.CorruptCheckpoint,
      `The checkpoint of pause ${interruptId} (run ${runId}) is corrupt: ${reason}. It was not rebuilt; restore the table from a backup or pause the run again.`,
      options,
    );
    this.name = 'CorruptCheckpointError';
    this.runId = runId;
    this.interruptId = interruptId;
  }
}

/** A request is malformed: a missing or ill-typed field, a bad id, an out-of-range value. */
export class BadRequestError extends HandbackError {
  readonly failures: AnswerFailure[];

  constructor(message: string, failures: AnswerFailure[] = [], options?: { cause?: unknown }) {
    super(ErrorCode.BadRequest, message, options);
    this.name = 'BadRequestError';
    this.failures = failures;
  }
}

/** A resume was committed but its hand-off target refused the pointer; resuming again with the same answer delivers again. */
export class HandoffFailedError extends HandbackError {
  readonly continuationId: string;

  constructor(target: string, continuationId: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.HandoffFailed,
      `Handing off continuation ${continuationId} to ${target} failed; the resume is committed, so retry it with the same answer to deliver again.`,
      options,
    );
    this.name = 'HandoffFailedError';
    this.continuationId = continuationId;
  }
}
