import type { Violation } from '../../errors.ts';
import type { NewResult, PausedRound, ToolCall } from './format.ts';
import { Rule } from './format.ts';
import {
  callIndexes,
  insertionSlots,
  interleave,
  listIds,
  pausedRoundError,
  replaced,
  violation,
  withMessage,
} from './shared.ts';

/**
 * The rules shared by the formats whose round's results are blocks at the start of the ONE user message right after
 * the assistant message (anthropic, bedrock-converse): where a round is, how new results join that message, and how
 * result blocks pair with the calls of the round before them. Each format says how to read its blocks, adds its own
 * checks (roles, blank text, id syntax) and words the errors after its provider.
 */
export interface ResultMessageFamily<M, B> {
  /** The provider's names of a call block, a result block and a call's id, for the pause-time errors. */
  names: { call: string; result: string; id: string };
  /** Whether `message` is the model's (else the user's). */
  isAssistant(message: M): boolean;
  /** The content blocks of a message (`[]` for string content). */
  blocksOf(message: M): readonly B[];
  /** The call a block makes, or `undefined` for any other block. */
  callOf(block: B): ToolCall | undefined;
  /** The call id a result block answers, or `undefined` for any other block. */
  resultIdOf(block: B): string | undefined;
  /** A copy of a call block with `args` as its input. */
  withInput(block: B, args: Record<string, unknown>): B;
  /** The result block of a new result. */
  resultBlock(result: NewResult): B;
  /** A new user message holding only `blocks`. */
  resultMessage(blocks: B[]): M;
  /** A copy of `message` with `blocks` as its content. */
  withBlocks(message: M, blocks: B[]): M;
  /** The checks of one message besides pairing (roles, empty text), pushed onto `violations`. */
  checkMessage(messages: readonly M[], index: number, violations: Violation[]): void;
  /** The checks of one call id (syntax, length), pushed onto `violations`; `k` is the block's index. */
  checkCallId(id: string, index: number, k: number, violations: Violation[]): void;
  /** The provider's wording of each broken pairing rule. */
  words: {
    /** Result blocks of message `index` that answer no open call (`k`: block index). */
    orphans(index: number, strays: Array<{ k: number; id: string }>): Violation[];
    /** Calls of message `index` that repeat an id of the same message. */
    duplicates(index: number, repeats: Array<{ k: number; id: string }>): Violation[];
    /** `count` results of message `index` that come after other content. */
    late(index: number, count: number): string;
    /** Calls of the assistant message `index` with no result in the next message. */
    missing(index: number, ids: string): string;
  };
}

/** How many result blocks open `blocks`: new results go right after them. */
function leadingResults<M, B>(family: ResultMessageFamily<M, B>, blocks: readonly B[]): number {
  const first = blocks.findIndex((block) => family.resultIdOf(block) === undefined);
  return first < 0 ? blocks.length : first;
}

/**
 * The paused round: the last assistant message, which must have made calls; only the one user message of its results
 * (results of this round first, then any other content) may follow it.
 */
export function findResultMessageRound<M, B>(family: ResultMessageFamily<M, B>, messages: readonly M[]): PausedRound {
  const { names } = family;
  const start = messages.findLastIndex((m) => family.isAssistant(m));
  const calls = start < 0 ? [] : family.blocksOf(messages[start] as M).flatMap((b) => family.callOf(b) ?? []);
  if (calls.length === 0) {
    throw pausedRoundError(
      Math.max(start, messages.length - 1),
      start < 0
        ? 'The transcript has no assistant message, so there is no paused round.'
        : `The last assistant message (messages[${start}]) has no ${names.call} blocks, so there is no paused round.`,
    );
  }
  const ids = new Set(calls.map((call) => call.id));
  const answered = new Set<string>();
  if (start + 1 < messages.length) {
    const index = start + 1;
    const results = family.blocksOf(messages[index] as M).flatMap((b) => family.resultIdOf(b) ?? []);
    const stray = results.find((id) => !ids.has(id));
    // The user message after the round may carry text after its results, but it must carry results of this round:
    // a user message with none is not the round's result message, and a result of another call cannot be paired.
    if (results.length === 0 || stray !== undefined || index + 1 < messages.length) {
      throw pausedRoundError(
        results.length === 0 || stray !== undefined ? index : index + 1,
        `Only the paused round's ${names.result} blocks (then any other content of that same user message) may follow the paused round (messages[${start}]); ${
          results.length === 0
            ? `messages[${index}] holds none`
            : stray !== undefined
              ? `messages[${index}] answers ${names.id} ${stray}, which is not a call of the round`
              : `messages[${index + 1}] follows it`
        }.`,
      );
    }
    for (const id of results) answered.add(id);
  }
  return { start, calls, answered };
}

/**
 * The round's new result blocks in the user message after it: a new message, or joining the existing one among its
 * leading result blocks, each where call order puts it (§3.6, §9), before any other content of that message.
 */
export function appendToResultMessage<M, B>(
  family: ResultMessageFamily<M, B>,
  messages: readonly M[],
  round: PausedRound,
  results: readonly NewResult[],
): M[] {
  const blocks = results.map((result) => family.resultBlock(result));
  const joined = messages[round.start + 1];
  if (joined === undefined) return [...messages, family.resultMessage(blocks)];
  // findRound let through only a user message whose content is an array opening with results of the round.
  const content = family.blocksOf(joined);
  const at = leadingResults(family, content);
  const indexOf = callIndexes(round);
  const leading = content.slice(0, at);
  const slots = insertionSlots(
    leading.map((block) => indexOf(family.resultIdOf(block) as string)),
    results.map((result) => indexOf(result.call.id)),
  );
  return withMessage(
    messages,
    round.start + 1,
    family.withBlocks(joined, interleave(leading, slots, blocks).concat(content.slice(at))),
  );
}

/** The assistant message of the round with the edited calls' inputs replaced (a copy of it and of those blocks). */
export function withResultMessageArgs<M, B>(
  family: ResultMessageFamily<M, B>,
  messages: readonly M[],
  round: PausedRound,
  edits: ReadonlyMap<string, Record<string, unknown>>,
): M[] {
  const assistant = messages[round.start] as M;
  const blocks = replaced(family.blocksOf(assistant), (block) => {
    const call = family.callOf(block);
    const args = call === undefined ? undefined : edits.get(call.id);
    return args === undefined ? undefined : family.withInput(block, args);
  });
  return withMessage(messages, round.start, family.withBlocks(assistant, blocks));
}

/** The strict check (§4) of a transcript in a result-message format. */
export function checkResultMessageRounds<M, B>(family: ResultMessageFamily<M, B>, messages: readonly M[]): Violation[] {
  const violations: Violation[] = [];
  /** Index of the user message whose leading results were paired with the round before it. */
  let paired = -1;
  messages.forEach((current, index) => {
    family.checkMessage(messages, index, violations);
    if (index !== paired) {
      const strays = family.blocksOf(current).flatMap((block, k) => {
        const id = family.resultIdOf(block);
        return id === undefined ? [] : [{ k, id }];
      });
      if (strays.length > 0) violations.push(...family.words.orphans(index, strays));
    }
    if (!family.isAssistant(current)) return;
    const pending = new Set<string>();
    const repeats: Array<{ k: number; id: string }> = [];
    family.blocksOf(current).forEach((block, k) => {
      const call = family.callOf(block);
      if (call === undefined) return;
      family.checkCallId(call.id, index, k, violations);
      if (pending.has(call.id)) repeats.push({ k, id: call.id });
      pending.add(call.id);
    });
    if (repeats.length > 0) violations.push(...family.words.duplicates(index, repeats));
    if (pending.size === 0) return;
    const next = messages[index + 1];
    if (next !== undefined && !family.isAssistant(next)) {
      paired = index + 1;
      pairResults(family, next, index + 1, pending, violations);
    }
    if (pending.size > 0) {
      violations.push(violation(Rule.MissingResult, index, family.words.missing(index, listIds(pending))));
    }
  });
  return violations;
}

/** Pairs the results of the user message after a round with its calls, deleting each answered id from `pending`. */
function pairResults<M, B>(
  family: ResultMessageFamily<M, B>,
  next: M,
  index: number,
  pending: Set<string>,
  violations: Violation[],
): void {
  const blocks = family.blocksOf(next);
  const leading = leadingResults(family, blocks);
  const strays: Array<{ k: number; id: string }> = [];
  let late = 0;
  blocks.forEach((block, k) => {
    const id = family.resultIdOf(block);
    if (id === undefined) return;
    if (!pending.delete(id)) strays.push({ k, id });
    else if (k >= leading) late++;
  });
  if (strays.length > 0) violations.push(...family.words.orphans(index, strays));
  if (late > 0) violations.push(violation(Rule.ResultPlacement, index, family.words.late(index, late)));
}
