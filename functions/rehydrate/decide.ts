import { InvalidAnswerError } from '../errors.ts';
import { parseInput } from '../inputs.ts';
import { type AskKind, unhandled } from '../vocabulary.ts';
import type { AnswerDecision, ApproveDecision, Decision, DispatchCall, EditDecision, RejectDecision } from '../wire.ts';
import { roundDecisions } from '../wire-decisions.ts';
import { listSome, reservedById } from './core.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './formats/format.ts';
import { badRequest } from './formats/shared.ts';
import { NOT_DISPATCHED, parsedAnswerText, rejectionText } from './texts.ts';

export { REJECTED, rejectionText } from './texts.ts';

export type { AnswerDecision, ApproveDecision, Decision, DispatchCall, EditDecision, RejectDecision };

/*
 * The rules of decisions (§9) over a format module given as an argument: what the checkpoint service runs with the
 * pause's format loaded on first use. `decisions.ts` adds the library's `applyDecisions`, which looks the format up.
 */

/** One ask of a pause, as far as the rules of decisions go. */
export interface AskRule {
  toolCallId: string;
  kind: AskKind;
  /** Whether an `approval` ask may be approved with edited arguments; default `true`. */
  editable?: boolean;
}

/** What decisions make of a paused round. */
export interface DecidedRound {
  messages: unknown[];
  /** The approved and edited calls, in call order. */
  dispatch: DispatchCall[];
}

/** The decisions of one round, checked: the results to add, the calls to dispatch, the arguments to replace. */
export interface Plan {
  /** The result text of each call settled with one, and whether it is a failure. */
  settled: Map<string, { text: string; failed: boolean }>;
  /** The approved calls, with their new arguments when edited. */
  approved: Map<string, { args?: Record<string, unknown> }>;
}

/** Parses decisions with their one schema (`wire.ts`): what every door that takes decisions from a caller runs first. */
export function parseDecisions(decisions: unknown): Decision[] {
  return parseInput(roundDecisions, decisions, 'decisions', '/decisions');
}

/**
 * Checks decisions against the paused round and, when given, the pause's asks (§9), before anything is written:
 * first their shape (`parseDecisions`: `BadRequestError` naming each bad field, `InvalidAnswerError` for edited args
 * that are not a JSON object or an answer that is not JSON, `PayloadTooLargeError` past 256 KB), then the rules of
 * `plan`.
 */
export function checkDecisions(
  format: MessageFormat,
  round: PausedRound,
  asks: readonly AskRule[] | undefined,
  decisions: unknown,
): void {
  plan(format, round, asks, parseDecisions(decisions));
}

/**
 * Decisions applied to a trusted transcript (one validated at pause time and read back from a checkpoint whose hash
 * matched): the earlier messages are not checked again, and the work is linear in the round. Decided calls get their
 * results (answers, rejections), edited calls their new arguments, approved calls nothing (they are in `dispatch`),
 * and every other reserved call `NOT_DISPATCHED`, marked as a failure. `roundStart` is the index of the paused
 * round's first message: every message before it is the input's own, unchanged. The decisions are the store's own
 * (parsed when they were taken), held to `plan`'s rules without asks; `rejections` gives, by `toolCallId`, the text
 * of a rejection whose words are not a person's.
 */
export function rebuildWithDecisions(
  format: MessageFormat,
  messages: readonly unknown[],
  decisions: readonly Decision[],
  rejections?: ReadonlyMap<string, string>,
): DecidedRound & { roundStart: number } {
  const round = format.findRound(messages);
  const planned = plan(format, round, undefined, decisions);
  // A rejection with words of its own (§19: a policy's, never read as a person's) replaces `REJECTED`.
  for (const [toolCallId, text] of rejections ?? []) {
    if (planned.settled.get(toolCallId)?.failed === true) planned.settled.set(toolCallId, { text, failed: true });
  }
  return { ...build(format, messages, round, planned), roundStart: round.start };
}

/**
 * The rules between parsed decisions, the paused round and, when given, the pause's asks (§9), turned into what the
 * rebuild writes: `BadRequestError` (naming the `toolCallId`) for a call that is not reserved or not an ask, of the
 * wrong kind (an answer for an `approval` ask, an approval or edit for an `answer` ask), or two decisions about one
 * call; `InvalidAnswerError` for an edit of an ask that is not editable, or an answer the format cannot carry
 * (bedrock-converse: the empty string).
 */
export function plan(
  format: MessageFormat,
  round: PausedRound,
  asks: readonly AskRule[] | undefined,
  decisions: readonly Decision[],
): Plan {
  const reserved = reservedById(round);
  const askOf = asks === undefined ? undefined : new Map(asks.map((ask) => [ask.toolCallId, ask]));
  const settled: Plan['settled'] = new Map();
  const approved: Plan['approved'] = new Map();
  decisions.forEach((decision, i) => {
    const at = `/decisions/${i}`;
    const { toolCallId } = decision;
    const name = JSON.stringify(toolCallId);
    const ask = askOf?.get(toolCallId);
    if (askOf !== undefined && ask === undefined) {
      const message = `decisions[${i}]: ${name} is not an ask of this pause; its asks: ${listSome(askOf.keys())}.`;
      throw badRequest(message, `${at}/toolCallId`);
    }
    if (!reserved.has(toolCallId)) {
      throw badRequest(
        `decisions[${i}]: toolCallId ${name} is not a reserved call of the paused round; reserved calls: ${listSome(reserved.keys())}.`,
        `${at}/toolCallId`,
      );
    }
    if (settled.has(toolCallId) || approved.has(toolCallId)) {
      throw badRequest(`decisions[${i}]: two decisions for ${name}; decide each call once.`, `${at}/toolCallId`);
    }
    if ('answer' in decision) {
      if (ask !== undefined && ask.kind !== 'answer') {
        throw badRequest(`decisions[${i}]: ${name} is an approval ask; approve, edit or reject it.`, `${at}/answer`);
      }
      settled.set(toolCallId, { text: parsedAnswerText(format, decision.answer, `${at}/answer`), failed: false });
      return;
    }
    const approvalOnly = () => {
      if (ask !== undefined && ask.kind !== 'approval') {
        throw badRequest(`decisions[${i}]: ${name} is an answer ask; answer or reject it.`, `${at}/decision`);
      }
    };
    // What each kind does to the round: a rejection is the call's result; an approval (edited or not) dispatches it.
    switch (decision.decision) {
      case 'reject':
        settled.set(toolCallId, { text: rejectionText(decision.reason), failed: true });
        return;
      case 'approve':
        approvalOnly();
        approved.set(toolCallId, {});
        return;
      case 'edit':
        approvalOnly();
        if (ask?.editable === false) {
          const message = `decisions[${i}]: ${name} may be approved or rejected, not edited.`;
          throw new InvalidAnswerError(message, [{ path: `${at}/args`, message }]);
        }
        approved.set(toolCallId, { args: decision.args });
        return;
      default:
        unhandled(decision, 'decision kind');
    }
  });
  return { settled, approved };
}

/** The transcript with the plan written in, and the calls to dispatch. */
export function build(
  format: MessageFormat,
  messages: readonly unknown[],
  round: PausedRound,
  decided: Plan,
): DecidedRound {
  const results: NewResult[] = [];
  const dispatch: DispatchCall[] = [];
  const edits = new Map<string, Record<string, unknown>>();
  for (const call of round.calls) {
    if (round.answered.has(call.id)) continue;
    const approval = decided.approved.get(call.id);
    if (approval !== undefined) {
      if (approval.args !== undefined) edits.set(call.id, approval.args);
      dispatch.push(dispatchOf(call, approval.args));
      continue;
    }
    const result = decided.settled.get(call.id) ?? { text: NOT_DISPATCHED, failed: true };
    results.push({ call, ...result });
  }
  const edited = edits.size > 0 ? format.withArgs(messages, round, edits) : messages;
  return {
    messages: results.length > 0 ? format.appendResults(edited, round, results) : edited.slice(),
    dispatch,
  };
}

function dispatchOf(call: ToolCall, args: Record<string, unknown> | undefined): DispatchCall {
  return { toolCallId: call.id, name: call.name, args: args ?? call.args };
}
