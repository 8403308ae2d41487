import {
  AlreadyVotedError,
  BadRequestError,
  ForbiddenError,
  NotAnApproverError,
  SelfDecisionError,
} from '../errors.ts';
import { isOneOf, LIMITS, PRINCIPAL_KINDS, VIAS } from '../vocabulary.ts';
import type { Actor, Approvers, Principal } from '../wire.ts';
import { capitalize, isPlainObject } from './json.ts';
import { type Ask, interruptIdOf, type PauseRecord, type RecordedVote } from './record.ts';

/**
 * Who may decide (§13), pure and in one place: every entry point — HTTP, links, Slack, the triggers, the library —
 * reaches these through the store, so a rule holds whichever way a decision arrives. Refusals are decided before any
 * write: a request with one refused decision records none.
 */

/** The library's principal when a caller names none. */
export const LIBRARY_PRINCIPAL: Principal = { kind: 'service', subject: 'library', via: 'library' };

/** The sweep's principal: an expiry that acts records it as the decision of each ask it rejects (§13). */
export const SWEEP_PRINCIPAL: Principal = { kind: 'service', subject: 'service:sweep', via: 'sweep' };

/** Every request with auth off: one person, without an identity to match approvers against (§13). */
export const ANONYMOUS_PRINCIPAL: Principal = { kind: 'person', subject: 'anonymous', via: 'api' };

/** The principal as recorded: without its groups (matched, never stored), and without empty optional fields. */
export function recorded(actor: Actor): Principal {
  const principal: Principal = { kind: actor.kind, subject: actor.subject, via: actor.via };
  if (actor.email !== undefined) principal.email = actor.email;
  if (actor.name !== undefined) principal.name = actor.name;
  if (actor.grantedBy !== undefined) principal.grantedBy = actor.grantedBy;
  return principal;
}

/** Who a principal's acts count as (§13): its subject, and the maker of the link it decides through. */
function identities(principal: Pick<Principal, 'subject' | 'grantedBy'>): string[] {
  return principal.grantedBy === undefined ? [principal.subject] : [principal.subject, principal.grantedBy];
}

/** Whether two principals share an identity: the same subject, or a link and the person who made it. */
export function sameVoter(a: Pick<Principal, 'subject' | 'grantedBy'>, b: Pick<Principal, 'subject' | 'grantedBy'>) {
  const mine = identities(a);
  return identities(b).some((identity) => mine.includes(identity));
}

/** Whether `principal` is the library's default one. */
export function isLibrary(principal: Principal): boolean {
  return (
    principal.kind === LIBRARY_PRINCIPAL.kind &&
    principal.subject === LIBRARY_PRINCIPAL.subject &&
    principal.via === LIBRARY_PRINCIPAL.via &&
    principal.email === undefined &&
    principal.name === undefined &&
    principal.grantedBy === undefined
  );
}

/** Whether `actor` is the anonymous principal of a service without auth. */
export function isAnonymous(actor: Pick<Principal, 'kind' | 'subject'>): boolean {
  return actor.kind === ANONYMOUS_PRINCIPAL.kind && actor.subject === ANONYMOUS_PRINCIPAL.subject;
}

/**
 * Whether `actor` matches an ask's approvers: a person by subject, email (case-insensitive) or group; a link by
 * its recipient's email only; a service or an agent never (a trigger that wants to decide such an ask names `by`).
 */
export function matchesApprovers(approvers: Approvers, actor: Actor): boolean {
  if (actor.kind === 'service' || actor.kind === 'agent') return false;
  const email = actor.email?.toLowerCase();
  if (email !== undefined && approvers.emails?.some((entry) => entry.toLowerCase() === email)) return true;
  if (actor.kind === 'link') return false;
  if (approvers.subjects?.includes(actor.subject)) return true;
  const groups = new Set(actor.groups ?? []);
  return approvers.groups?.some((group) => groups.has(group)) ?? false;
}

/**
 * Why `actor` may not decide `ask` of `record`, as the error to throw, or undefined when it may: an agent never
 * decides; four eyes keep the principal that paused it away; approvers name who may.
 */
export function refusalOf(record: PauseRecord, ask: Ask, actor: Actor): Error | undefined {
  const ids = [record.runId, interruptIdOf(record), ask.toolCallId] as const;
  if (actor.kind === 'agent') {
    return new ForbiddenError(
      `An agent's credential never decides (§13): the ask ${ask.toolCallId} needs a person with the handback/decide scope.`,
      { scope: 'handback/decide' },
    );
  }
  const fourEyes = record.fourEyes === true || ask.fourEyes === true;
  if (fourEyes && sameVoter(actor, record.pausedBy)) return new SelfDecisionError(...ids);
  if (ask.approvers !== undefined && !matchesApprovers(ask.approvers, actor)) {
    return new NotAnApproverError(...ids, `its approvers are ${describeApprovers(ask.approvers)}`);
  }
  return undefined;
}

/** Whether `actor` may still act on `ask` (index `index`): it is undecided, allowed, and `actor` has not voted on it. */
export function mayDecide(record: PauseRecord, index: number, actor: Actor): boolean {
  const ask = record.asks[index];
  if (ask === undefined || record.decisions[index] !== undefined) return false;
  if (refusalOf(record, ask, actor) !== undefined) return false;
  return !(record.votes?.[index] ?? []).some((vote) => sameVoter(vote.by, actor));
}

/** The approvals an ask needs: its `approvals`, else one. */
export function approvalsNeeded(ask: Pick<Ask, 'kind' | 'approvals'>): number {
  return ask.kind === 'approval' ? (ask.approvals ?? LIMITS.approvals.default) : 1;
}

/** The arguments hash the votes of an ask count for now: the newest edit's, else the model's own. */
export function currentArgsHash(votes: readonly RecordedVote[], originalHash: string): string {
  for (let index = votes.length - 1; index >= 0; index--) {
    const vote = votes[index] as RecordedVote;
    if (vote.body.decision === 'edit') return vote.argsHash;
  }
  return originalHash;
}

/** The distinct principals whose votes count for the current arguments (§13: an edit resets the count). */
export function countingVoters(votes: readonly RecordedVote[], originalHash: string): Principal[] {
  const current = currentArgsHash(votes, originalHash);
  const seen = new Set<string>();
  const voters: Principal[] = [];
  for (const vote of votes) {
    const ids = identities(vote.by);
    if (vote.body.decision === 'reject' || vote.argsHash !== current || ids.some((id) => seen.has(id))) continue;
    for (const id of ids) seen.add(id);
    voters.push(vote.by);
  }
  return voters;
}

/** The vote `actor` already cast on an ask, if any: its own, or one by the link it made or the person who made its. */
export function voteOf(votes: readonly RecordedVote[] | undefined, actor: Actor): RecordedVote | undefined {
  return votes?.find((vote) => sameVoter(vote.by, actor));
}

/** The error of a second, different vote by the same principal. */
export function alreadyVoted(record: PauseRecord, ask: Ask): AlreadyVotedError {
  return new AlreadyVotedError(record.runId, interruptIdOf(record), ask.toolCallId);
}

/**
 * Checks a caller-given principal (the library's `by`, a trigger's `by`): the fields §13 names, each bounded. Throws
 * `BadRequestError` naming each bad field.
 */
export function checkActor(value: unknown, path = '/by'): Actor {
  const fail = (message: string, at = path) => new BadRequestError(`${capitalize(message)}.`, [{ path: at, message }]);
  if (!isPlainObject(value)) throw fail('by must be an object {kind, subject, email?, name?, via}');
  const { kind, subject, email, name, via, groups, grantedBy } = value as Record<string, unknown>;
  if (!isOneOf(PRINCIPAL_KINDS, kind)) {
    throw fail(`by.kind must be one of ${PRINCIPAL_KINDS.join(', ')}`, `${path}/kind`);
  }
  if (!isOneOf(VIAS, via)) throw fail(`by.via must be one of ${VIAS.join(', ')}`, `${path}/via`);
  const text = (field: unknown, what: string, optional: boolean) => {
    if (field === undefined && optional) return;
    if (typeof field !== 'string' || field.length === 0 || field.length > LIMITS.approvers.chars) {
      throw fail(`by.${what} must be a string of 1–${LIMITS.approvers.chars} characters`, `${path}/${what}`);
    }
  };
  text(subject, 'subject', false);
  text(email, 'email', true);
  text(name, 'name', true);
  text(grantedBy, 'grantedBy', true);
  if (groups !== undefined) {
    if (!Array.isArray(groups) || groups.length > LIMITS.approvers.entries * 4) {
      throw fail(`by.groups must be a list of at most ${LIMITS.approvers.entries * 4} strings`, `${path}/groups`);
    }
    groups.forEach((group, index) => {
      if (typeof group !== 'string' || group.length > LIMITS.approvers.chars) {
        throw fail(`by.groups[${index}] must be a string of at most ${LIMITS.approvers.chars} characters`);
      }
    });
  }
  return value as unknown as Actor;
}

/**
 * Checks an ask's `approvers` (§13): arrays of at most 50 strings of at most 256 characters, at least one entry in all.
 * Reports each problem through `fail`.
 */
export function checkApprovers(value: unknown, at: string, fail: (path: string, message: string) => void): void {
  if (!isPlainObject(value)) {
    fail(at, 'approvers must be an object {subjects?, emails?, groups?}');
    return;
  }
  const { entries, chars } = LIMITS.approvers;
  let total = 0;
  for (const [key, list] of Object.entries(value)) {
    if (key !== 'subjects' && key !== 'emails' && key !== 'groups') {
      fail(`${at}/${key}`, `approvers take subjects, emails and groups, not ${JSON.stringify(key.slice(0, 64))}`);
      continue;
    }
    if (!Array.isArray(list) || list.length > entries) {
      fail(`${at}/${key}`, `approvers.${key} must be a list of at most ${entries} strings`);
      continue;
    }
    list.forEach((entry, index) => {
      if (typeof entry !== 'string' || entry.length === 0 || entry.length > chars) {
        fail(`${at}/${key}/${index}`, `approvers.${key}[${index}] must be a string of 1–${chars} characters`);
      }
    });
    total += list.length;
  }
  if (total === 0) fail(at, 'approvers must name at least one subject, email or group');
}

function describeApprovers(approvers: Approvers): string {
  const parts: string[] = [];
  const some = (list: string[] | undefined) =>
    (list ?? []).slice(0, 5).join(', ') + ((list?.length ?? 0) > 5 ? ', …' : '');
  if (approvers.subjects?.length) parts.push(`subjects ${some(approvers.subjects)}`);
  if (approvers.emails?.length) parts.push(`emails ${some(approvers.emails)}`);
  if (approvers.groups?.length) parts.push(`groups ${some(approvers.groups)}`);
  return parts.join('; ');
}
