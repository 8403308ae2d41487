import { describeDecision, formOf, idsOf } from './decide.ts';
import { principalText, refusalWords } from './deciders.ts';
import { attribute, type FieldError, sentence } from './forms.ts';
import { problemText } from './problems.ts';
import { argsMessage, type LinkMemory, type Outcome } from './screen.ts';
import { timeSince } from './time.ts';
import type { Decision, PauseView, Problem } from './types.ts';

/** What a problem the API answered means for the pause screen: a refused decision, or a pause it could not read. */

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
