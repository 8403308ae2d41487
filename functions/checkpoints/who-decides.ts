import {
  AlreadyDecidedError,
  AlreadyVotedError,
  ArgsChangedError,
  ForbiddenError,
  HandbackError,
  NotAnApproverError,
  PauseCancelledError,
  PauseExpiredError,
  SelfDecisionError,
  UnknownPersonError,
  UnsupportedRecordError,
} from '../errors.ts';
import { Status } from '../vocabulary.ts';
import type { Actor, Approvers, Decision, KnownPerson, RefusalCode } from '../wire.ts';
import { foldEmail, isEmailOnly, isUnattributedLink, sameDoor, samePerson } from './identity.ts';
import { type Ask, expiresAtOf, interruptIdOf, type PauseRecord } from './record.ts';
import { approvalsNeeded, VOTES } from './tally.ts';

/**
 * Who may decide an ask now (§13, §16), pure and in one place: every entry point — HTTP, links, Slack, the triggers,
 * the library — reaches these through the store, so a rule holds whichever way a decision arrives. Each refusal is
 * decided here, in the order a decision meets them, before any write: a request with one refused decision records
 * none. Whether two principals are the same person is `samePerson`'s (`identity.ts`).
 */

/**
 * Whether `actor` matches an ask's approvers (§13, §16): a person by subject, verified email (ASCII case folding) or
 * group; a link Handback delivered by its address; a service, an agent or an unattributed link never (a trigger that
 * wants to decide such an ask names `by`). An email that is not verified matches nothing.
 */
export function matchesApprovers(approvers: Approvers, actor: Actor): boolean {
  if (actor.kind === 'service' || actor.kind === 'agent') return false;
  // A principal the directory resolved is its person (§20): every subject and email the directory says is theirs.
  const person = actor.directory?.person;
  const emails = new Set(person?.emails.map(foldEmail));
  if (actor.emailVerified === true && actor.email !== undefined) emails.add(foldEmail(actor.email));
  if (approvers.emails?.some((entry) => emails.has(foldEmail(entry)))) return true;
  if (actor.kind === 'link' && person === undefined) return false;
  const subjects = new Set(person?.subjects);
  if (actor.kind !== 'link') subjects.add(actor.subject);
  if (approvers.subjects?.some((subject) => subjects.has(subject))) return true;
  const groups = new Set(actor.groups ?? []);
  return approvers.groups?.some((group) => groups.has(group)) ?? false;
}

/**
 * Whether an ask needs a known person to decide it (§20): four eyes (the pause's or the ask's) or a quorum, where one
 * human holding two addresses would count twice or pass as someone else.
 */
export function needsKnownPerson(record: PauseRecord, ask: Ask): boolean {
  return record.fourEyes === true || ask.fourEyes === true || approvalsNeeded(ask) > 1;
}

/**
 * `unknown_person` (§20), or undefined: a person the directory says is not active decides nothing; on an ask that
 * needs a known person, neither does a principal the directory knows no one for, nor — without a directory — an
 * email-only identity (a link Handback delivered proves the address, not a distinct person). Tokens' subjects and
 * Slack users stay persons without a directory.
 */
export function personRefusal(record: PauseRecord, ask: Ask, actor: Actor): HandbackError | undefined {
  const ids = [record.runId, interruptIdOf(record), ask.toolCallId] as const;
  const resolution = actor.directory;
  if (resolution?.person?.active === false) {
    return new UnknownPersonError(...ids, `the directory says ${resolution.person.id} is not active`);
  }
  if (!needsKnownPerson(record, ask) || actor.kind === 'service' || isUnattributedLink(actor)) return undefined;
  if (resolution !== undefined && resolution.person === undefined) {
    return new UnknownPersonError(
      ...ids,
      'the directory knows no person for you (four eyes or a quorum count persons): decide as someone it knows',
    );
  }
  if (resolution === undefined && isEmailOnly(actor)) {
    return new UnknownPersonError(
      ...ids,
      `${actor.email ?? 'an address'} is an address, not a known person (four eyes or a quorum count persons, and one person may hold many addresses): decide signed in, or in Slack`,
    );
  }
  return undefined;
}

/**
 * Whether `actor` may decide `ask` at all, as the error to throw, or undefined when it may: an agent never decides;
 * nor does a person the directory says is not active (§20); four eyes (the pause's, or a policy's on the ask) keep
 * anyone who is the same person as the pauser (or as the person an agent paused for) away, and an unattributed link,
 * which proves no one; an ask that needs a known person takes no unknown one (§20); approvers name who may; a quorum
 * takes people, never an unattributed link. Four eyes come first: a pauser who is not an approver is told
 * `self_decision`.
 */
export function authorityRefusal(record: PauseRecord, ask: Ask, actor: Actor): HandbackError | undefined {
  const ids = [record.runId, interruptIdOf(record), ask.toolCallId] as const;
  if (actor.kind === 'agent') {
    return new ForbiddenError(
      `An agent's credential never decides (§13): the ask ${ask.toolCallId} needs a person with the handback/decide scope.`,
      { scope: 'handback/decide' },
    );
  }
  const inactive = actor.directory?.person?.active === false ? personRefusal(record, ask, actor) : undefined;
  if (inactive !== undefined) return inactive;
  const fourEyes = record.fourEyes === true || ask.fourEyes === true;
  if (fourEyes && (isPauser(record, actor) || isUnattributedLink(actor))) return new SelfDecisionError(...ids);
  const unknown = personRefusal(record, ask, actor);
  if (unknown !== undefined) return unknown;
  if (ask.approvers !== undefined && !matchesApprovers(ask.approvers, actor)) {
    return new NotAnApproverError(...ids, `its approvers are ${describeApprovers(ask.approvers)}`);
  }
  // A quorum counts distinct persons (§16): a link that proves no one cannot be one of them.
  if (isUnattributedLink(actor) && approvalsNeeded(ask) > 1) {
    return new NotAnApproverError(
      ...ids,
      `it needs ${approvalsNeeded(ask)} distinct people, and this link names no one: decide signed in, or with a link made for you`,
    );
  }
  return undefined;
}

/** Whether `actor` is the same person as the pauser, or as the person an agent paused for (`onBehalfOf`, §20). */
export function isPauser(record: PauseRecord, actor: Actor): boolean {
  const { pausedBy } = record;
  return samePerson(actor, pausedBy) || (pausedBy.onBehalfOf !== undefined && samePerson(actor, pausedBy.onBehalfOf));
}

/**
 * What the votes already on ask `index` say to a vote by `actor` whose recorded body hashes to `hash` (§13, §16): a
 * replay (the same vote again, through the same door), `already_voted` (the same person voted, through this door or
 * another), or nothing (undefined).
 */
export function voteRefusal(
  record: PauseRecord,
  index: number,
  actor: Actor,
  hash?: string,
): 'replay' | HandbackError | undefined {
  const votes = record.votes?.[index] ?? [];
  const mine = votes.find((vote) => samePerson(vote.by, actor));
  // A delegate's vote for them is their voice too (§20): one person, one vote, whoever cast it.
  const forMe = mine === undefined && votes.some((vote) => vote.for !== undefined && samePerson(vote.for, actor));
  if (mine === undefined && !forMe) return undefined;
  if (mine !== undefined && hash !== undefined && mine.hash === hash && sameDoor(mine.by, actor)) return 'replay';
  return new AlreadyVotedError(record.runId, interruptIdOf(record), (record.asks[index] as Ask).toolCallId);
}

/**
 * Whom a decision by `actor` on ask `index` is for (§20): undefined — themselves — when they may decide it in their
 * own right; else the first active person who delegated to them (by id) who may decide it and has no vote on it yet,
 * as that person; else the refusal they would get in their own right (`already_voted` when every such delegator has
 * voted). A decision naming `for` (`forId`) chooses: their own id, themselves alone; a delegator's, that delegator
 * alone; anyone else is 403 `forbidden`. No chains (a delegator's own delegators are not followed), and a delegate who
 * is the pauser, or the person an agent paused for, votes for no one.
 */
export function voiceOf(
  record: PauseRecord,
  index: number,
  actor: Actor,
  forId?: string,
): { for?: Actor } | HandbackError {
  const ask = record.asks[index] as Ask;
  const delegators = actor.directory?.delegators ?? [];
  if (forId !== undefined && forId !== actor.directory?.person?.id) {
    // §20 delegation: a named delegator, and no one else.
    const named = delegators.find((person) => person.id === forId);
    if (named === undefined) {
      return new ForbiddenError(
        `The decision on ${ask.toolCallId} is for ${JSON.stringify(forId)}, who has not handed their approvals to you (no delegation to you holds now): decide for yourself, or for someone whose delegation to you holds. Nothing was recorded.`,
      );
    }
    if (isPauser(record, actor)) return new SelfDecisionError(record.runId, interruptIdOf(record), ask.toolCallId);
    return delegatedVoice(record, index, delegatorActor(actor, named)) ?? { for: delegatorActor(actor, named) };
  }
  const own = authorityRefusal(record, ask, actor);
  if (own === undefined) return {};
  if (forId !== undefined) return own;
  if (!(own instanceof NotAnApproverError) || delegators.length === 0 || isPauser(record, actor)) return own;
  let voted = false;
  for (const person of delegators) {
    const delegator = delegatorActor(actor, person);
    const refusal = delegatedVoice(record, index, delegator);
    if (refusal instanceof AlreadyVotedError) voted = true;
    if (refusal === undefined) return { for: delegator };
  }
  return voted ? new AlreadyVotedError(record.runId, interruptIdOf(record), ask.toolCallId) : own;
}

/** Why a delegate may not vote for `delegator` on ask `index` (§20): the delegator's own refusal, or their vote. */
function delegatedVoice(record: PauseRecord, index: number, delegator: Actor): HandbackError | undefined {
  const ask = record.asks[index] as Ask;
  const refusal = authorityRefusal(record, ask, delegator);
  if (refusal !== undefined) return refusal;
  if (approvalsNeeded(ask) > 1 && voteRefusal(record, index, delegator) !== undefined) {
    return new AlreadyVotedError(record.runId, interruptIdOf(record), ask.toolCallId);
  }
  return undefined;
}

/** A delegator as the rules match them (§20): the directory's person, every identity of theirs, their groups. */
function delegatorActor(delegate: Actor, person: KnownPerson): Actor {
  return {
    kind: 'person',
    subject: person.subjects[0] ?? `person:${person.id}`,
    via: delegate.via,
    name: person.name,
    person: person.id,
    groups: person.groups,
    directory: { person, delegators: [] },
  };
}

/**
 * `args_changed` (§16) for an approve or edit whose `argsHash` is not the ask's current one (`current`); a reject is a
 * veto whatever the arguments, and a decision without `argsHash` is taken as it is.
 */
export function argsRefusal(record: PauseRecord, ask: Ask, decision: Decision, current: string) {
  if (!('decision' in decision) || VOTES[decision.decision] === 'vetoes') return undefined;
  if (decision.argsHash === undefined || decision.argsHash === current) return undefined;
  return new ArgsChangedError(record.runId, interruptIdOf(record), ask.toolCallId, current);
}

/**
 * The code a decision on ask `index` by `actor` would get now (§16's `refusal`), in the order the store checks a
 * decision (`checkpoint-service.ts`): who may decide at all, then whether the pause is still open (`status`, as read
 * at that time), then whether the ask is decided, then whether this person already voted. Undefined: they may decide.
 */
export function refusalOf(record: PauseRecord, index: number, actor: Actor, status: string): RefusalCode | undefined {
  const ask = record.asks[index];
  if (ask === undefined) return undefined;
  const voice = voiceOf(record, index, actor);
  const refusal =
    (voice instanceof HandbackError ? voice : undefined) ??
    closedRefusal(record, status) ??
    (record.decisions[index] !== undefined
      ? new AlreadyDecidedError(record.runId, interruptIdOf(record), ask.toolCallId)
      : undefined) ??
    voteRefusal(record, index, actor);
  return refusal === undefined || refusal === 'replay' ? undefined : (refusal.code as RefusalCode);
}

/** Whether `actor` may still act on ask `index` at `status`: no refusal. */
export function mayDecide(record: PauseRecord, index: number, actor: Actor, status: string): boolean {
  return refusalOf(record, index, actor, status) === undefined;
}

/**
 * The refusal of a change to a pause that no longer takes any at `status` (read at that time): cancelled (with its
 * continuation), expired, or a status a newer version wrote. A resumed pause has every ask decided: its refusal is
 * the ask's.
 */
export function closedRefusal(record: PauseRecord, status: string): HandbackError | undefined {
  const interruptId = interruptIdOf(record);
  switch (status) {
    case Status.Paused:
    case Status.Resumed:
      return undefined;
    case Status.Cancelled:
      return new PauseCancelledError(record.runId, interruptId, record.closing?.continuationId);
    case Status.Expired:
      return new PauseExpiredError(record.runId, interruptId, expiresAtOf(record));
    default:
      return new UnsupportedRecordError(record.runId, interruptId, `status ${JSON.stringify(status)}`);
  }
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
