import { InvalidAnswerError } from '../errors.ts';
import { type AskKind, DECISION_KINDS, isOneOf, LIMITS, unhandled } from '../vocabulary.ts';
import type { AnswerDecision, ApproveDecision, Decision, DispatchCall, EditDecision, RejectDecision } from '../wire.ts';
import { listSome, reservedById } from './core.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './formats/format.ts';
import { badRequest, isRecord } from './formats/shared.ts';
import { answerText, NOT_DISPATCHED, rejectionText, resultText } from './texts.ts';

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

/** The largest `reason` a rejection carries, in UTF-8 bytes. */
export const MAX_REASON_BYTES = LIMITS.reasonBytes;

/** The decisions of one round, checked: the results to add, the calls to dispatch, the arguments to replace. */
export interface Plan {
  /** The result text of each call settled with one, and whether it is a failure. */
  settled: Map<string, { text: string; failed: boolean }>;
  /** The approved calls, with their new arguments when edited. */
  approved: Map<string, { args?: Record<string, unknown> }>;
}

/**
 * Checks decisions against the paused round and, when given, the pause's asks (§9), before anything is written.
 * Throws `BadRequestError` (naming the `toolCallId`) for a decision that is malformed, for a call that is not
 * reserved or not an ask, of the wrong kind (an answer for an `approval` ask, an approval or edit for an `answer`
 * ask), for two decisions about one call, or for a `reason` that is not a string of at most 2 KB; and
 * `InvalidAnswerError` for an edit of an ask that is not editable, edited `args` that are not a JSON object, or an
 * answer that is not JSON or that the format cannot carry (bedrock-converse: the empty string).
 */
export function checkDecisions(
  format: MessageFormat,
  round: PausedRound,
  asks: readonly AskRule[] | undefined,
  decisions: readonly Decision[],
): void {
  plan(format, round, asks, decisions);
}

/**
 * Decisions applied to a trusted transcript (one validated at pause time and read back from a checkpoint whose hash
 * matched): the earlier messages are not checked again, and the work is linear in the round. Decided calls get their
 * results (answers, rejections), edited calls their new arguments, approved calls nothing (they are in `dispatch`),
 * and every other reserved call `NOT_DISPATCHED`, marked as a failure. `roundStart` is the index of the paused
 * round's first message: every message before it is the input's own, unchanged. Checks the decisions as
 * `checkDecisions` does (without asks).
 */
export function rebuildWithDecisions(
  format: MessageFormat,
  messages: readonly unknown[],
  decisions: readonly Decision[],
): DecidedRound & { roundStart: number } {
  const round = format.findRound(messages);
  return { ...build(format, messages, round, plan(format, round, undefined, decisions)), roundStart: round.start };
}

/** Checks the decisions (see `checkDecisions`) and turns them into what the rebuild writes (`applyDecisions` too). */
export function plan(
  format: MessageFormat,
  round: PausedRound,
  asks: readonly AskRule[] | undefined,
  decisions: readonly Decision[],
): Plan {
  if (!Array.isArray(decisions) || decisions.length === 0) {
    throw badRequest('decisions must be a non-empty array of decisions.', '/decisions');
  }
  const reserved = reservedById(round);
  const askOf = asks === undefined ? undefined : new Map(asks.map((ask) => [ask.toolCallId, ask]));
  const settled: Plan['settled'] = new Map();
  const approved: Plan['approved'] = new Map();
  (decisions as unknown[]).forEach((raw, i) => {
    const at = `/decisions/${i}`;
    if (!isRecord(raw)) throw badRequest(`decisions[${i}] must be an object.`, at);
    const { toolCallId } = raw;
    if (typeof toolCallId !== 'string')
      throw badRequest(`decisions[${i}] needs a toolCallId string.`, `${at}/toolCallId`);
    const name = JSON.stringify(toolCallId);
    if (!reserved.has(toolCallId)) {
      throw badRequest(
        `decisions[${i}]: toolCallId ${name} is not a reserved call of the paused round; reserved calls: ${listSome(reserved.keys())}.`,
        `${at}/toolCallId`,
      );
    }
    const ask = askOf?.get(toolCallId);
    if (askOf !== undefined && ask === undefined) {
      throw badRequest(`decisions[${i}]: ${name} is not an ask of this pause.`, `${at}/toolCallId`);
    }
    if (settled.has(toolCallId) || approved.has(toolCallId)) {
      throw badRequest(`decisions[${i}]: two decisions for ${name}; decide each call once.`, `${at}/toolCallId`);
    }
    const hasAnswer = Object.hasOwn(raw, 'answer');
    const { decision } = raw;
    if (hasAnswer === (decision !== undefined)) {
      throw badRequest(
        `decisions[${i}] for ${name} must carry either an answer or a decision (approve, edit or reject).`,
        at,
      );
    }
    if (hasAnswer) {
      if (ask !== undefined && ask.kind !== 'answer') {
        throw badRequest(`decisions[${i}]: ${name} is an approval ask; approve, edit or reject it.`, `${at}/answer`);
      }
      settled.set(toolCallId, { text: resultText(format, raw.answer, `${at}/answer`), failed: false });
      return;
    }
    if (!isOneOf(DECISION_KINDS, decision)) {
      throw badRequest(
        `decisions[${i}] for ${name} has the unknown decision ${JSON.stringify(decision)}: use approve, edit or reject.`,
        `${at}/decision`,
      );
    }
    const approvalOnly = () => {
      if (ask !== undefined && ask.kind !== 'approval') {
        throw badRequest(`decisions[${i}]: ${name} is an answer ask; answer or reject it.`, `${at}/decision`);
      }
    };
    // What each kind does to the round: a rejection is the call's result; an approval (edited or not) dispatches it.
    switch (decision) {
      case 'reject':
        settled.set(toolCallId, { text: rejectionText(checkedReason(raw.reason, i, name)), failed: true });
        return;
      case 'approve':
        approvalOnly();
        approved.set(toolCallId, {});
        return;
      case 'edit':
        approvalOnly();
        if (ask?.editable === false) {
          throw invalidAnswer(`decisions[${i}]: ${name} may be approved or rejected, not edited.`, `${at}/args`);
        }
        approved.set(toolCallId, { args: checkedArgs(raw.args, i, name) });
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

function checkedReason(reason: unknown, i: number, name: string): string | undefined {
  if (reason === undefined) return undefined;
  if (typeof reason !== 'string') {
    throw badRequest(`decisions[${i}]: the reason for rejecting ${name} must be a string.`, `/decisions/${i}/reason`);
  }
  const bytes = Buffer.byteLength(reason, 'utf8');
  if (bytes > MAX_REASON_BYTES) {
    throw badRequest(
      `decisions[${i}]: the reason for rejecting ${name} is ${bytes} bytes, over the limit of ${MAX_REASON_BYTES}.`,
      `/decisions/${i}/reason`,
    );
  }
  return reason;
}

function checkedArgs(args: unknown, i: number, name: string): Record<string, unknown> {
  const path = `/decisions/${i}/args`;
  if (!isRecord(args)) {
    throw invalidAnswer(`decisions[${i}]: the edited args of ${name} must be a JSON object.`, path);
  }
  answerText(args, path);
  return args;
}

function invalidAnswer(message: string, path: string): InvalidAnswerError {
  return new InvalidAnswerError(message, [{ path, message }]);
}
