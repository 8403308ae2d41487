/**
 * Handback, the library: rebuild a paused agent turn's transcript with a person's answer (`rehydrate`), check a
 * transcript as the provider would (`checkTranscript`), the DynamoDB checkpoint store, and the errors.
 */
export {
  AlreadyResumedError,
  BadRequestError,
  ContinuationNotFoundError,
  CorruptCheckpointError,
  ErrorCode,
  HandbackError,
  InvalidAnswerError,
  InvalidTranscriptError,
  MissingTurnStateError,
  OpenPauseExistsError,
  PauseExpiredError,
  PauseNotFoundError,
} from './errors.ts';
export type { AnswerFailure, Violation } from './errors.ts';
export { checkTranscript } from './rehydrate/check-transcript.ts';
export { FORMAT_NAMES, type FormatName, isFormatName } from './rehydrate/formats/index.ts';
export type { ToolCall } from './rehydrate/formats/format.ts';
export { NOT_DISPATCHED, type PauseLike, rehydrate } from './rehydrate/rehydrate.ts';
