import type { Violation } from '../../errors.ts';
import type { NewResult, PausedRound, ToolCall } from './format.ts';
import { Rule } from './format.ts';
import { callIndexes, duplicates, insertionSlots, interleave, listIds, pausedRoundError, violation } from './shared.ts';

/**
 * The rules shared by the formats that answer each call with its own tool message right after the round
 * (openai-chat, langchain): where a round is, and how its tool messages pair with its calls. Each format says how to
 * read its messages and words the errors after its provider.
 */
export interface ToolMessageFamily<M> {
  /** What the format calls the model's message in its errors (`assistant`, `ai`). */
  assistantWord: string;
  /** Whether `message` is the model's message (with or without calls). */
  isAssistant(message: M): boolean;
  /** The calls of a model message (never asked of another), `[]` when it made none. */
  callsOf(message: M): ToolCall[];
  /** The ids of a model message's calls, `[]` when it made none (cheaper than `callsOf`: nothing is parsed). */
  callIdsOf(message: M): string[];
  /** The call id a tool message answers, `undefined` for any other message. */
  resultIdOf(message: M): string | undefined;
  /** The provider's wording of each broken rule. */
  words: {
    missing(ids: string): string;
    orphan(index: number, id: string): string;
    orphanInRound(index: number, id: string, roundIndex: number): string;
    duplicate(roundIndex: number, id: string): string;
  };
}

/** The paused round: the last model message, which must have made calls and be followed by its tool messages only. */
export function findToolMessageRound<M>(family: ToolMessageFamily<M>, messages: readonly M[]): PausedRound {
  const start = messages.findLastIndex((m) => family.isAssistant(m));
  const calls = start < 0 ? [] : family.callsOf(messages[start] as M);
  if (calls.length === 0) {
    throw pausedRoundError(
      Math.max(start, messages.length - 1),
      start < 0
        ? `The transcript has no ${family.assistantWord} message, so there is no paused round.`
        : `The last ${family.assistantWord} message (messages[${start}]) made no tool calls, so there is no paused round.`,
    );
  }
  const ids = new Set(calls.map((call) => call.id));
  const answered = new Set<string>();
  for (let index = start + 1; index < messages.length; index++) {
    const id = family.resultIdOf(messages[index] as M);
    if (id === undefined || !ids.has(id)) {
      throw pausedRoundError(
        index,
        `messages[${index}] follows the paused round (messages[${start}]) but is not one of its tool results; only the round's tool messages may follow it.`,
      );
    }
    answered.add(id);
  }
  return { start, calls, answered };
}

/**
 * The round's new tool messages: right after the round, each where call order puts it among the tool messages the
 * round already has (§3.6, §9). Only the results are new; every other message is kept by reference.
 */
export function appendToolMessages<M>(
  family: ToolMessageFamily<M>,
  messages: readonly M[],
  round: PausedRound,
  results: readonly NewResult[],
  toolMessage: (result: NewResult) => M,
): M[] {
  const indexOf = callIndexes(round);
  // findRound let through only tool messages of the round's calls after it.
  const existing = messages.slice(round.start + 1);
  const slots = insertionSlots(
    existing.map((message) => indexOf(family.resultIdOf(message) as string)),
    results.map((result) => indexOf(result.call.id)),
  );
  return messages.slice(0, round.start + 1).concat(interleave(existing, slots, results.map(toolMessage)));
}

/** The strict check (§4): each call answered by exactly one tool message right after its round, nothing else. */
export function checkToolMessageRounds<M>(family: ToolMessageFamily<M>, messages: readonly M[]): Violation[] {
  const violations: Violation[] = [];
  let index = 0;
  while (index < messages.length) {
    const current = messages[index] as M;
    const orphan = family.resultIdOf(current);
    if (orphan !== undefined) {
      violations.push(violation(Rule.OrphanResult, index, family.words.orphan(index, orphan)));
      index++;
      continue;
    }
    const ids = family.isAssistant(current) ? family.callIdsOf(current) : [];
    if (ids.length === 0) {
      index++;
      continue;
    }
    const roundIndex = index;
    for (const id of duplicates(ids)) {
      violations.push(violation(Rule.DuplicateCallId, roundIndex, family.words.duplicate(roundIndex, id)));
    }
    const pending = new Set(ids);
    index++;
    while (index < messages.length) {
      const id = family.resultIdOf(messages[index] as M);
      if (id === undefined) break;
      if (!pending.delete(id)) {
        violations.push(violation(Rule.OrphanResult, index, family.words.orphanInRound(index, id, roundIndex)));
      }
      index++;
    }
    if (pending.size > 0) {
      violations.push(violation(Rule.MissingResult, roundIndex, family.words.missing(listIds(pending))));
    }
  }
  return violations;
}
