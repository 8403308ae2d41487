import { useEffect, useRef, useState } from 'preact/hooks';
import { type Api, type PauseRef, problemText } from './api.ts';
import { AskCard } from './ask.tsx';
import { type Draft, describeDecision, draftDecision, firstDraft, formOf, idsOf } from './decide.ts';
import { describedBy, ErrorText } from './fields.tsx';
import { attribute, type FieldError, failureText, sentence } from './forms.ts';
import { prettyJson } from './json.ts';
import { fullTime, relativeTime, timeLeft } from './time.ts';
import type { ContinuationBody, Decision, PauseView, PendingDecisions, Problem } from './types.ts';
import { checkSchema } from './validate.ts';

/**
 * One pause: its asks, the turn's context and transcript, the person's decisions, and the outcome of sending them.
 * Nothing is sent while the page can tell something is wrong; what the API still refuses is shown by what it is
 * about, and focus moves to the first error.
 */

interface PauseProps {
  api: Api;
  pauseRef: PauseRef;
  /** Signed in: the pause can be cancelled and re-read after it closes. From a link: neither. */
  signedIn: boolean;
  nowMs: number;
  /** The API refused the bearer token. */
  onUnauthorized(problem: Problem): void;
}

/** What the page says after a submission or a cancel. */
interface Outcome {
  tone: 'good' | 'bad';
  text: string;
}

/** The screen of one pause. */
export function PauseScreen({ api, pauseRef, signedIn, nowMs, onUnauthorized }: PauseProps) {
  const [view, setView] = useState<PauseView | undefined>();
  const [loadProblem, setLoadProblem] = useState<Problem | undefined>();
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [notes, setNotes] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [busy, setBusy] = useState(false);
  const [focusError, setFocusError] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);

  /** Reads the pause again; keeps the person's drafts of asks still waiting. */
  const load = async (): Promise<PauseView | undefined> => {
    const result = await api.pause(pauseRef);
    if (!result.ok) {
      if (result.problem.status === 401 && signedIn) onUnauthorized(result.problem);
      setLoadProblem(result.problem);
      return undefined;
    }
    const fresh = result.body;
    setView(fresh);
    setLoadProblem(undefined);
    const waiting = fresh.asks.filter((ask) => ask.decision === undefined).length;
    setDrafts((old) => {
      const next: Record<string, Draft> = {};
      fresh.asks.forEach((ask, index) => {
        next[ask.toolCallId] = old[ask.toolCallId] ?? firstDraft(ask, index, waiting > 1);
      });
      return next;
    });
    return fresh;
  };

  useEffect(() => {
    void load().then(() => heading.current?.focus());
  }, [pauseRef.runId, pauseRef.interruptId]);

  // After a failed check or a refusal, focus goes to the first control in error (in page order).
  useEffect(() => {
    if (focusError === 0) return;
    const first = document.querySelector('main .error');
    const control =
      first === null ? null : (document.querySelector(`[aria-describedby~="${first.id}"]`) ?? first.parentElement);
    const target = control?.matches('fieldset') ? control.querySelector('input, select, textarea') : control;
    (target as HTMLElement | null)?.focus();
  }, [focusError]);

  if (view === undefined) {
    return (
      <section aria-labelledby="pause-title">
        <h1 id="pause-title" tabIndex={-1} ref={heading}>
          {loadProblem?.code === 'link_closed' ? 'This request is closed' : 'Request'}
        </h1>
        {loadProblem === undefined ? (
          <p role="status">Loading…</p>
        ) : (
          <p class="error" role="alert">
            {loadProblem.status === 401 && !signedIn
              ? 'This link is not valid. Ask whoever sent it for a new one.'
              : loadProblem.code === 'link_closed'
                ? 'Whatever it asked has been settled, has expired or was cancelled.'
                : problemText(loadProblem)}
          </p>
        )}
      </section>
    );
  }

  const open = view.status === 'paused';
  const waiting = view.asks.filter((ask) => ask.decision === undefined);
  const names = (ids: readonly string[]) =>
    ids.map((id) => view.asks.find((ask) => ask.toolCallId === id)?.name ?? id).join(', ');

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setFormError(undefined);
    setOutcome(undefined);
    setNotes({});
    const found: FieldError[] = [];
    const decisions: Decision[] = [];
    const checks: Array<Promise<void>> = [];
    view.asks.forEach((ask, index) => {
      const draft = drafts[ask.toolCallId];
      if (ask.decision !== undefined || draft === undefined) return;
      const drafted = draftDecision(ask, index, draft);
      if (drafted.kind === 'none') return;
      if (drafted.kind === 'decision') decisions.push(drafted.decision);
      const known = drafted.kind === 'errors' ? drafted.errors : [];
      found.push(...known);
      const { check } = drafted;
      if (check === undefined) return;
      checks.push(
        checkSchema(check.schema, check.value).then((failures) => {
          if (failures === undefined || failures.length === 0) return;
          if (check.field === 'args') {
            found.push({ id: idsOf(index).args, message: argsMessage(failures) });
            return;
          }
          // A field the form already marked keeps its own words (a missing choice is not also "required").
          const marked = new Set(known.map((error) => error.id));
          found.push(...attribute(check.field, failures).filter((error) => !marked.has(error.id)));
        }),
      );
    });
    setBusy(true);
    await Promise.all(checks);
    if (found.length > 0) {
      setBusy(false);
      setErrors(merge(found));
      setFormError('Nothing was sent: correct what is marked, then submit again.');
      setFocusError((n) => n + 1);
      return;
    }
    setErrors({});
    if (decisions.length === 0) {
      setBusy(false);
      setFormError('Nothing to send: choose a decision for at least one request.');
      return;
    }
    const result = await api.decide(pauseRef, decisions);
    setBusy(false);
    if (result.ok) {
      if (result.status === 202) {
        const pending = (result.body as PendingDecisions).pending;
        setOutcome({ tone: 'good', text: `Recorded. Still waiting for a decision on: ${names(pending)}.` });
        await load();
        return;
      }
      const closed = result.body as ContinuationBody;
      setOutcome({ tone: 'good', text: resumedText(closed) });
      if (signedIn) await load();
      else setView(closedLocally(view, decisions, closed));
      return;
    }
    await refused(result.problem, decisions);
  };

  /** A refusal in words, by what it is about. */
  const refused = async (problem: Problem, decisions: Decision[]) => {
    if (problem.status === 401) {
      if (signedIn) onUnauthorized(problem);
      else setFormError('This link is not valid any more. Ask whoever sent it for a new one.');
      return;
    }
    if (problem.code === 'already_decided') {
      const fresh = await load();
      const ask = fresh?.asks.find((a) => a.toolCallId === problem.toolCallId);
      const recorded = ask?.decision === undefined ? 'see the request' : describeDecision(ask.decision);
      if (problem.toolCallId !== undefined) {
        setNotes({ [problem.toolCallId]: `Already decided by someone else: ${recorded}.` });
      }
      setFormError(
        fresh === undefined
          ? `Nothing was sent: someone else decided ${ask?.name ?? 'a request'} first, and this request is now closed.`
          : `Nothing was sent: someone else decided ${ask?.name ?? 'a request'} first (${recorded}). Check your other decisions and submit again.`,
      );
      setOutcome({ tone: 'bad', text: 'Someone else decided first; nothing of yours was sent.' });
      return;
    }
    if (['already_resumed', 'pause_expired', 'pause_cancelled', 'link_closed'].includes(problem.code)) {
      if (signedIn) await load();
      else setView({ ...view, status: problem.code === 'pause_expired' ? 'expired' : 'closed' });
      setOutcome({ tone: 'bad', text: problemText(problem) });
      return;
    }
    const attributed = attributeProblem(problem, decisions);
    if (attributed.length > 0) {
      setErrors(merge(attributed));
      setFormError(`Nothing was recorded: ${problem.detail ?? 'the service refused these decisions.'}`);
      setFocusError((n) => n + 1);
      return;
    }
    setFormError(problemText(problem));
  };

  /** The API's failures by the ask and field they name (paths `/decisions/<i>/…`, or the one decision sent). */
  const attributeProblem = (problem: Problem, decisions: Decision[]): FieldError[] => {
    const failures = problem.failures ?? [];
    return failures.flatMap(({ path, message }) => {
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
    });
  };
  const outcomeRegion = (
    <div class={`outcome ${outcome?.tone ?? ''}`} role="status" aria-live="polite">
      {outcome?.text}
    </div>
  );

  return (
    <article aria-labelledby="pause-title">
      <h1 id="pause-title" tabIndex={-1} ref={heading}>
        Request from <code class="run">{view.runId}</code>
      </h1>
      <p class="meta">
        Asked{' '}
        <time dateTime={view.createdAt} title={fullTime(view.createdAt)}>
          {relativeTime(view.createdAt, nowMs)}
        </time>
        {' · '}
        <time dateTime={view.expiresAt} title={fullTime(view.expiresAt)}>
          {timeLeft(view.expiresAt, nowMs)}
        </time>
      </p>
      <StatusBanner view={view} nowMs={nowMs} />
      <Context api={api} pauseRef={pauseRef} view={view} />
      <form onSubmit={submit} noValidate aria-labelledby="asks-title">
        <h2 id="asks-title">{view.asks.length === 1 ? 'What is asked' : `What is asked (${view.asks.length})`}</h2>
        {view.asks.map((ask, index) => (
          <AskCard
            key={ask.toolCallId}
            ask={ask}
            index={index}
            open={open}
            several={waiting.length > 1}
            draft={drafts[ask.toolCallId] ?? firstDraft(ask, index, waiting.length > 1)}
            errors={errors}
            note={notes[ask.toolCallId]}
            nowMs={nowMs}
            onDraft={(draft) => setDrafts((old) => ({ ...old, [ask.toolCallId]: draft }))}
          />
        ))}
        {open ? (
          <div class="actions">
            <button
              type="submit"
              class="primary"
              disabled={busy}
              aria-describedby={formError ? 'form-error' : undefined}
            >
              {busy ? 'Sending…' : waiting.length > 1 ? 'Submit decisions' : 'Submit decision'}
            </button>
          </div>
        ) : null}
        {formError === undefined ? null : (
          <p class="error" id="form-error" role="alert">
            {formError}
          </p>
        )}
      </form>
      {outcomeRegion}
      {signedIn && open ? <CancelBox api={api} pauseRef={pauseRef} onDone={load} onOutcome={setOutcome} /> : null}
    </article>
  );
}

function merge(errors: FieldError[]): Record<string, string> {
  const byId: Record<string, string> = {};
  for (const { id, message } of errors) byId[id] = byId[id] === undefined ? message : `${byId[id]} ${message}`;
  return byId;
}

function argsMessage(failures: ReadonlyArray<{ path: string; message: string }>): string {
  return failures.map(failureText).join(' ');
}

function resumedText(closed: ContinuationBody): string {
  if (closed.outcome === 'cancelled') return 'Cancelled. The agent has been told.';
  const run = closed.dispatch.map((call) => call.name);
  return run.length === 0
    ? 'Resumed: the agent goes on with your decisions.'
    : `Resumed: the agent will now run ${run.join(', ')}.`;
}

/** From a link the pause cannot be read once closed: what the page knows of it, from what it sent. */
function closedLocally(view: PauseView, decisions: Decision[], closed: ContinuationBody): PauseView {
  const asks = view.asks.map((ask) => {
    if (ask.decision !== undefined) return ask;
    const sent = decisions.find((d) => d.toolCallId === ask.toolCallId);
    if (sent === undefined) return ask;
    const { toolCallId: _, ...decision } = sent;
    return { ...ask, decision: decision as NonNullable<typeof ask.decision>, decidedAt: closed.resumedAt };
  });
  return { ...view, asks, status: 'resumed', outcome: closed.outcome, resumedAt: closed.resumedAt };
}

/** Says how a pause that is no longer waiting ended. */
function StatusBanner({ view, nowMs }: { view: PauseView; nowMs: number }) {
  if (view.status === 'paused') return null;
  const when = view.resumedAt ?? view.expiresAt;
  const time = (
    <time dateTime={when} title={fullTime(when)}>
      {relativeTime(when, nowMs)}
    </time>
  );
  const text =
    view.status === 'cancelled' || view.outcome === 'cancelled' ? (
      <>Cancelled {time}: every undecided ask was rejected.</>
    ) : view.status === 'expired' || view.outcome === 'expired' ? (
      <>Expired {time}: no decision can be made now.</>
    ) : view.status === 'resumed' ? (
      <>Resumed {time}: every ask was decided.</>
    ) : (
      <>This request is closed.</>
    );
  return <p class="banner">{text}</p>;
}

/** The turn's context, and the whole transcript a click away, in slices. */
function Context({ api, pauseRef, view }: { api: Api; pauseRef: PauseRef; view: PauseView }) {
  const [shown, setShown] = useState(false);
  const [messages, setMessages] = useState<unknown[]>([]);
  const [total, setTotal] = useState<number | undefined>();
  const [next, setNext] = useState<number | undefined>(0);
  const [problem, setProblem] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const more = async () => {
    if (next === undefined || loading) return;
    setLoading(true);
    const result = await api.messages(pauseRef, next);
    setLoading(false);
    if (!result.ok) {
      setProblem(problemText(result.problem));
      return;
    }
    setProblem(undefined);
    const slice = result.body.messages ?? [];
    setMessages((old) => [...old, ...slice]);
    setTotal(result.body.total ?? next + slice.length);
    setNext(result.body.next);
  };
  const toggle = () => {
    setShown(!shown);
    if (!shown && messages.length === 0) void more();
  };
  const { user, assistant } = view.context ?? {};
  return (
    <section class="context" aria-labelledby="context-title">
      <h2 id="context-title">The conversation</h2>
      {user === undefined ? null : (
        <figure>
          <figcaption>The user's last message</figcaption>
          <blockquote dir="auto">{user}</blockquote>
        </figure>
      )}
      {assistant === undefined ? null : (
        <figure>
          <figcaption>The assistant, before asking</figcaption>
          <blockquote dir="auto">{assistant}</blockquote>
        </figure>
      )}
      {user === undefined && assistant === undefined ? <p class="help">No text before the request.</p> : null}
      <button type="button" aria-expanded={shown} aria-controls="transcript" onClick={toggle}>
        {shown ? 'Hide the transcript' : 'Show the whole transcript'}
      </button>
      {shown ? (
        <div id="transcript">
          <ol class="transcript">
            {messages.map((message, index) => (
              <li key={index}>
                <pre class="json">{prettyJson(message)}</pre>
              </li>
            ))}
          </ol>
          <p role="status">
            {loading
              ? 'Loading…'
              : total === undefined
                ? ''
                : `Showing ${messages.length} of ${total} message${total === 1 ? '' : 's'}.`}
          </p>
          {problem === undefined ? null : <p class="error">{problem}</p>}
          {next !== undefined && !loading && messages.length > 0 ? (
            <button type="button" onClick={() => void more()}>
              Load more
            </button>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

/** Cancels the whole pause (signed in only), with a reason. */
function CancelBox({
  api,
  pauseRef,
  onDone,
  onOutcome,
}: {
  api: Api;
  pauseRef: PauseRef;
  onDone(): Promise<unknown>;
  onOutcome(outcome: Outcome): void;
}) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const cancel = async () => {
    setBusy(true);
    const trimmed = reason.trim();
    const result = await api.cancel(pauseRef, trimmed === '' ? undefined : trimmed);
    setBusy(false);
    if (!result.ok) {
      setError(problemText(result.problem));
      if (['already_resumed', 'pause_expired'].includes(result.problem.code)) await onDone();
      return;
    }
    setError(undefined);
    onOutcome({ tone: 'good', text: 'Cancelled. Every undecided ask was rejected and the agent has been told.' });
    await onDone();
  };
  return (
    <details class="cancel">
      <summary>Cancel this request…</summary>
      <p>Every ask not yet decided is rejected with your reason, and the agent is told. Nothing is run.</p>
      <div class="field">
        <label for="cancel-reason">Reason for cancelling (optional)</label>
        <textarea
          id="cancel-reason"
          rows={2}
          value={reason}
          onInput={(event) => setReason((event.currentTarget as HTMLTextAreaElement).value)}
          aria-invalid={error === undefined ? undefined : true}
          aria-describedby={describedBy('cancel-reason', false, error)}
        />
        <ErrorText id="cancel-reason" error={error} />
      </div>
      <button type="button" class="danger" disabled={busy} onClick={() => void cancel()}>
        {busy ? 'Cancelling…' : 'Cancel the request'}
      </button>
    </details>
  );
}
