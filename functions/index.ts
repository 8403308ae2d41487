/**
 * Handback, the library: rebuild a paused agent turn's transcript with a person's answer (`rehydrate`) or decisions
 * (`applyDecisions`), add the agent's own tool results (`appendResults`), check a transcript as the provider would
 * (`checkTranscript`), the DynamoDB checkpoint store, and the errors.
 */

export type {
  CheckpointStore,
  Continuation,
  ContinuationKey,
  JsonSchema,
  ListPausesQuery,
  PauseCreated,
  PauseInput,
  PauseKey,
  PausePage,
  PauseStatus,
  PauseView,
  ResumeInput,
  ResumeResult,
} from './checkpoints/checkpoint-store.ts';
export {
  createDynamoDBCheckpointStore,
  DynamoDBCheckpointStore,
  type DynamoDBCheckpointStoreOptions,
} from './checkpoints/dynamodb-store.ts';
export { createTableInput, TABLE } from './checkpoints/table.ts';
export { LIMITS } from './checkpoints/validation.ts';
export type { AnswerFailure, Violation } from './errors.ts';
export {
  AlreadyResumedError,
  BadRequestError,
  ContinuationNotFoundError,
  CorruptCheckpointError,
  ErrorCode,
  HandbackError,
  HandoffFailedError,
  InvalidAnswerError,
  InvalidTranscriptError,
  MissingTurnStateError,
  OpenPauseExistsError,
  PauseExpiredError,
  PauseNotFoundError,
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
