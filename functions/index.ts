/**
 * Handback, the library: rebuild a paused agent turn's transcript with a person's answer (`rehydrate`) or decisions
 * (`applyDecisions`), add the agent's own tool results (`appendResults`), check a transcript as the provider would
 * (`checkTranscript`), the DynamoDB checkpoint store, and the errors.
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
  Continuation,
  ContinuationKey,
  DecideInput,
  DecideResult,
  JsonSchema,
  ListPausesQuery,
  PauseCreated,
  PauseInput,
  PauseKey,
  PausePage,
  PauseStatus,
  PauseView,
  PendingDecisions,
  RecordedDecisionView,
  ResumeInput,
  ResumeResult,
  SweepResult,
} from './checkpoints/checkpoint-store.ts';
export {
  createDynamoDBCheckpointStore,
  createMemoryCheckpointStore,
  type DynamoDBCheckpointStoreOptions,
  storageClientConfig,
} from './checkpoints/dynamodb-store.ts';
export type { CheckpointPersistence, ListPage, ListQuery, StoredPause } from './checkpoints/persistence.ts';
export type { Ask, AskKind, OnExpiry, Outcome, PauseRecord } from './checkpoints/record.ts';
export { LIMITS } from './checkpoints/rules.ts';
export { createTableInput, TABLE } from './checkpoints/table.ts';
export type { AnswerFailure, Violation } from './errors.ts';
export {
  AlreadyDecidedError,
  AlreadyResumedError,
  BadRequestError,
  ContinuationNotFoundError,
  CorruptCheckpointError,
  ERROR_FATES,
  ErrorCode,
  type ErrorFate,
  FINAL_ERROR_NAMES,
  HandbackError,
  HandoffFailedError,
  IdempotencyKeyReusedError,
  InvalidAnswerError,
  InvalidTranscriptError,
  isFinal,
  MissingTurnStateError,
  OpenPauseExistsError,
  PauseCancelledError,
  PauseExpiredError,
  PauseNotFoundError,
  PayloadTooLargeError,
  StorageUnavailableError,
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
export { FORMAT_NAMES, type FormatName, isFormatName } from './rehydrate/formats/index.ts';
export { NOT_DISPATCHED, type PauseLike, rehydrate } from './rehydrate/rehydrate.ts';
export { appendResults, type ToolResult } from './rehydrate/results.ts';
