/**
 * `handback/client`: the store's operations over the HTTP API (§15), for an agent or a page that reaches Handback by
 * URL. It loads nothing but this folder, the errors and the vocabulary: no server module, no validator.
 */

export {
  AlreadyDecidedError,
  AlreadyResumedError,
  AlreadyVotedError,
  ArgsChangedError,
  BadRequestError,
  ContinuationNotFoundError,
  CorruptCheckpointError,
  ERROR_FATES,
  ErrorCode,
  ExecutionInProgressError,
  ForbiddenError,
  GraphCheckpointNotFoundError,
  HandbackError,
  HandoffFailedError,
  IdempotencyKeyReusedError,
  InvalidAnswerError,
  InvalidTranscriptError,
  LinkKeyUnavailableError,
  MissingTurnStateError,
  NoChannelError,
  NotAnApproverError,
  OpenPauseExistsError,
  PauseCancelledError,
  PauseExpiredError,
  PauseNotFoundError,
  PayloadTooLargeError,
  RecipientNotAllowedError,
  SelfDecisionError,
  StorageUnavailableError,
  UnsupportedRecordError,
} from '../errors.ts';
export { createHandbackClient, type HandbackClientOptions } from './client.ts';
export { HandbackHttpError, type ProblemBody } from './problems.ts';
export {
  type ClientCancelInput,
  type ClientContinuation,
  type ClientContinuationKey,
  type ClientDecideInput,
  type ClientDecideResult,
  type ClientListPausesQuery,
  type ClientPauseCreated,
  type ClientPauseInput,
  type ClientPauseKey,
  type ClientResumeInput,
  type CreateLinkInput,
  type HandbackClient,
  type HandbackOperations,
  type LinkCreated,
  type LinkDelivered,
  storeOperations,
  type Unbooked,
  type Unscoped,
} from './types.ts';
