import {
  type Draft,
  describeDecision,
  draftDecision,
  firstDraft,
  idsOf,
  type SchemaCheck,
  shortJson,
} from './decide.ts';
import { mayDecide, principalText } from './deciders.ts';
import { attribute, type FieldError, failureText } from './forms.ts';
import { timeSince } from './time.ts';
import type { AskView, ContinuationBody, Decision, PauseView, PendingDecisions, Principal } from './types.ts';

/**
 * The pause screen's logic, pure (`pause.tsx` renders it): which drafts become which decisions, what an answer means
 * for the page, how a closed pause reads and why a control is disabled; what a problem means is `refusals.ts`, who may
 * decide (§13) `deciders.ts`. No DOM, no fetch, no clock: each function takes what it reads and returns what the
 * screen shows or sends.
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

/** Schema failures of an ask's arguments in words, for its arguments' field. */
export function argsMessage(failures: ReadonlyArray<{ path: string; message: string }>): string {
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

/** Whether nothing on the pause is the person's to decide: every waiting ask is read-only. */
export function allReadOnly(view: PauseView): boolean {
  const waiting = waitingAsks(view);
  return waiting.length > 0 && waiting.every((ask) => !mayDecide(ask));
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
