/**
 * Handback, the library: rebuild a paused agent turn's transcript with a person's answer (`rehydrate`) or decisions
 * (`applyDecisions`), add the agent's own tool results (`appendResults`), check a transcript as the provider would
 * (`checkTranscript`), the checkpoint store's rules and its memory store, and the errors. It needs nothing but Node:
 * the DynamoDB store, whose declarations name the AWS SDK (an optional peer), is `handback/dynamodb`.
 */

export {
  CheckpointService,
  type CheckpointServiceOptions,
  type PauseChange,
} from './checkpoints/checkpoint-service.ts';
export type {
  AskInput,
  AskView,
  CancelInput,
  CheckpointStore,
  ClaimExecutionInput,
  Continuation,
  ContinuationKey,
  DecideInput,
  DecideResult,
  ExecutionClaimed,
  ExecutionEnded,
  FinishExecutionInput,
  JsonSchema,
  ListPausesQuery,
  PauseClosed,
  PauseCreated,
  PauseInput,
  PauseKey,
  PausePage,
  PauseView,
  PendingDecisions,
  RecordedDecisionView,
  ResumeInput,
  ResumeResult,
  SweepResult,
} from './checkpoints/checkpoint-store.ts';
export type { Codec, RoundPosition, TranscriptHeader } from './checkpoints/codec.ts';
export { type CheckpointStoreOptions, createMemoryCheckpointStore } from './checkpoints/memory-store.ts';
export type {
  CheckpointPersistence,
  ListPage,
  ListQuery,
  StoredPause,
  TranscriptRead,
} from './checkpoints/persistence.ts';
export type {
  Ask,
  Closing,
  PauseRecord,
  RecordedDecision,
  RecordedExecution,
  RecordKey,
} from './checkpoints/record.ts';
export type { AnswerFailure, Violation } from './errors.ts';
export {
  AlreadyClaimedError,
  AlreadyDecidedError,
  AlreadyFinishedError,
  AlreadyResumedError,
  AlreadyVotedError,
  ApprovalExpiredError,
  ArgsChangedError,
  BadRequestError,
  ContinuationNotFoundError,
  CorruptCheckpointError,
  ERROR_FATES,
  ErrorCode,
  type ErrorFate,
  ExecutionInProgressError,
  FINAL_ERROR_NAMES,
  ForbiddenError,
  GraphCheckpointNotFoundError,
  HandbackError,
  HandoffFailedError,
  IdempotencyKeyReusedError,
  InvalidAnswerError,
  InvalidTranscriptError,
  isFinal,
  MissingTurnStateError,
  NoChannelError,
  NotAnApproverError,
  NotClaimedError,
  NotDispatchedError,
  OpenPauseExistsError,
  PauseCancelledError,
  PauseExpiredError,
  PauseNotFoundError,
  PauseOpenError,
  PayloadTooLargeError,
  PolicyEvaluationError,
  PolicyForbidsError,
  RecipientNotAllowedError,
  SelfDecisionError,
  StorageUnavailableError,
  UnknownPersonError,
  UnsupportedRecordError,
} from './errors.ts';
export { checkTranscript } from './rehydrate/check-transcript.ts';
export {
  type AnswerDecision,
  type ApproveDecision,
  type AskRule,
  applyDecisions,
  type DecidablePause,
  type DecidedRound,
  type Decision,
  type DispatchCall,
  type EditDecision,
  REJECTED,
  type RejectDecision,
  rejectionText,
} from './rehydrate/decisions.ts';
export type { ToolCall } from './rehydrate/formats/format.ts';
export { isFormatName } from './rehydrate/formats/index.ts';
export { NOT_DISPATCHED, type PauseLike, rehydrate } from './rehydrate/rehydrate.ts';
export { appendResults, type ToolResult } from './rehydrate/results.ts';
export {
  isRejectionText,
  POLICY_ERROR_REJECTED,
  policyDefaultText,
  policyRejectionText,
} from './rehydrate/texts.ts';
export {
  ASK_KINDS,
  type AskKind,
  DECISION_KINDS,
  type DecisionKind,
  EXECUTION_STATUSES,
  type ExecutionStatus,
  FORMAT_NAMES,
  type FormatName,
  LIMITS,
  LifecycleType,
  ON_EXPIRY,
  type OnExpiry,
  OUTCOMES,
  type Outcome,
  PAUSE_STATUSES,
  type PauseStatus,
  PRINCIPAL_KINDS,
  type PrincipalKind,
  SCOPES,
  type Scope,
  VIAS,
  type Via,
} from './vocabulary.ts';
