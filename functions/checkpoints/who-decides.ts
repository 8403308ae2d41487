import {
  AlreadyDecidedError,
  AlreadyVotedError,
  ArgsChangedError,
  ForbiddenError,
  type HandbackError,
  NotAnApproverError,
  PauseCancelledError,
  PauseExpiredError,
  SelfDecisionError,
  UnsupportedRecordError,
} from '../errors.ts';
import { Status } from '../vocabulary.ts';
import type { Actor, Approvers, Decision, RefusalCode } from '../wire.ts';
import { foldEmail, isUnattributedLink, sameDoor, samePerson } from './identity.ts';
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
  const email = actor.emailVerified === true && actor.email !== undefined ? foldEmail(actor.email) : undefined;
  if (email !== undefined && approvers.emails?.some((entry) => foldEmail(entry) === email)) return true;
  if (actor.kind === 'link') return false;
  if (approvers.subjects?.includes(actor.subject)) return true;
  const groups = new Set(actor.groups ?? []);
  return approvers.groups?.some((group) => groups.has(group)) ?? false;
}

/**
 * Whether `actor` may decide `ask` at all, as the error to throw, or undefined when it may: an agent never decides;
 * four eyes (the pause's, or a policy's on the ask) keep anyone who is the same person as the pauser away, and an
 * unattributed link, which proves no one; approvers name who may; a quorum takes people, never an unattributed link.
 * Four eyes come first: a pauser who is not an approver is told `self_decision`.
 */
export function authorityRefusal(record: PauseRecord, ask: Ask, actor: Actor): HandbackError | undefined {
  const ids = [record.runId, interruptIdOf(record), ask.toolCallId] as const;
  if (actor.kind === 'agent') {
    return new ForbiddenError(
      `An agent's credential never decides (§13): the ask ${ask.toolCallId} needs a person with the handback/decide scope.`,
      { scope: 'handback/decide' },
    );
  }
  const fourEyes = record.fourEyes === true || ask.fourEyes === true;
  if (fourEyes && (samePerson(actor, record.pausedBy) || isUnattributedLink(actor))) {
    return new SelfDecisionError(...ids);
  }
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
  const mine = record.votes?.[index]?.find((vote) => samePerson(vote.by, actor));
  if (mine === undefined) return undefined;
  if (hash !== undefined && mine.hash === hash && sameDoor(mine.by, actor)) return 'replay';
  return new AlreadyVotedError(record.runId, interruptIdOf(record), (record.asks[index] as Ask).toolCallId);
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
  const refusal =
    authorityRefusal(record, ask, actor) ??
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
