import {
  AlreadyDecidedError,
  AlreadyResumedError,
  type AnswerFailure,
  BadRequestError,
  HandbackError,
  InvalidAnswerError,
  PayloadTooLargeError,
} from '../errors.ts';
import { canonicalJson, capitalize, utf8Bytes } from '../json.ts';
import type { Decision } from '../rehydrate/decisions.ts';
import { LIMITS, unhandled } from '../vocabulary.ts';
import type { Actor, AskPolicy, DecisionBody, JsonSchema } from '../wire.ts';
import { sha256 } from './codec.ts';
import { recorded } from './identity.ts';
import { type Ask, interruptIdOf, type PauseRecord, type RecordedVote } from './record.ts';
import { approvalsNeeded, argsHashOf, countingVoters, currentArgsHash, takesVotes, tallyOf, VOTES } from './tally.ts';
import { argsRefusal, voiceOf, voteRefusal } from './who-decides.ts';

/**
 * What a decision request does to a pause record (§9, §13), pure: the decisions matched to their asks, every refusal
 * decided before anything is written, votes counted, and the record the request would write. The service reads,
 * calls `recordDecisions`, and writes what it returns conditionally; a lost race runs it again on what was re-read.
 */

/** A request's decision with the ask it is for, its position, its hash, and what was recorded for it. */
export interface MatchedDecision {
  decision: Decision;
  ask: Ask;
  /** The ask's index in the pause. */
  index: number;
  /** The decision's index in the request. */
  position: number;
  hash: string;
  recorded: PauseRecord['decisions'][number];
  /** The hash of the ask's model arguments (`modelArgsHash`). */
  modelHash: string;
  /** An edit's: what the deployment's policies made of its arguments (§19), recorded with it. */
  policy?: AskPolicy;
}

/**
 * Matches each decision to its ask. The decisions passed the rules of a round (`plan`, `rehydrate/decide.ts`): each
 * names one ask of this pause, once. `hashes` are the asks' model-argument hashes (`modelHashes`).
 */
export function matchDecisions(
  record: PauseRecord,
  decisions: readonly Decision[],
  hashes: readonly string[],
): MatchedDecision[] {
  const indexOf = new Map(record.asks.map((ask, index) => [ask.toolCallId, index]));
  return decisions.map((decision, position) => {
    const index = indexOf.get(decision.toolCallId) as number;
    return {
      decision,
      ask: record.asks[index] as Ask,
      index,
      position,
      // §20 delegation: whom a decision names it for is part of it (a vote for oneself, then for another, is two).
      hash: sha256(
        canonicalJson(decision.for === undefined ? bodyOf(decision) : { ...bodyOf(decision), for: decision.for }),
      ),
      recorded: record.decisions[index],
      modelHash: hashes[index] as string,
    };
  });
}

/** Part one's answer as the decision of the pause's one `answer` ask. */
export function answerDecision(record: PauseRecord, answer: unknown): Decision[] {
  const [ask] = record.asks;
  if (record.asks.length !== 1 || ask?.kind !== 'answer') {
    const message = `this pause has ${record.asks.length} asks (${record.asks.map((a) => `${a.toolCallId}: ${a.kind}`).join(', ')}); send decisions, not an answer`;
    throw new BadRequestError(`${capitalize(message)}.`, [{ path: '/answer', message }]);
  }
  return [{ toolCallId: ask.toolCallId, answer }];
}

/** The first recorded decision a request contradicts (a different decision for an ask already decided). */
export function conflictOf(matched: readonly MatchedDecision[]): MatchedDecision | undefined {
  return matched.find((match) => match.recorded !== undefined && match.recorded.hash !== match.hash);
}

/** The error of a request that contradicts a recorded decision: part one's `already_resumed`, else `already_decided`. */
export function conflictError(record: PauseRecord, conflict: MatchedDecision, answerForm: boolean): Error {
  return answerForm
    ? new AlreadyResumedError(record.runId, interruptIdOf(record), record.closing?.continuationId ?? '')
    : new AlreadyDecidedError(record.runId, interruptIdOf(record), conflict.ask.toolCallId);
}

/**
 * Throws the first refusal of any decision in the request (§13): a request with one refused decision records none.
 * Answers, by ask index, the delegators a delegate decides for where they may not in their own right (§20).
 */
export function checkAuthority(
  record: PauseRecord,
  matched: readonly MatchedDecision[],
  actor: Actor,
): Map<number, Actor> {
  const delegated = new Map<number, Actor>();
  for (const match of matched) {
    const voice = voiceOf(record, match.index, actor, match.decision.for);
    if (voice instanceof HandbackError) throw voice;
    if (voice.for !== undefined) delegated.set(match.index, voice.for);
  }
  return delegated;
}

/**
 * The decisions of a request still to record (§13, §16), of those not recorded yet (`fresh`): a vote the same person
 * already cast through the same door is a replay and dropped; any other vote by that person, through any door, is
 * `already_voted`; an approve or edit of other arguments than the ask's current ones is `args_changed`. Throws the
 * first refusal, before anything is written.
 */
export function checkVotesAndArgs(
  record: PauseRecord,
  fresh: readonly MatchedDecision[],
  actor: Actor,
): MatchedDecision[] {
  const toRecord: MatchedDecision[] = [];
  for (const match of fresh) {
    const quorum = takesVotes(match.ask, record.votes?.[match.index]) && !('answer' in match.decision);
    if (quorum) {
      const voted = voteRefusal(record, match.index, actor, match.hash);
      if (voted === 'replay') continue;
      if (voted !== undefined) throw voted;
    }
    const current = quorum ? currentArgsHash(record.votes?.[match.index], match.modelHash) : match.modelHash;
    const changed = argsRefusal(record, match.ask, match.decision, current);
    if (changed !== undefined) throw changed;
    toRecord.push(match);
  }
  return toRecord;
}

/** The decisions of a request that still need a schema check: an answer with `answerSchema`, an edit with `argsSchema`. */
export function needsSchemaCheck(match: MatchedDecision): boolean {
  const { ask, decision } = match;
  if ('answer' in decision) return ask.answerSchema !== undefined;
  return decision.decision === 'edit' && ask.argsSchema !== undefined;
}

/**
 * Checks an answer against its `answerSchema`, or edited args against their `argsSchema`; each failure's path starts
 * at `at` (`/decisions/<position>/answer|args` in the request; part one's paths stay relative to its `answer`), so a
 * client deciding several asks at once knows which one to correct.
 */
export function checkAgainstAskSchema(
  schemaFailures: (schema: JsonSchema, value: unknown) => AnswerFailure[],
  match: MatchedDecision,
  at: string | undefined,
): void {
  const { ask, decision } = match;
  const refuse = (schema: JsonSchema, value: unknown, field: 'answer' | 'args', what: string) => {
    const failures = schemaFailures(schema, value).map((failure) => ({
      path: at === undefined ? failure.path : `${at}/${field}${failure.path}`,
      message: failure.message,
    }));
    if (failures.length === 0) return;
    throw new InvalidAnswerError(`${what}: ${failures.map((f) => `${f.path} ${f.message}`).join('; ')}.`, failures);
  };
  if ('answer' in decision && ask.answerSchema !== undefined) {
    refuse(
      ask.answerSchema,
      decision.answer,
      'answer',
      `The answer to ${ask.toolCallId} does not match its answerSchema`,
    );
  }
  if ('decision' in decision && decision.decision === 'edit' && ask.argsSchema !== undefined) {
    refuse(ask.argsSchema, decision.args, 'args', `The edited args of ${ask.toolCallId} do not match its argsSchema`);
  }
}

/** What recording a request's decisions makes of a record. */
export interface RecordedRequest {
  /** The record to write (revision incremented), or undefined when every decision was already recorded (a replay). */
  after: PauseRecord | undefined;
  /** Whether every ask is now decided: the write must commit the continuation. */
  complete: boolean;
}

/**
 * Records the decisions of a request that passed every check (§9, §13, §16; `checkVotesAndArgs` dropped the
 * replays). An ask without a quorum is decided by its one decision. An `approval` ask with `approvals: n` takes
 * votes: each approve or edit is a vote for a set of arguments (an edit's own, an approve's the current ones), and the
 * ask is approved once n distinct persons voted for the current arguments; an edit makes votes for other arguments
 * stop counting; one reject vetoes.
 */
export function recordDecisions(
  record: PauseRecord,
  matched: readonly MatchedDecision[],
  actor: Actor,
  nowMs: number,
  delegated: ReadonlyMap<number, Actor> = new Map(),
): RecordedRequest {
  const at = new Date(nowMs).toISOString();
  const by = recorded(actor);
  const after: PauseRecord = { ...record, decisions: [...record.decisions], rev: record.rev + 1 };
  let changed = false;
  for (const match of matched) {
    if (match.recorded !== undefined) continue;
    const body = bodyOf(match.decision);
    // §20: a delegate's decision records whom it is for.
    const delegator = delegated.get(match.index);
    const forWhom = delegator === undefined ? {} : { for: recorded(delegator) };
    // An edit's judgement goes with it (§19).
    const judged = match.policy === undefined ? {} : { policy: match.policy };
    if (!takesVotes(match.ask, after.votes?.[match.index]) || 'answer' in body) {
      after.decisions[match.index] = { body, hash: match.hash, decidedAt: at, by, ...forWhom, ...judged };
      changed = true;
      continue;
    }
    const votes = after.votes?.[match.index] ?? [];
    const argsHash = voteArgsHash(body, votes, match.modelHash);
    const vote: RecordedVote = { body, hash: match.hash, argsHash, by, ...forWhom, at, ...judged };
    const next = [...votes, vote];
    after.votes = Array.from({ length: record.asks.length }, (_, index) =>
      index === match.index ? next : after.votes?.[index],
    );
    changed = true;
    if (VOTES[body.decision] === 'vetoes') {
      after.decisions[match.index] = { body, hash: match.hash, decidedAt: at, by };
      continue;
    }
    if (countingVoters(next, match.modelHash).length >= approvalsNeeded(match.ask)) {
      const settled = settledBody(next);
      after.decisions[match.index] = {
        body: settled,
        hash: sha256(canonicalJson(settled)),
        decidedAt: at,
        by,
        ...judged,
      };
    }
  }
  if (!changed) return { after: undefined, complete: false };
  checkDecisionsSize(after);
  return { after, complete: after.decisions.every((decision) => decision !== undefined) };
}

/**
 * The votes that count on a quorum ask, as the 202 body shows them (§13): `{have, need}` per pending ask; `hashes`
 * are the asks' model-argument hashes (`modelHashes`).
 */
export function voteCounts(
  record: PauseRecord,
  hashes: readonly string[],
): Record<string, { have: number; need: number }> | undefined {
  let counts: Record<string, { have: number; need: number }> | undefined;
  record.asks.forEach((ask, index) => {
    const need = approvalsNeeded(ask);
    if (need === 1 || record.decisions[index] !== undefined) return;
    counts ??= {};
    counts[ask.toolCallId] = tallyOf(record, index, hashes[index] as string);
  });
  return counts;
}

/** The arguments a vote is for (`RecordedVote.argsHash`): an edit's own, an approve's the current ones, a veto's none. */
function voteArgsHash(body: RecordedVote['body'], votes: readonly RecordedVote[], modelHash: string): string {
  switch (body.decision) {
    case 'edit':
      return argsHashOf(body.args);
    case 'approve':
      return currentArgsHash(votes, modelHash);
    case 'reject':
      return '';
    default:
      return unhandled(body, 'decision kind');
  }
}

/** The decision a quorum settles on: the newest edit's arguments, or an approve of the model's own. */
function settledBody(votes: readonly RecordedVote[]): DecisionBody {
  for (let index = votes.length - 1; index >= 0; index--) {
    const vote = votes[index] as RecordedVote;
    if (vote.body.decision === 'edit') return { decision: 'edit', args: vote.body.args };
  }
  return { decision: 'approve' };
}

/** The decision without the ask it names, as recorded. */
export function bodyOf(decision: Decision): DecisionBody {
  if ('answer' in decision) return { answer: decision.answer };
  switch (decision.decision) {
    case 'approve':
      return { decision: 'approve' };
    case 'edit':
      return { decision: 'edit', args: decision.args };
    case 'reject':
      return decision.reason === undefined ? { decision: 'reject' } : { decision: 'reject', reason: decision.reason };
  }
}

/** Every decision and vote of a pause together stays under its budget, so the record stays under the item limit. */
function checkDecisionsSize(record: PauseRecord): void {
  const bytes = utf8Bytes(JSON.stringify(record.decisions)) + utf8Bytes(JSON.stringify(record.votes ?? []));
  if (bytes > LIMITS.decisionsBytes) {
    const message = `the decisions of this pause would take ${bytes} bytes together, over the limit of ${LIMITS.decisionsBytes}`;
    throw new PayloadTooLargeError(`${capitalize(message)}.`, [{ path: '/decisions', message }]);
  }
}
