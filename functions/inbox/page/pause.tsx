import { useEffect, useRef, useState } from 'preact/hooks';
import { type Api, type PauseRef, problemText } from './api.ts';
import { AskCard } from './ask.tsx';
import { type Draft, firstDraft } from './decide.ts';
import { type Handed, principalText, readOnlyText } from './deciders.ts';
import { describedBy, ErrorText } from './fields.tsx';
import type { FieldError } from './forms.ts';
import { prettyJson } from './json.ts';
import { alreadyDecidedText, argsChangedText, loadProblemText, readRefusal } from './refusals.ts';
import {
  closedBanner,
  closedLocally,
  collectDecisions,
  failureErrors,
  type LinkMemory,
  linkMemoryOf,
  mergeErrors,
  nextDrafts,
  type Outcome,
  pendingText,
  resumedText,
  submitState,
  waitingAsks,
} from './screen.ts';
import { Left, Since } from './times.tsx';
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
  /** From a link: what this tab remembers deciding on its pause, once that closed it (`LinkMemory`). */
  memory?: { read(): LinkMemory | undefined; write(memory: LinkMemory): void };
  /** The API refused the bearer token. */
  onUnauthorized(problem: Problem): void;
  /** §20: until when each person's approvals are the signed-in person's, by id. */
  handed?: Handed | undefined;
}

/** The screen of one pause. */
export function PauseScreen({ api, pauseRef, signedIn, nowMs, memory, onUnauthorized, handed }: PauseProps) {
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
    setDrafts((old) => nextDrafts(old, fresh));
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
    const said = loadProblem === undefined ? undefined : loadProblemText(loadProblem, signedIn, memory?.read(), nowMs);
    return (
      <section aria-labelledby="pause-title">
        <h1 id="pause-title" tabIndex={-1} ref={heading}>
          {said?.title ?? 'Request'}
        </h1>
        {said === undefined ? (
          <p role="status">Loading…</p>
        ) : (
          <p class="error" role="alert">
            {said.text}
          </p>
        )}
      </section>
    );
  }

  const open = view.status === 'paused';
  const waiting = waitingAsks(view);
  const submitting = submitState(view, busy);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setFormError(undefined);
    setOutcome(undefined);
    setNotes({});
    const { decisions, errors: known, checks } = collectDecisions(view, drafts);
    const found: FieldError[] = [...known];
    setBusy(true);
    const verdicts = await Promise.all(checks.map(({ check }) => checkSchema(check.schema, check.value)));
    checks.forEach((pending, i) => {
      found.push(...failureErrors(pending, verdicts[i]));
    });
    if (found.length > 0) {
      setBusy(false);
      setErrors(mergeErrors(found));
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
        setOutcome({ tone: 'good', text: pendingText(view, result.body as PendingDecisions) });
        await load();
        return;
      }
      const closed = result.body as ContinuationBody;
      setOutcome({ tone: 'good', text: resumedText(closed) });
      if (signedIn) await load();
      else {
        const local = closedLocally(view, decisions, closed);
        memory?.write(linkMemoryOf(local));
        setView(local);
      }
      return;
    }
    await refused(result.problem, decisions);
  };

  /** A refusal in words, by what it is about. */
  const refused = async (problem: Problem, decisions: Decision[]) => {
    const refusal = readRefusal(view, problem, decisions, signedIn);
    switch (refusal.kind) {
      case 'unauthorized':
        onUnauthorized(problem);
        return;
      case 'already-decided':
      case 'args-changed': {
        // Read again: a changed ask's draft starts over on the arguments as they are now (`nextDrafts`).
        const said = (refusal.kind === 'already-decided' ? alreadyDecidedText : argsChangedText)(problem, await load());
        setNotes(said.notes);
        setFormError(said.formError);
        setOutcome(said.outcome);
        return;
      }
      case 'closed':
        if (signedIn) await load();
        else setView({ ...view, status: refusal.status });
        setOutcome(refusal.outcome);
        return;
      case 'attributed':
        setErrors(mergeErrors(refusal.errors));
        setFormError(refusal.formError);
        setFocusError((n) => n + 1);
        return;
      default:
        setFormError(refusal.formError);
    }
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
        Asked <Since at={view.createdAt} nowMs={nowMs} />
        {' · '}
        <Left at={view.expiresAt} nowMs={nowMs} />
        {view.pausedBy === undefined ? null : <> · paused by {principalText(view.pausedBy)}</>}
        {view.cancelledBy === undefined ? null : <> · cancelled by {principalText(view.cancelledBy)}</>}
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
            readOnly={open ? readOnlyText(ask) : undefined}
            several={waiting.length > 1}
            draft={drafts[ask.toolCallId] ?? firstDraft(ask, index, waiting.length > 1)}
            errors={errors}
            note={notes[ask.toolCallId]}
            nowMs={nowMs}
            handed={handed}
            onDraft={(draft) => setDrafts((old) => ({ ...old, [ask.toolCallId]: draft }))}
          />
        ))}
        {open ? (
          <div class="actions">
            <button
              type="submit"
              class="primary"
              disabled={submitting.disabled}
              aria-describedby={
                [submitting.why ? 'submit-why' : '', formError ? 'form-error' : ''].filter(Boolean).join(' ') ||
                undefined
              }
            >
              {submitting.label}
            </button>
            {submitting.why === undefined ? null : (
              <p class="help" id="submit-why">
                {submitting.why}
              </p>
            )}
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

/** Says how a pause that is no longer waiting ended, by whom when known, and when. */
function StatusBanner({ view, nowMs }: { view: PauseView; nowMs: number }) {
  const banner = closedBanner(view);
  if (banner === undefined) return null;
  return (
    <p class="banner">
      {banner.lead}
      {banner.when === undefined ? null : (
        <>
          {' '}
          <Since at={banner.when} nowMs={nowMs} />
        </>
      )}
      {banner.rest}
    </p>
  );
}

/**
 * A coding agent's pause (§22: Claude Code's hook and channel put `source: "claude-code"` in its metadata) and where
 * it works, as the pause recorded them; undefined for any other pause.
 */
function codingAgentOf(view: PauseView): { project?: string; cwd?: string } | undefined {
  const metadata = view.metadata ?? {};
  if (metadata.source !== 'claude-code') return undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const project = text(metadata.project);
  const cwd = text(metadata.cwd);
  return { ...(project === undefined ? {} : { project }), ...(cwd === undefined ? {} : { cwd }) };
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
  const agent = codingAgentOf(view);
  return (
    <section class="context" aria-labelledby="context-title">
      <h2 id="context-title">{agent === undefined ? 'The conversation' : "The agent's request"}</h2>
      {agent === undefined ? null : (
        <dl class="agent">
          {agent.project === undefined ? null : (
            <>
              <dt>Project</dt>
              <dd>{agent.project}</dd>
            </>
          )}
          {agent.cwd === undefined ? null : (
            <>
              <dt>Working directory</dt>
              <dd>
                <code>{agent.cwd}</code>
              </dd>
            </>
          )}
        </dl>
      )}
      {user === undefined ? null : (
        <figure>
          {/* A coding agent's first message is what its session was working on, or a line Handback wrote for it. */}
          <figcaption>{agent === undefined ? "The user's last message" : 'What the agent was working on'}</figcaption>
          <blockquote dir="auto">{user}</blockquote>
        </figure>
      )}
      {assistant === undefined ? null : (
        <figure>
          <figcaption>{agent === undefined ? 'The assistant, before asking' : 'The agent, before asking'}</figcaption>
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
