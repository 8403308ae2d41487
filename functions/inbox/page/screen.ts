import type { DecisionKind } from '../../vocabulary.ts';
import {
  type Draft,
  describeDecision,
  draftDecision,
  firstDraft,
  formOf,
  idsOf,
  type SchemaCheck,
  shortJson,
} from './decide.ts';
import { attribute, type FieldError, failureText, sentence } from './forms.ts';
import { problemText } from './problems.ts';
import { fullTime, timeSince } from './time.ts';
import type {
  Approvers,
  AskView,
  ContinuationBody,
  Decision,
  PauseView,
  PendingDecisions,
  PersonView,
  Principal,
  Problem,
} from './types.ts';

/**
 * The pause screen's logic, pure (`pause.tsx` renders it): which drafts become which decisions, what an answer or a
 * problem means for the page, who may decide what (§13) and why a control is disabled. No DOM, no fetch, no clock:
 * each function takes what it reads and returns what the screen shows or sends.
 */

/** What the page says after a submission or a cancel. */
export interface Outcome {
  tone: 'good' | 'bad';
  text: string;
}

/** The asks still waiting for a decision. */
export function waitingAsks(view: PauseView): AskView[] {
  return view.asks.filter((ask) => ask.decision === undefined);
}

/**
 * The drafts after a fresh read: each ask keeps the person's draft, unless its arguments changed since the draft began
 * (its `argsHash`, §16), when it starts again on what is shown now; a new ask starts on its first draft.
 */
export function nextDrafts(old: Record<string, Draft>, fresh: PauseView): Record<string, Draft> {
  const several = waitingAsks(fresh).length > 1;
  const next: Record<string, Draft> = {};
  fresh.asks.forEach((ask, index) => {
    const kept = old[ask.toolCallId];
    next[ask.toolCallId] = kept !== undefined && kept.seen === ask.argsHash ? kept : firstDraft(ask, index, several);
  });
  return next;
}

/** A schema check the page still runs, with where its failures go. */
export interface PendingCheck {
  check: SchemaCheck;
  index: number;
  /** The errors the form already marked for this ask (they keep their own words). */
  known: FieldError[];
}

/** What the drafts make: the decisions to send, the errors the page can tell now, and the schema checks to run. */
export interface Collected {
  decisions: Decision[];
  errors: FieldError[];
  checks: PendingCheck[];
}

/** The decisions the drafts make for the asks the person may decide, and what stands in their way. */
export function collectDecisions(view: PauseView, drafts: Record<string, Draft>): Collected {
  const collected: Collected = { decisions: [], errors: [], checks: [] };
  view.asks.forEach((ask, index) => {
    const draft = drafts[ask.toolCallId];
    if (ask.decision !== undefined || draft === undefined || !mayDecide(ask)) return;
    const drafted = draftDecision(ask, index, draft);
    if (drafted.kind === 'none') return;
    if (drafted.kind === 'decision') collected.decisions.push(drafted.decision);
    const known = drafted.kind === 'errors' ? drafted.errors : [];
    collected.errors.push(...known);
    if (drafted.check !== undefined) collected.checks.push({ check: drafted.check, index, known });
  });
  return collected;
}

function schemaErrors(
  { check, index, known }: PendingCheck,
  failures: ReadonlyArray<{ path: string; message: string }>,
): FieldError[] {
  if (failures.length === 0) return [];
  if (check.field === 'args') return [{ id: idsOf(index).args, message: argsMessage(failures) }];
  // A field the form already marked keeps its own words (a missing choice is not also "required").
  const marked = new Set(known.map((error) => error.id));
  return attribute(check.field, failures).filter((error) => !marked.has(error.id));
}

/** The errors of a schema check's failures (`undefined`: the validator could not run; the server checks). */
export function failureErrors(
  pending: PendingCheck,
  failures: ReadonlyArray<{ path: string; message: string }> | undefined,
): FieldError[] {
  return failures === undefined ? [] : schemaErrors(pending, failures);
}

/** Errors by control id, two on one control joined. */
export function mergeErrors(errors: readonly FieldError[]): Record<string, string> {
  const byId: Record<string, string> = {};
  for (const { id, message } of errors) byId[id] = byId[id] === undefined ? message : `${byId[id]} ${message}`;
  return byId;
}

function argsMessage(failures: ReadonlyArray<{ path: string; message: string }>): string {
  return failures.map(failureText).join(' ');
}

/** The tool names of the asks `ids` names, for a sentence. */
export function askNames(view: PauseView, ids: readonly string[]): string {
  return ids.map((id) => view.asks.find((ask) => ask.toolCallId === id)?.name ?? id).join(', ');
}

/** What the page says of a 202: recorded, and which asks still wait. */
export function pendingText(view: PauseView, pending: PendingDecisions): string {
  return `Recorded. Still waiting for a decision on: ${askNames(view, pending.pending)}.`;
}

/** What the page says of a 200: how the pause closed, and what the agent runs now. */
export function resumedText(closed: ContinuationBody): string {
  if (closed.outcome === 'cancelled') return 'Cancelled. The agent has been told.';
  const run = closed.dispatch.map((call) => call.name);
  return run.length === 0
    ? 'Resumed: the agent goes on with your decisions.'
    : `Resumed: the agent will now run ${run.join(', ')}.`;
}

/**
 * Who decided, on a page opened from a link, for the decisions it sent itself: the page is not told the link's
 * principal, only that its decisions were recorded, so it says "by you".
 */
export const YOU: Principal = { kind: 'person', subject: 'you', name: 'you', via: 'link' };

/** From a link the pause cannot be read once closed: what the page knows of it, from what it sent (by {@link YOU}). */
export function closedLocally(view: PauseView, decisions: Decision[], closed: ContinuationBody): PauseView {
  const asks = view.asks.map((ask) => {
    if (ask.decision !== undefined) return ask;
    const sent = decisions.find((d) => d.toolCallId === ask.toolCallId);
    if (sent === undefined) return ask;
    const { toolCallId: _, argsHash: __, ...decision } = sent;
    return {
      ...ask,
      decision: { ...decision, by: YOU } as NonNullable<typeof ask.decision>,
      decidedAt: closed.resumedAt,
    };
  });
  return { ...view, asks, status: 'resumed', outcome: closed.outcome, resumedAt: closed.resumedAt };
}

/**
 * What a page opened from a link remembers of the decisions it sent once they closed the pause (kept for the tab, as
 * the link is): a closed pause is not shown to a link again (§11, 410 without telling why), so a reload says what this
 * person decided, and when, from the page's own memory.
 */
export interface LinkMemory {
  /** Each ask this page decided: its tool and the decision in words. */
  decided: Array<{ name: string; decision: string }>;
  /** When the pause closed. */
  at: string;
}

/** What a link's page remembers of `closed`, its own decisions on it. */
export function linkMemoryOf(closed: PauseView): LinkMemory {
  const decided = closed.asks
    .filter((ask) => ask.decision?.by === YOU)
    .map((ask) => {
      const words = describeDecision(ask.decision as NonNullable<AskView['decision']>);
      return { name: ask.name, decision: `${words.charAt(0).toLowerCase()}${words.slice(1)}` };
    });
  return { decided, at: closed.resumedAt ?? '' };
}

/**
 * The banner of a pause that no longer waits: how it ended, by whom when the view says so, and when — `when` is the
 * instant to show (as "3 minutes ago") between `lead` and `rest`, absent when the page does not know it (a link told
 * the pause closed while it was open).
 */
export function closedBanner(view: PauseView): { lead: string; when?: string; rest: string } | undefined {
  const kind = closedKind(view);
  if (kind === undefined) return undefined;
  const at = (when: string | undefined) => (when === undefined ? {} : { when });
  switch (kind) {
    case 'cancelled': {
      const by = view.cancelledBy === undefined ? '' : ` by ${principalText(view.cancelledBy)}`;
      const why = view.cancelReason === undefined ? '' : ` (${view.cancelReason})`;
      return { lead: `Cancelled${by}`, ...at(view.resumedAt), rest: `${why}: every undecided ask was rejected.` };
    }
    case 'expired':
      return { lead: 'Expired', when: view.expiresAt, rest: ': no decision can be made now.' };
    case 'resumed':
      return view.resumedAt === undefined
        ? { lead: 'Settled', rest: ': every ask was decided.' }
        : { lead: 'Resumed', when: view.resumedAt, rest: ': every ask was decided.' };
    default:
      return { lead: 'This request is closed', rest: '.' };
  }
}

/** {@link closedBanner} as one sentence, its instant in words at `nowMs`. */
export function closedBannerText(view: PauseView, nowMs: number): string | undefined {
  const banner = closedBanner(view);
  if (banner === undefined) return undefined;
  return `${banner.lead}${banner.when === undefined ? '' : ` ${timeSince(banner.when, nowMs)}`}${banner.rest}`;
}

/** The problems that mean the pause closed before the decision arrived. */
const CLOSING_CODES = ['already_resumed', 'pause_expired', 'pause_cancelled', 'link_closed'];
/** How each says the pause ended; `link_closed` does not say (§11). */
const CLOSED_STATUS: Record<string, 'expired' | 'cancelled' | 'resumed'> = {
  already_resumed: 'resumed',
  pause_expired: 'expired',
  pause_cancelled: 'cancelled',
};

/** What a refusal of a decision means for the page. */
export type Refusal =
  | { kind: 'unauthorized' }
  | { kind: 'link-invalid'; formError: string }
  | { kind: 'already-decided' }
  | { kind: 'args-changed' }
  | { kind: 'closed'; status: 'expired' | 'cancelled' | 'resumed' | 'closed'; outcome: Outcome }
  | { kind: 'attributed'; errors: FieldError[]; formError: string }
  | { kind: 'other'; formError: string };

/** Reads a problem the API returned for `decisions`. */
export function readRefusal(view: PauseView, problem: Problem, decisions: Decision[], signedIn: boolean): Refusal {
  if (problem.status === 401) {
    return signedIn
      ? { kind: 'unauthorized' }
      : { kind: 'link-invalid', formError: 'This link is not valid any more. Ask whoever sent it for a new one.' };
  }
  if (problem.code === 'already_decided') return { kind: 'already-decided' };
  if (problem.code === 'args_changed') return { kind: 'args-changed' };
  if (CLOSING_CODES.includes(problem.code)) {
    return {
      kind: 'closed',
      status: CLOSED_STATUS[problem.code] ?? 'closed',
      outcome: { tone: 'bad', text: problemText(problem) },
    };
  }
  const errors = attributeProblem(view, problem, decisions);
  if (errors.length > 0) {
    return {
      kind: 'attributed',
      errors,
      formError: `Nothing was recorded: ${problem.detail ?? 'the service refused these decisions.'}`,
    };
  }
  return { kind: 'other', formError: problemText(problem) };
}

/** What the page says when someone else decided an ask first, read again as `fresh` (undefined: now closed). */
export function alreadyDecidedText(problem: Problem, fresh: PauseView | undefined) {
  const ask = fresh?.asks.find((a) => a.toolCallId === problem.toolCallId);
  const recorded = ask?.decision === undefined ? 'see the request' : describeDecision(ask.decision);
  const by = ask?.decision?.by;
  const who = by === undefined ? 'someone else' : principalText(by);
  const notes: Record<string, string> =
    problem.toolCallId === undefined ? {} : { [problem.toolCallId]: `Already decided by ${who}: ${recorded}.` };
  const formError =
    fresh === undefined
      ? `Nothing was sent: someone else decided ${ask?.name ?? 'a request'} first, and this request is now closed.`
      : `Nothing was sent: someone else decided ${ask?.name ?? 'a request'} first (${recorded}). Check your other decisions and submit again.`;
  const outcome: Outcome = { tone: 'bad', text: 'Someone else decided first; nothing of yours was sent.' };
  return { notes, formError, outcome };
}

/**
 * What the page says when an ask's arguments were edited since the person read them (§16: `args_changed`), read again
 * as `fresh`: nothing was recorded, and the ask shows its arguments as they are now, to decide on again.
 */
export function argsChangedText(problem: Problem, fresh: PauseView | undefined) {
  const ask = fresh?.asks.find((a) => a.toolCallId === problem.toolCallId);
  const name = ask?.name ?? 'a request';
  const notes: Record<string, string> =
    problem.toolCallId === undefined
      ? {}
      : { [problem.toolCallId]: 'Someone edited these arguments since you read them: check them and decide again.' };
  const formError = `Nothing was sent: the arguments of ${name} changed since you read them. Check what is shown now and submit again.`;
  const outcome: Outcome = { tone: 'bad', text: 'The arguments changed; nothing of yours was sent.' };
  return { notes, formError, outcome };
}

/** The API's failures by the ask and field they name (paths `/decisions/<i>/…`, or the one decision sent). */
export function attributeProblem(view: PauseView, problem: Problem, decisions: Decision[]): FieldError[] {
  const failures = problem.failures ?? [];
  const named = problem.toolCallId === undefined ? [] : namedAskError(view, problem);
  return [
    ...named,
    ...failures.flatMap(({ path, message }) => {
      const match = /^\/decisions\/(\d+)(\/(answer|args|reason|decision|toolCallId))?(.*)$/.exec(path);
      const decision =
        match === null ? (decisions.length === 1 ? decisions[0] : undefined) : decisions[Number(match[1])];
      const index = view.asks.findIndex((ask) => ask.toolCallId === decision?.toolCallId);
      const ask = view.asks[index];
      if (ask === undefined || decision === undefined) return [];
      const ids = idsOf(index);
      const part = match === null ? ('answer' in decision ? 'answer' : 'args') : match[3];
      const rest = match === null ? path : (match[4] ?? '');
      if (part === 'answer') return attribute(formOf(ask, index), [{ path: rest, message }]);
      if (part === 'args') return [{ id: ids.args, message: argsMessage([{ path: rest, message }]) }];
      if (part === 'reason') return [{ id: ids.reason, message: sentence(message) }];
      return [{ id: ids.ask, message: sentence(message) }];
    }),
  ];
}

/** §13's refusals name the ask (`toolCallId`) and have no failures: shown on that ask, in words. */
function namedAskError(view: PauseView, problem: Problem): FieldError[] {
  if ((problem.failures ?? []).length > 0) return [];
  const index = view.asks.findIndex((ask) => ask.toolCallId === problem.toolCallId);
  const ask = view.asks[index];
  if (ask === undefined) return [];
  const text = refusalWords(problem.code, ask);
  return text === undefined ? [] : [{ id: idsOf(index).ask, message: text }];
}

/**
 * Why a person may not decide an ask, in words, from the code the server gave (§16: the view's `refusal`, or a
 * problem's `code`): the page says what the server decided, and never works it out itself.
 */
function refusalWords(code: string | undefined, ask: AskView): string | undefined {
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
 * The page's title and words for a pause it could not read. A closed link's pause is not shown again (§11); what this
 * page remembers deciding on it (`remembered`, for this tab) is said, with when, at `nowMs`.
 */
export function loadProblemText(
  problem: Problem,
  signedIn: boolean,
  remembered?: LinkMemory,
  nowMs?: number,
): { title: string; text: string } {
  const closed = problem.code === 'link_closed';
  const yours =
    remembered === undefined || remembered.decided.length === 0 || nowMs === undefined
      ? undefined
      : `${sentence(`You decided it ${timeSince(remembered.at, nowMs)}: ${remembered.decided.map((ask) => `${ask.name} ${ask.decision}`).join('; ')}`)} It is closed now, and this link opens it no more.`;
  return {
    title: closed ? 'This request is closed' : 'Request',
    text:
      problem.status === 401 && !signedIn
        ? 'This link is not valid. Ask whoever sent it for a new one.'
        : closed
          ? (yours ?? 'Whatever it asked has been settled, has expired or was cancelled.')
          : problemText(problem),
  };
}

/** The submit button: its label, whether it is disabled, and why when it is not for a moment only. */
export function submitState(view: PauseView, busy: boolean): { label: string; disabled: boolean; why?: string } {
  const waiting = waitingAsks(view).length;
  const label = busy ? 'Sending…' : waiting > 1 ? 'Submit decisions' : 'Submit decision';
  if (allReadOnly(view)) {
    return { label, disabled: true, why: 'Nothing here is yours to decide: each request says who may decide it.' };
  }
  return { label, disabled: busy };
}

/** How a pause that is no longer waiting ended (`undefined` while it waits). */
export function closedKind(view: PauseView): 'cancelled' | 'expired' | 'resumed' | 'closed' | undefined {
  if (view.status === 'paused') return undefined;
  if (view.status === 'cancelled' || view.outcome === 'cancelled') return 'cancelled';
  if (view.status === 'expired' || view.outcome === 'expired') return 'expired';
  if (view.status === 'resumed') return 'resumed';
  return 'closed';
}

// -------------------------------------------------------------------------------------------------------------------
// Who may decide (§13). Every field is optional: a service without them shows what it showed before.

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

/** Whether nothing on the pause is the person's to decide: every waiting ask is read-only. */
export function allReadOnly(view: PauseView): boolean {
  const waiting = waitingAsks(view);
  return waiting.length > 0 && waiting.every((ask) => !mayDecide(ask));
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
 * A list row's accessible name: what it asks, not only the tool, so five refunds do not read "refund_order" five
 * times — the tools, then the first prompt, else the run.
 */
export function rowName(pause: Pick<PauseView, 'asks' | 'runId'>): string {
  const tools = pause.asks.map((ask) => ask.name).join(', ');
  const prompt = pause.asks.find((ask) => ask.prompt !== null && ask.prompt !== '')?.prompt;
  return prompt === undefined || prompt === null
    ? `${tools}, run ${pause.runId}`
    : `${tools}: ${shortJson(prompt, 120)}`;
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
