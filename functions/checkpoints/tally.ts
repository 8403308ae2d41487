import { canonicalJson } from '../json.ts';
import { type DecisionKind, LIMITS } from '../vocabulary.ts';
import type { Principal, Tally } from '../wire.ts';
import { sha256 } from './codec.ts';
import { samePerson } from './identity.ts';
import type { Ask, PauseRecord, RecordedVote } from './record.ts';

/**
 * What an ask's votes count (§13, §16), pure: the hash of a set of arguments, the ask's current arguments (the
 * newest edit's, else the model's own), the distinct persons whose votes count for them, and the tally views show.
 */

/** The hash of a set of arguments, as views show it (`argsHash`): SHA-256 of their canonical JSON, base64url. */
export function argsHashOf(args: unknown): string {
  return sha256(canonicalJson(args ?? null));
}

/**
 * The hash of an ask's own (the model's) arguments: recorded at pause time; on records from before, from the ask's
 * args, or from `args` (the transcript's) when the record left them out. Undefined when neither is at hand.
 */
export function modelArgsHash(ask: Ask, args?: { args: unknown }): string | undefined {
  if (ask.argsHash !== undefined) return ask.argsHash;
  if (!ask.argsOmitted) return argsHashOf(ask.args);
  return args === undefined ? undefined : argsHashOf(args.args);
}

/** Part three's votes for the model's own arguments recorded this instead of their hash. */
const MODEL_ARGS = 'model';

/**
 * The model-argument hash of each ask of `record`, in ask order; `calls` (the transcript's round, by call id) fills in
 * what an older record left out. Where neither has them, part three's word for them stands in: it compares equal to
 * itself, so the votes still count right, and views show no `argsHash` for it.
 */
export function modelHashes(record: PauseRecord, calls?: ReadonlyMap<string, { args: unknown }>): string[] {
  return record.asks.map((ask) => modelArgsHash(ask, calls?.get(ask.toolCallId)) ?? MODEL_ARGS);
}

/** Whether `modelHashes` could not hash every ask's arguments without the transcript's round. */
export function needsCalls(record: PauseRecord): boolean {
  return record.asks.some((ask) => modelArgsHash(ask) === undefined);
}

/** Whether `hash` is a real arguments hash a person can send back (not part three's stand-in). */
export function isArgsHash(hash: string): boolean {
  return hash !== MODEL_ARGS;
}

/**
 * What each decision kind is as a vote on an ask with a quorum (§13, §16): it `approves` the current arguments (an
 * approve), `sets` the arguments and approves them (an edit), or `vetoes` the ask whatever its arguments (a reject).
 */
export const VOTES: Record<DecisionKind, 'approves' | 'sets' | 'vetoes'> = {
  approve: 'approves',
  edit: 'sets',
  reject: 'vetoes',
};

/** The arguments a vote is for, as a hash comparable to `argsHashOf`. */
function voteArgs(vote: RecordedVote, modelHash: string): string {
  return vote.argsHash === MODEL_ARGS ? modelHash : vote.argsHash;
}

/** The hash of an ask's current arguments: the newest edit's, else the model's own (`modelHash`). */
export function currentArgsHash(votes: readonly RecordedVote[] | undefined, modelHash: string): string {
  for (let index = (votes?.length ?? 0) - 1; index >= 0; index--) {
    const vote = votes?.[index] as RecordedVote;
    if (VOTES[vote.body.decision] === 'sets') return voteArgs(vote, modelHash);
  }
  return modelHash;
}

/**
 * The distinct persons whose votes count for the current arguments (§13, §16): approvals and edits of the arguments
 * the ask has now — an edit back to earlier arguments counts the earlier votes for them again — one per person.
 */
export function countingVoters(votes: readonly RecordedVote[], modelHash: string): Principal[] {
  const current = currentArgsHash(votes, modelHash);
  const voters: Principal[] = [];
  for (const vote of votes) {
    if (VOTES[vote.body.decision] === 'vetoes' || voteArgs(vote, modelHash) !== current) continue;
    if (voters.some((voter) => samePerson(voter, vote.by))) continue;
    voters.push(vote.by);
  }
  return voters;
}

/** The approvals an ask needs: its `approvals`, else one. */
export function approvalsNeeded(ask: Pick<Ask, 'kind' | 'approvals'>): number {
  return ask.kind === 'approval' ? (ask.approvals ?? LIMITS.approvals.default) : 1;
}

/**
 * Whether an ask takes votes rather than one decision (§13): it needs more than one approval, or votes were already
 * cast on it — an edit (§19) may have raised its need and another lowered it again, and votes once cast keep counting.
 */
export function takesVotes(ask: Pick<Ask, 'kind' | 'approvals'>, votes: readonly RecordedVote[] | undefined): boolean {
  return ask.kind === 'approval' && (approvalsNeeded(ask) > 1 || (votes?.length ?? 0) > 0);
}

/** An ask's tally (§16): the approvals counting for its current arguments, and how many it needs. */
export function tallyOf(record: PauseRecord, index: number, modelHash: string): Tally {
  const ask = record.asks[index] as Ask;
  const need = approvalsNeeded(ask);
  const votes = record.votes?.[index];
  if (votes !== undefined && votes.length > 0) return { have: countingVoters(votes, modelHash).length, need };
  const decided = record.decisions[index]?.body;
  const approving = decided !== undefined && !('decision' in decided && VOTES[decided.decision] === 'vetoes');
  return { have: approving ? 1 : 0, need };
}
