import type { AnswerFailure, Principal } from './wire.ts';

/**
 * Handback's errors: one base class and a few named subclasses, and the one table (`ERROR_FATES`) that decides each
 * error's fate: its HTTP status, whether a retry can help, and the title of its problem. The API edge, the SQS and
 * EventBridge handlers and the CDK workflows all read that table; none keeps its own list.
 *
 * `name` and `code` are a contract: Step Functions `Catch` matches on `name`, HTTP problems carry `code`, and the
 * tests pin both.
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
  AlreadyDecided: 'already_decided',
  PauseCancelled: 'pause_cancelled',
  StorageUnavailable: 'storage_unavailable',
  IdempotencyKeyReused: 'idempotency_key_reused',
  UnsupportedRecord: 'unsupported_record',
  PayloadTooLarge: 'payload_too_large',
  Forbidden: 'forbidden',
  NotAnApprover: 'not_an_approver',
  SelfDecision: 'self_decision',
  AlreadyVoted: 'already_voted',
  LinkKeyUnavailable: 'link_key_unavailable',
  RecipientNotAllowed: 'recipient_not_allowed',
  ArgsChanged: 'args_changed',
  NoChannel: 'no_channel',
  ExecutionInProgress: 'execution_in_progress',
  GraphCheckpointNotFound: 'graph_checkpoint_not_found',
  InvalidPolicies: 'invalid_policies',
  PauseOpen: 'pause_open',
  // §20
  UnknownPerson: 'unknown_person',
  // §19
  PolicyForbids: 'policy_forbids',
  PolicyError: 'policy_error',
  ApprovalExpired: 'approval_expired',
  AlreadyClaimed: 'already_claimed',
  NotDispatched: 'not_dispatched',
  NotClaimed: 'not_claimed',
  AlreadyFinished: 'already_finished',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** One broken rule of a transcript: which rule, at which message, in the provider's words. */
export interface Violation {
  rule: string;
  index: number;
  message: string;
}

export type { AnswerFailure };

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

/**
 * The pause was already resumed: by a different answer than this one, or before this cancel; `continuationId` names
 * the continuation that closed it.
 */
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

/** A different decision for an ask that was already decided (§9); `toolCallId` names the ask. */
export class AlreadyDecidedError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;
  readonly toolCallId: string;

  constructor(runId: string, interruptId: string, toolCallId: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.AlreadyDecided,
      `The ask ${toolCallId} of pause ${interruptId} (run ${runId}) was already decided differently; read the pause to see the recorded decision.`,
      options,
    );
    this.name = 'AlreadyDecidedError';
    this.runId = runId;
    this.interruptId = interruptId;
    this.toolCallId = toolCallId;
  }
}

/** A decision for a pause that was cancelled (§10). */
export class PauseCancelledError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;
  readonly continuationId: string | undefined;

  constructor(runId: string, interruptId: string, continuationId?: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.PauseCancelled,
      `Pause ${interruptId} of run ${runId} was cancelled${continuationId ? `; its continuation is ${continuationId}` : ''}: nothing can be decided any more.`,
      options,
    );
    this.name = 'PauseCancelledError';
    this.runId = runId;
    this.interruptId = interruptId;
    this.continuationId = continuationId;
  }
}

/**
 * The table did not answer in time, or refused for load. What was asked may or may not have happened; every request
 * Handback takes is safe to retry (a resume replays, a pause with an `Idempotency-Key` returns the first one).
 */
export class StorageUnavailableError extends HandbackError {
  /** Seconds a client should wait before retrying. */
  readonly retryAfterSeconds: number;

  constructor(message?: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(
      ErrorCode.StorageUnavailable,
      message ??
        'The checkpoint table did not answer in time. What was asked may or may not have happened; retry the same request, which is safe.',
      options,
    );
    this.name = 'StorageUnavailableError';
    this.retryAfterSeconds = options?.retryAfterSeconds ?? 1;
  }
}

/** An `Idempotency-Key` already used for a pause of this run with a different body. */
export class IdempotencyKeyReusedError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;

  constructor(runId: string, interruptId: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.IdempotencyKeyReused,
      `This Idempotency-Key was already used for pause ${interruptId} of run ${runId} with a different body; use a new key for a new pause.`,
      options,
    );
    this.name = 'IdempotencyKeyReusedError';
    this.runId = runId;
    this.interruptId = interruptId;
  }
}

/**
 * A stored pause was written by a newer version of Handback (an unknown status or schema version, as during a
 * rolling deploy). It is not corrupt: retry once every function runs the newer version.
 */
export class UnsupportedRecordError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;

  constructor(runId: string, interruptId: string, what: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.UnsupportedRecord,
      `Pause ${interruptId} of run ${runId} was written by a newer version of Handback (${what}); retry once the deployment has finished.`,
      options,
    );
    this.name = 'UnsupportedRecordError';
    this.runId = runId;
    this.interruptId = interruptId;
  }
}

/** Something sent is over its size limit (a transcript over 16 MB, an answer over 256 KB, a pause's decisions over 264 KB). */
export class PayloadTooLargeError extends HandbackError {
  readonly failures: AnswerFailure[];

  constructor(message: string, failures: AnswerFailure[] = [], options?: { cause?: unknown }) {
    super(ErrorCode.PayloadTooLarge, message, options);
    this.name = 'PayloadTooLargeError';
    this.failures = failures;
  }
}

/**
 * What the principal asking may not do (§13): a token whose scopes do not open the route (or an unscoped token where
 * scopes are required), an agent creating a link, a link naming another pause than its own. Nothing changed.
 */
export class ForbiddenError extends HandbackError {
  /** The scope the token lacks, when a scope is what is missing. */
  readonly scope: string | undefined;

  constructor(message: string, options?: { cause?: unknown; scope?: string }) {
    super(ErrorCode.Forbidden, message, options);
    this.name = 'ForbiddenError';
    this.scope = options?.scope;
  }
}

/** The principal may not decide this ask (§13: its `approvers` do not name them, or it is an agent). Nothing changed. */
export class NotAnApproverError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;
  readonly toolCallId: string;

  constructor(runId: string, interruptId: string, toolCallId: string, why: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.NotAnApprover,
      `You may not decide the ask ${toolCallId} of pause ${interruptId} (run ${runId}): ${why}. Nothing was recorded.`,
      options,
    );
    this.name = 'NotAnApproverError';
    this.runId = runId;
    this.interruptId = interruptId;
    this.toolCallId = toolCallId;
  }
}

/** A pause with `fourEyes` decided by the principal that made it (§13). Nothing changed. */
export class SelfDecisionError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;
  readonly toolCallId: string;

  constructor(runId: string, interruptId: string, toolCallId: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.SelfDecision,
      `Pause ${interruptId} (run ${runId}) asks for four eyes: the principal that paused it may not decide ${toolCallId}; someone else must. Nothing was recorded.`,
      options,
    );
    this.name = 'SelfDecisionError';
    this.runId = runId;
    this.interruptId = interruptId;
    this.toolCallId = toolCallId;
  }
}

/** Another vote on an ask by a principal that already voted on it (§13). */
export class AlreadyVotedError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;
  readonly toolCallId: string;

  constructor(runId: string, interruptId: string, toolCallId: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.AlreadyVoted,
      `You already voted on the ask ${toolCallId} of pause ${interruptId} (run ${runId}); a principal decides an ask once.`,
      options,
    );
    this.name = 'AlreadyVotedError';
    this.runId = runId;
    this.interruptId = interruptId;
    this.toolCallId = toolCallId;
  }
}

/**
 * A decision by no known person on an ask that needs one (§20): an email-only identity (a delivered link) on an ask
 * with four eyes or a quorum, or with a directory a principal it knows no person for; or a person the directory says
 * is not active, on any ask. Nothing was recorded.
 */
export class UnknownPersonError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;
  readonly toolCallId: string;

  constructor(runId: string, interruptId: string, toolCallId: string, why: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.UnknownPerson,
      `The ask ${toolCallId} of pause ${interruptId} (run ${runId}) needs a known person, and ${why}. Nothing was recorded.`,
      options,
    );
    this.name = 'UnknownPersonError';
    this.runId = runId;
    this.interruptId = interruptId;
    this.toolCallId = toolCallId;
  }
}

/**
 * An agent named an email address (an approver, or an email `notify` recipient) outside the deployment's recipient
 * domains (§16): an agent never chooses who approves it. Nothing was recorded or sent.
 */
export class RecipientNotAllowedError extends HandbackError {
  /** Each address refused, at its JSON pointer in the pause body. */
  readonly failures: AnswerFailure[];

  constructor(message: string, failures: AnswerFailure[], options?: { cause?: unknown }) {
    super(ErrorCode.RecipientNotAllowed, message, options);
    this.name = 'RecipientNotAllowedError';
    this.failures = failures;
  }
}

/**
 * An approve or edit of other arguments than the ask's current ones (§16): its `argsHash` is not the ask's, because
 * someone edited them since the person looked. Nothing was recorded; read the pause again and decide on what it shows.
 */
export class ArgsChangedError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;
  readonly toolCallId: string;
  /** The ask's current `argsHash`. */
  readonly argsHash: string;

  constructor(runId: string, interruptId: string, toolCallId: string, argsHash: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.ArgsChanged,
      `The arguments of the ask ${toolCallId} of pause ${interruptId} (run ${runId}) changed since they were shown: nothing was recorded. Read the pause again and decide on its current arguments.`,
      options,
    );
    this.name = 'ArgsChangedError';
    this.runId = runId;
    this.interruptId = interruptId;
    this.toolCallId = toolCallId;
    this.argsHash = argsHash;
  }
}

/** A link to deliver (§16: `deliver: true`) where the deployment has no email channel to deliver it. Nothing sent. */
export class NoChannelError extends HandbackError {
  constructor(
    message = 'This deployment has no email channel to deliver a link with: configure one, or ask for the link without deliver.',
    options?: { cause?: unknown },
  ) {
    super(ErrorCode.NoChannel, message, options);
    this.name = 'NoChannelError';
  }
}

/** The answer-link key could not be read (Secrets Manager did not answer): links cannot be signed or checked now. */
export class LinkKeyUnavailableError extends HandbackError {
  readonly retryAfterSeconds: number;

  constructor(message?: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(
      ErrorCode.LinkKeyUnavailable,
      message ?? 'The answer-link key could not be read just now; retry in a moment.',
      options,
    );
    this.name = 'LinkKeyUnavailableError';
    this.retryAfterSeconds = options?.retryAfterSeconds ?? 1;
  }
}

/**
 * An approved call's execution was claimed by another delivery of the same continuation and has no output yet (§15):
 * it is not run a second time. A race heals by itself (retry later and read the output); a claim whose delivery
 * crashed mid-run stays `started` (`startedAt`), since the tool may have done its work: look at the tool's own records.
 */
export class ExecutionInProgressError extends HandbackError {
  readonly key: string;
  readonly startedAt: string;
  constructor(key: string, startedAt: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.ExecutionInProgress,
      `Execution ${key} was started at ${startedAt} by another delivery and has no output yet; it is not run twice. Retry later; if that delivery crashed, settle it from the tool's own records.`,
      options,
    );
    this.name = 'ExecutionInProgressError';
    this.key = key;
    this.startedAt = startedAt;
  }
}

/**
 * `handback/langgraph` found no checkpoint for the pause's thread: the graph's checkpointer does not hold it (an
 * in-memory `MemorySaver` in another process, another database, a deleted thread), so resuming would start from nothing.
 */
export class GraphCheckpointNotFoundError extends HandbackError {
  readonly threadId: string;
  readonly interruptId: string;
  constructor(threadId: string, interruptId: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.GraphCheckpointNotFound,
      `The graph's checkpointer has no checkpoint for thread ${threadId} (pause ${interruptId}): compile the graph with the durable checkpointer the pause was made on.`,
      options,
    );
    this.name = 'GraphCheckpointNotFoundError';
    this.threadId = threadId;
    this.interruptId = interruptId;
  }
}

/**
 * A deployment's Cedar policies or policy schema (§17) do not parse, do not validate, or break Handback's own rules
 * (`@id` on every policy, once; `@approvals` from 1 to 5; …): the file, the line and column (in characters), and
 * Cedar's own words. `npm start` refuses to start with it and `cdk synth` fails with it; no pause is ever evaluated
 * against such a file.
 */
export class InvalidPoliciesError extends HandbackError {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** What is wrong, in Cedar's words where Cedar found it. */
  readonly reason: string;

  constructor(file: string, line: number, column: number, reason: string, options?: { cause?: unknown }) {
    super(ErrorCode.InvalidPolicies, `${file}:${line}:${column}: ${reason}`, options);
    this.name = 'InvalidPoliciesError';
    this.file = file;
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}

/**
 * A request that needs a closed pause met an open one: a hand-off claim (§18) of a pause no one has decided yet.
 * Nothing changed; the same request may succeed once the pause closes.
 */
export class PauseOpenError extends HandbackError {
  readonly runId: string;
  readonly interruptId: string;

  constructor(runId: string, interruptId: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.PauseOpen,
      `Pause ${interruptId} of run ${runId} is still open: its hand-off can be claimed once people have decided it.`,
      options,
    );
    this.name = 'PauseOpenError';
    this.runId = runId;
    this.interruptId = interruptId;
  }
}

// §19
/**
 * A call the deployment's policies forbid now (§19): at its execution claim, the policies in force judged the
 * dispatched call again and a `forbid` applies. `policyIds` name the forbids, `reason` the first one's `@reason`.
 */
export class PolicyForbidsError extends HandbackError {
  readonly toolCallId: string | undefined;
  /** The forbidding policies' ids (none for the deployment's default `reject`). */
  readonly policyIds: string[];
  /** The first forbid's `@reason` (else its id). */
  readonly reason: string;

  constructor(
    message: string,
    fields: { policyIds: string[]; reason: string; toolCallId?: string },
    options?: { cause?: unknown },
  ) {
    super(ErrorCode.PolicyForbids, message, options);
    this.name = 'PolicyForbidsError';
    this.toolCallId = fields.toolCallId;
    this.policyIds = fields.policyIds;
    this.reason = fields.reason;
  }

  /**
   * A person's edit that a `forbid` refuses on the edited arguments (or, with the default `reject`, that no policy
   * allows): nothing was recorded; the person may still reject the ask, or edit it to arguments the policies allow.
   */
  static ofEdit(
    ids: { runId: string; interruptId: string; toolCallId: string },
    policyIds: string[],
    reason: string,
  ): PolicyForbidsError {
    const named = policyIds.length === 0 ? "the deployment's default" : `policy ${policyIds.join(', ')}`;
    return new PolicyForbidsError(
      `The edited arguments of the ask ${ids.toolCallId} of pause ${ids.interruptId} (run ${ids.runId}) are forbidden by ${named}: ${reason}. Nothing was recorded; edit them to arguments the policies allow, or reject the ask.`,
      { policyIds, reason, toolCallId: ids.toolCallId },
    );
  }
}

/** The deployment's policies could not judge a call (§19): the evaluation failed, and what fails closed is refused. */
export class PolicyEvaluationError extends HandbackError {
  readonly toolCallId: string | undefined;
  /** What failed, in Cedar's words where Cedar said it. */
  readonly reason: string;
  /** The erroring policies' ids (none when the request itself did not fit). */
  readonly policyIds: string[];

  constructor(
    message: string,
    fields: { reason: string; toolCallId?: string; policyIds?: string[] },
    options?: { cause?: unknown },
  ) {
    super(ErrorCode.PolicyError, message, options);
    this.name = 'PolicyEvaluationError';
    this.toolCallId = fields.toolCallId;
    this.reason = fields.reason;
    this.policyIds = fields.policyIds ?? [];
  }

  /**
   * The policies could not judge a person's edit: a value that does not fit the schema, arguments past the bounds, an
   * extension call that failed. Nothing was recorded.
   */
  static ofEdit(
    ids: { runId: string; interruptId: string; toolCallId: string },
    policyIds: string[],
    reason: string,
  ): PolicyEvaluationError {
    return new PolicyEvaluationError(
      `The deployment's policies could not judge the edited arguments of the ask ${ids.toolCallId} of pause ${ids.interruptId} (run ${ids.runId}): ${reason}. Nothing was recorded.`,
      { reason, toolCallId: ids.toolCallId, policyIds },
    );
  }
}

/** A dispatched call is named by its continuation and its tool call id (§19). */
interface ExecutionIds {
  runId: string;
  continuationId: string;
  toolCallId: string;
}

/**
 * A claim after the approval's `approvedUntil` (§19: a permit's `@validFor`): the approval no longer lets the call run.
 * The refusal is recorded; the call never runs under this approval.
 */
export class ApprovalExpiredError extends HandbackError {
  readonly runId: string;
  readonly continuationId: string;
  readonly toolCallId: string;
  readonly approvedUntil: string;

  constructor(ids: ExecutionIds, approvedUntil: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.ApprovalExpired,
      `The approval of call ${ids.toolCallId} (continuation ${ids.continuationId} of run ${ids.runId}) was valid until ${approvedUntil}: it was not run, and is not run under this approval. Pause again to ask anew.`,
      options,
    );
    this.name = 'ApprovalExpiredError';
    this.runId = ids.runId;
    this.continuationId = ids.continuationId;
    this.toolCallId = ids.toolCallId;
    this.approvedUntil = approvedUntil;
  }
}

/** A second claim of one dispatched call (§19): only the first claim runs it. Nothing changed. */
export class AlreadyClaimedError extends HandbackError {
  readonly runId: string;
  readonly continuationId: string;
  readonly toolCallId: string;
  readonly claimedAt: string;
  readonly claimedBy: Principal;

  constructor(ids: ExecutionIds, claimedAt: string, claimedBy: Principal, options?: { cause?: unknown }) {
    super(
      ErrorCode.AlreadyClaimed,
      `Call ${ids.toolCallId} of continuation ${ids.continuationId} (run ${ids.runId}) was claimed at ${claimedAt} by ${claimedBy.kind} ${claimedBy.subject}: it runs once, there. Do not run it here.`,
      options,
    );
    this.name = 'AlreadyClaimedError';
    this.runId = ids.runId;
    this.continuationId = ids.continuationId;
    this.toolCallId = ids.toolCallId;
    this.claimedAt = claimedAt;
    this.claimedBy = claimedBy;
  }
}

/** An execution of a call that is not in its continuation's `dispatch` (§19): rejected, answered, or not asked. */
export class NotDispatchedError extends HandbackError {
  readonly runId: string;
  readonly continuationId: string;
  readonly toolCallId: string;

  constructor(ids: ExecutionIds, options?: { cause?: unknown }) {
    super(
      ErrorCode.NotDispatched,
      `Continuation ${ids.continuationId} of run ${ids.runId} dispatches no call ${ids.toolCallId}: only an approved or edited call is run.`,
      options,
    );
    this.name = 'NotDispatchedError';
    this.runId = ids.runId;
    this.continuationId = ids.continuationId;
    this.toolCallId = ids.toolCallId;
  }
}

/** How an execution ended, told before anyone claimed it (or after it was refused) (§19). Nothing changed. */
export class NotClaimedError extends HandbackError {
  readonly runId: string;
  readonly continuationId: string;
  readonly toolCallId: string;

  constructor(ids: ExecutionIds, why: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.NotClaimed,
      `Call ${ids.toolCallId} of continuation ${ids.continuationId} (run ${ids.runId}) ${why}: only its claimant tells how it ended, once it is claimed.`,
      options,
    );
    this.name = 'NotClaimedError';
    this.runId = ids.runId;
    this.continuationId = ids.continuationId;
    this.toolCallId = ids.toolCallId;
  }
}

/** A second, different end of one execution (§19): it ended once, as recorded. Nothing changed. */
export class AlreadyFinishedError extends HandbackError {
  readonly runId: string;
  readonly continuationId: string;
  readonly toolCallId: string;

  constructor(ids: ExecutionIds, status: string, at: string, options?: { cause?: unknown }) {
    super(
      ErrorCode.AlreadyFinished,
      `Call ${ids.toolCallId} of continuation ${ids.continuationId} (run ${ids.runId}) already ended: ${status} at ${at}.`,
      options,
    );
    this.name = 'AlreadyFinishedError';
    this.runId = ids.runId;
    this.continuationId = ids.continuationId;
    this.toolCallId = ids.toolCallId;
  }
}

/** What becomes of an error with a given code: read by the API edge, the queue handlers and the CDK workflows. */
export interface ErrorFate {
  /** The error class's `name`, which a Step Functions `Catch` matches. */
  name: string;
  /** The HTTP status of its problem. */
  status: number;
  /** The problem's title. */
  title: string;
  /** Whether the same request may succeed later (a queue retries it; a workflow's `Retry` may). */
  retryable: boolean;
}

/** The one table of error fates: every `ErrorCode` has one. */
export const ERROR_FATES: Record<ErrorCode, ErrorFate> = {
  bad_request: { name: 'BadRequestError', status: 400, title: 'Bad request', retryable: false },
  invalid_transcript: { name: 'InvalidTranscriptError', status: 400, title: 'Invalid transcript', retryable: false },
  pause_not_found: { name: 'PauseNotFoundError', status: 404, title: 'Pause not found', retryable: false },
  continuation_not_found: {
    name: 'ContinuationNotFoundError',
    status: 404,
    title: 'Continuation not found',
    retryable: false,
  },
  open_pause_exists: { name: 'OpenPauseExistsError', status: 409, title: 'Open pause exists', retryable: false },
  already_resumed: { name: 'AlreadyResumedError', status: 409, title: 'Already resumed', retryable: false },
  already_decided: { name: 'AlreadyDecidedError', status: 409, title: 'Already decided', retryable: false },
  pause_expired: { name: 'PauseExpiredError', status: 410, title: 'Pause expired', retryable: false },
  pause_cancelled: { name: 'PauseCancelledError', status: 410, title: 'Pause cancelled', retryable: false },
  invalid_answer: { name: 'InvalidAnswerError', status: 422, title: 'Invalid answer', retryable: false },
  idempotency_key_reused: {
    name: 'IdempotencyKeyReusedError',
    status: 422,
    title: 'Idempotency key reused',
    retryable: false,
  },
  payload_too_large: { name: 'PayloadTooLargeError', status: 413, title: 'Payload too large', retryable: false },
  // A lost or corrupt turn state does not heal by itself: retrying only repeats the failure.
  missing_turn_state: { name: 'MissingTurnStateError', status: 500, title: 'Missing turn state', retryable: false },
  corrupt_checkpoint: { name: 'CorruptCheckpointError', status: 500, title: 'Corrupt checkpoint', retryable: false },
  handoff_failed: { name: 'HandoffFailedError', status: 503, title: 'Hand-off failed', retryable: true },
  storage_unavailable: { name: 'StorageUnavailableError', status: 503, title: 'Storage unavailable', retryable: true },
  unsupported_record: {
    name: 'UnsupportedRecordError',
    status: 503,
    title: 'Written by a newer version',
    retryable: true,
  },
  forbidden: { name: 'ForbiddenError', status: 403, title: 'Forbidden', retryable: false },
  not_an_approver: { name: 'NotAnApproverError', status: 403, title: 'Not an approver', retryable: false },
  self_decision: { name: 'SelfDecisionError', status: 403, title: 'Self decision', retryable: false },
  already_voted: { name: 'AlreadyVotedError', status: 409, title: 'Already voted', retryable: false },
  link_key_unavailable: {
    name: 'LinkKeyUnavailableError',
    status: 503,
    title: 'Link key unavailable',
    retryable: true,
  },
  recipient_not_allowed: {
    name: 'RecipientNotAllowedError',
    status: 400,
    title: 'Recipient not allowed',
    retryable: false,
  },
  args_changed: { name: 'ArgsChangedError', status: 409, title: 'Arguments changed', retryable: false },
  no_channel: { name: 'NoChannelError', status: 409, title: 'No channel', retryable: false },
  // A race heals by itself: the other delivery records the output, and a retry reads it.
  execution_in_progress: {
    name: 'ExecutionInProgressError',
    status: 503,
    title: 'Execution in progress',
    retryable: true,
  },
  graph_checkpoint_not_found: {
    name: 'GraphCheckpointNotFoundError',
    status: 404,
    title: 'Graph checkpoint not found',
    retryable: false,
  },
  // A deployment's own files: they are checked before it runs (start, synth), so a request never meets this.
  invalid_policies: { name: 'InvalidPoliciesError', status: 500, title: 'Invalid policies', retryable: false },
  pause_open: { name: 'PauseOpenError', status: 409, title: 'Pause open', retryable: true },
  // §20
  unknown_person: { name: 'UnknownPersonError', status: 403, title: 'Unknown person', retryable: false },
  // §19
  policy_forbids: { name: 'PolicyForbidsError', status: 403, title: 'Forbidden by policy', retryable: false },
  policy_error: { name: 'PolicyEvaluationError', status: 422, title: 'Policy error', retryable: false },
  approval_expired: { name: 'ApprovalExpiredError', status: 410, title: 'Approval expired', retryable: false },
  already_claimed: { name: 'AlreadyClaimedError', status: 409, title: 'Already claimed', retryable: false },
  not_dispatched: { name: 'NotDispatchedError', status: 404, title: 'Not dispatched', retryable: false },
  not_claimed: { name: 'NotClaimedError', status: 409, title: 'Not claimed', retryable: false },
  already_finished: { name: 'AlreadyFinishedError', status: 409, title: 'Already finished', retryable: false },
};

/** The error names a workflow `Catch`es as final: every Handback error that no retry will fix. */
export const FINAL_ERROR_NAMES: readonly string[] = Object.values(ERROR_FATES)
  .filter((fate) => !fate.retryable)
  .map((fate) => fate.name);

/** The fate of any error: its code's, or `undefined` for an error Handback did not throw on purpose. */
export function fateOf(error: unknown): ErrorFate | undefined {
  return error instanceof HandbackError ? ERROR_FATES[error.code] : undefined;
}

/** Whether an error is final: a Handback error whose fate says no retry helps. Anything unknown may be transient. */
export function isFinal(error: unknown): boolean {
  return fateOf(error)?.retryable === false;
}
