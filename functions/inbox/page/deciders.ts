import type { DecisionKind } from '../../vocabulary.ts';
import { fullTime } from './time.ts';
import type { Approvers, AskView, PersonView, Principal } from './types.ts';

/** Who may decide an ask, who did and for whom, in words (§13, §20, §21): what the server decided, never worked out. */

// Every field is optional: a service without them shows what it showed before.

/** A principal in words: its name, else its email, else its subject. */
export function principalText(principal: Principal): string {
  return principal.name ?? principal.email ?? principal.subject;
}

/** Whether the person may decide `ask`: unless the API says they may not (its `refusal`, §16, or `mayDecide`). */
export function mayDecide(ask: AskView): boolean {
  return ask.refusal === undefined && ask.mayDecide !== false;
}

/** Who may decide an ask, in words: "Only ann@example.com or the group finance may decide it." */
export function approversText(approvers: Approvers): string {
  const people = [...(approvers.emails ?? []), ...(approvers.subjects ?? [])];
  const groups = approvers.groups ?? [];
  const parts = [
    ...people,
    ...(groups.length === 0 ? [] : [`${groups.length === 1 ? 'the group' : 'the groups'} ${list(groups, 'or')}`]),
  ];
  return parts.length === 0 ? 'No one may decide it.' : `Only ${list(parts, 'or')} may decide it.`;
}

/** Why the person cannot decide `ask` (`undefined` when they can): the server's `refusal` in words, shown beside it. */
export function readOnlyText(ask: AskView): string | undefined {
  if (ask.decision !== undefined || mayDecide(ask)) return undefined;
  return refusalWords(ask.refusal, ask) ?? 'You may not decide this request.';
}

/**
 * Why a person may not decide an ask, in words, from the code the server gave (§16: the view's `refusal`, or a
 * problem's `code`): the page says what the server decided, and never works it out itself.
 */
export function refusalWords(code: string | undefined, ask: AskView): string | undefined {
  switch (code) {
    case 'not_an_approver':
      return ask.approvers === undefined
        ? 'You may not decide this request.'
        : `You may not decide this request. ${approversText(ask.approvers)}`;
    case 'self_decision':
      return 'You paused this request yourself; someone else must decide it.';
    case 'already_voted':
      return 'You have already voted on this request.';
    case 'unknown_person':
      return 'This request needs someone Handback knows as a person (four eyes or several approvals), and it does not know you: an email address, or a sign-in no one is listed for, is not enough. Sign in as yourself, or decide in Slack.';
    case 'forbidden':
      return 'Your sign-in may not decide requests: it is an agent’s.';
    case 'already_decided':
      return 'This request is already decided.';
    case 'pause_cancelled':
    case 'pause_expired':
      return 'This request is closed.';
    default:
      return undefined;
  }
}

/**
 * The votes of an ask with a quorum in words: the server's tally (§16) — "1 of 2 approvals" — then each vote as
 * recorded, "Ann approved, Bob edited" (`undefined` without a quorum, or from a server that sends no tally).
 */
export function votesText(ask: AskView, handed: Handed = {}): string | undefined {
  const tally = ask.tally;
  if (tally === undefined || tally.need <= 1) return undefined;
  const have = `${tally.have} of ${tally.need} approvals`;
  const votes = (ask.votes ?? []).map(
    (vote) => `${principalText(vote.by)} ${VOTED[vote.decision]}${forText(vote.for, handed)}`,
  );
  return votes.length === 0 ? have : `${have}: ${list(votes, 'and')}`;
}

/** A vote in words. */
const VOTED: Record<DecisionKind, string> = { approve: 'approved', edit: 'edited', reject: 'rejected' };

/** Who decided an ask, in words ("by Ann"), when the API says. */
export function decidedByText(ask: AskView, handed: Handed = {}): string | undefined {
  const by = ask.decision?.by;
  return by === undefined ? undefined : `by ${principalText(by)}${forText(ask.decision?.for, handed)}`;
}

// §20 delegation
/** Until when each person's approvals are handed to the signed-in person, by id (`GET /people/me`'s `delegators`). */
export type Handed = Readonly<Record<string, string>>;

/** " for Ann (delegation until 8 Jun, 09:00)" for a decision a delegate made for Ann; "" for one's own. */
function forText(principal: Principal | undefined, handed: Handed): string {
  if (principal === undefined) return '';
  const until = principal.person === undefined ? undefined : handed[principal.person];
  return ` for ${principalText(principal)}${until === undefined ? '' : ` (delegation until ${fullTime(until)})`}`;
}

/** The signed-in person's delegation in words, while it has not ended: "Your approvals go to Bob until …". */
export function delegationText(person: PersonView, nowMs: number): string | undefined {
  const delegation = person.delegation;
  if (delegation === undefined || Date.parse(delegation.until) <= nowMs) return undefined;
  const to = delegation.toName ?? delegation.to;
  const from = delegation.holds || delegation.from === undefined ? '' : ` from ${fullTime(delegation.from)}`;
  return `Your approvals go to ${to}${from} until ${fullTime(delegation.until)}.`;
}

function list(items: readonly string[], conjunction: 'and' | 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}`;
}

/**
 * §21: the last escalation level an ask reached in words — "Escalated to group leads and cfo@example.com at <when>
 * (level 1)." — or undefined when it reached none.
 */
export function escalatedText(ask: AskView, time: (iso: string) => string): string | undefined {
  const last = ask.escalation?.last;
  if (last === undefined) return undefined;
  const names = [
    ...(last.approvers?.groups ?? []).map((group) => `group ${group}`),
    ...(last.approvers?.emails ?? []),
    ...(last.approvers?.subjects ?? []),
  ];
  const whom = names.length === 0 ? 'no one more' : list(names, 'and');
  return `Escalated to ${whom} at ${time(last.at)} (level ${ask.escalation?.level}).`;
}
