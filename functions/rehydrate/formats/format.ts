import type { Violation } from '../../errors.ts';
import type { ToolCall } from '../../wire.ts';
import type * as z from '../../zod.ts';

export type { ToolCall };

/** The paused round: the last assistant message of a transcript and the tool calls it made. */
export interface PausedRound {
  /** Index of the assistant message (openai-responses: of the first item of the last model-output run). */
  start: number;
  /** Every call of the round, in the order the assistant made them. */
  calls: ToolCall[];
  /** Ids of the round's calls that already have a result in the transcript. */
  answered: ReadonlySet<string>;
}

/** A result to add to the transcript: the call it answers and its text. */
export interface NewResult {
  call: ToolCall;
  text: string;
  /**
   * Marked as a failure where the format can say so (§3.8): a call not dispatched or rejected, or an agent's result
   * with `isError`. An answer is never a failure.
   */
  failed: boolean;
}

/** The words around a paused round that a person deciding needs: what the user last said, what the assistant said. */
export interface TurnText {
  /** The text of the last user message before the paused round that has any. */
  user?: string;
  /** The assistant's text in the paused round. */
  assistant?: string;
}

/**
 * One message format: everything that differs between providers lives behind this interface, in one module per
 * format. The rules that are the same for all (§3, §9: which calls get which result, in which order, what an edit
 * does) live in `rehydrate.ts` and `decisions.ts`; the table of formats is `formats/index.ts`.
 *
 * Every method takes messages that passed `message`, never mutates them, and copies only what it changes.
 */
export interface MessageFormat<M = unknown> {
  /** Schema of one message. Objects are loose: unknown fields are allowed, and kept because the input is never rewritten. */
  readonly message: z.ZodMiniType<M>;
  /**
   * Finds the paused round. Throws `InvalidTranscriptError` (rule `paused-round`) when the transcript has no
   * assistant message with tool calls at the end, or something other than that round's results follows it.
   */
  findRound(messages: readonly M[]): PausedRound;
  /**
   * A new array: the input's messages plus `results` (given in call order, each for a call without a result), placed
   * as the format requires (§3.7), each where call order puts it among the round's results — between results
   * already there when need be (§9).
   */
  appendResults(messages: readonly M[], round: PausedRound, results: readonly NewResult[]): M[];
  /**
   * A new array whose paused round's calls named in `edits` carry the new arguments, in the format's own encoding
   * (and in every raw copy the message keeps); names, ids and every other field unchanged.
   */
  withArgs(messages: readonly M[], round: PausedRound, edits: ReadonlyMap<string, Record<string, unknown>>): M[];
  /** The strict transcript check (§4) of schema-valid messages: `[]` when the provider would accept them. */
  check(messages: readonly M[]): Violation[];
  /** The text parts around the paused round (no tool results, no images, no reasoning), uncut. */
  context(messages: readonly M[], round: PausedRound): TurnText;
  /** Why the provider cannot carry this result text, or `undefined` when it can (§3.8). */
  refuseAnswerText?(text: string): string | undefined;
}

/** The rule names a violation can carry; the sentence beside each is worded after the provider's own error text. */
export const Rule = {
  /** A message does not have the format's shape (a missing or ill-typed field). */
  MessageShape: 'message-shape',
  /** A tool call has no result where the provider looks for it. */
  MissingResult: 'missing-result',
  /** A result answers no call of the round it belongs to (or a call already answered). */
  OrphanResult: 'orphan-result',
  /** Two calls share an id (within a round; openai-responses: within the transcript). */
  DuplicateCallId: 'duplicate-call-id',
  /** Results are not where the provider pairs them: right after their round, result blocks first. */
  ResultPlacement: 'result-placement',
  /** A call id has characters or a length the provider refuses. */
  CallId: 'call-id',
  /** Roles out of the provider's order (bedrock-converse alternation, gemini call turns). */
  RoleOrder: 'role-order',
  /** gemini: function calls and function responses mixed in one turn. */
  MixedFunctionParts: 'mixed-function-parts',
  /** Empty text content where the provider rejects it. */
  EmptyText: 'empty-text',
  /** At pause time: the paused round is not the last assistant message, or other messages follow it. */
  PausedRound: 'paused-round',
} as const;
export type Rule = (typeof Rule)[keyof typeof Rule];
