import { executionText } from '../../checkpoints/execution-words.ts';
import { policyNowText, policyText } from '../../policies/words.ts';
import { type Choice, choicesOf, type Draft, describeDecision, formOf, idsOf, kindText } from './decide.ts';
import { decidedByText, escalatedText, type Handed, votesText } from './deciders.ts';
import { describedBy, ErrorText, FieldView } from './fields.tsx';
import { prettyJson } from './json.ts';
import { fullTime } from './time.ts';
import { Since } from './times.tsx';
import type { AskView } from './types.ts';

/**
 * One ask of a pause: the tool the model called, its arguments, the prompt, and — while it waits — the person's
 * choice with what the choice needs; once decided, what was decided.
 */

const CHOICE_LABELS: Record<Choice, string> = {
  answer: 'Answer',
  approve: 'Approve',
  edit: 'Edit the arguments, then approve',
  reject: 'Reject',
  later: 'Decide later',
};

interface AskProps {
  ask: AskView;
  index: number;
  /** False once the pause has closed: nothing can be decided. */
  open: boolean;
  /** Why the person may not decide this ask (§13): it is shown read-only, with who may. */
  readOnly: string | undefined;
  /** More than one ask is waiting: each may be left for later. */
  several: boolean;
  draft: Draft;
  errors: Record<string, string>;
  /** Said about this ask after a submission (e.g. someone else decided it first). */
  note: string | undefined;
  nowMs: number;
  /** §20: until when each person's approvals are the signed-in person's, by id. */
  handed?: Handed | undefined;
  onDraft(draft: Draft): void;
}

/** An ask and its decision controls. */
export function AskCard({
  ask,
  index,
  open,
  readOnly,
  several,
  draft,
  errors,
  note,
  nowMs,
  handed,
  onDraft,
}: AskProps) {
  const ids = idsOf(index);
  const titleId = `${ids.ask}-title`;
  const choiceError = errors[ids.choice];
  const set = (change: Partial<Draft>) => onDraft({ ...draft, ...change });
  const votes = votesText(ask, handed);
  const by = decidedByText(ask, handed);
  // Why it waits, or what the policies did or (in shadow mode) would have done (§17).
  const policy = policyText(ask.policy);
  // §19: what they make of the edited arguments, when an edit's vote left the ask waiting.
  const policyNow = policyNowText(ask.policyNow);
  // §19: whether the approved call ran, as its execution claim says — never before it says so.
  const execution = executionText(ask.execution, fullTime);
  const escalated = ask.decision === undefined ? escalatedText(ask, fullTime) : undefined;
  return (
    <section class="ask" id={ids.ask} aria-labelledby={titleId}>
      <h3 id={titleId}>
        <code class="tool">{ask.name}</code> <span class="kind">{kindText(ask)}</span>
      </h3>
      {ask.prompt === null || ask.prompt === '' ? null : (
        <p class="prompt" dir="auto">
          {ask.prompt}
        </p>
      )}
      <p class="label" id={`${ids.ask}-args-label`}>
        The model's arguments
      </p>
      {ask.argsOmitted ? <p class="help">Too large to show here.</p> : <pre class="json">{prettyJson(ask.args)}</pre>}
      {ask.decision !== undefined ? (
        <p class="decided">
          <strong>{describeDecision(ask.decision)}</strong>
          {by === undefined ? null : ` ${by}`}
          {ask.decidedAt === undefined ? null : (
            <>
              {' '}
              <Since at={ask.decidedAt} nowMs={nowMs} />
            </>
          )}
        </p>
      ) : null}
      {execution === undefined ? null : <p class="note execution">{execution}</p>}
      {votes === undefined || ask.decision !== undefined ? null : <p class="votes">{votes}</p>}
      {escalated === undefined ? null : <p class="note escalated">{escalated}</p>}
      {policy === undefined ? null : <p class="note policy">{policy}</p>}
      {policyNow === undefined ? null : <p class="note policy-now">{policyNow}</p>}
      {readOnly === undefined ? null : (
        <p class="note readonly" id={`${ids.ask}-readonly`}>
          {readOnly}
        </p>
      )}
      {note === undefined ? null : (
        <p class="note" id={`${ids.ask}-note`}>
          {note}
        </p>
      )}
      {ask.decision === undefined && open && readOnly === undefined ? (
        <>
          <fieldset class="choices" aria-describedby={describedBy(ids.choice, false, choiceError)}>
            <legend>Your decision</legend>
            {choicesOf(ask, several).map((choice) => (
              <div class="check" key={choice}>
                <input
                  type="radio"
                  id={`${ids.choice}-${choice}`}
                  name={ids.choice}
                  value={choice}
                  checked={draft.choice === choice}
                  onChange={() => set({ choice })}
                  aria-invalid={choiceError === undefined ? undefined : true}
                />
                <label for={`${ids.choice}-${choice}`}>{CHOICE_LABELS[choice]}</label>
              </div>
            ))}
            <ErrorText id={ids.choice} error={choiceError} />
          </fieldset>
          {draft.choice === 'answer' ? (
            <FieldView
              field={formOf(ask, index)}
              values={draft.values}
              errors={errors}
              schema={ask.answerSchema}
              onChange={(id, value) => set({ values: { ...draft.values, [id]: value } })}
            />
          ) : null}
          {draft.choice === 'edit' ? (
            <div class="field">
              <label for={ids.args}>Arguments to run the tool with (a JSON object)</label>
              {ask.argsSchema === undefined ? null : (
                <details class="schema">
                  <summary>The schema the arguments must match</summary>
                  <pre>{prettyJson(ask.argsSchema)}</pre>
                </details>
              )}
              <textarea
                id={ids.args}
                class="code"
                rows={8}
                spellcheck={false}
                value={draft.argsText}
                onInput={(event) => set({ argsText: (event.currentTarget as HTMLTextAreaElement).value })}
                aria-invalid={errors[ids.args] === undefined ? undefined : true}
                aria-describedby={describedBy(ids.args, false, errors[ids.args])}
              />
              <ErrorText id={ids.args} error={errors[ids.args]} />
            </div>
          ) : null}
          {draft.choice === 'reject' ? (
            <div class="field">
              <label for={ids.reason}>Reason (optional; the agent is told)</label>
              <textarea
                id={ids.reason}
                rows={2}
                value={draft.reason}
                onInput={(event) => set({ reason: (event.currentTarget as HTMLTextAreaElement).value })}
                aria-invalid={errors[ids.reason] === undefined ? undefined : true}
                aria-describedby={describedBy(ids.reason, false, errors[ids.reason])}
              />
              <ErrorText id={ids.reason} error={errors[ids.reason]} />
            </div>
          ) : null}
          <ErrorText id={ids.ask} error={errors[ids.ask]} />
        </>
      ) : null}
    </section>
  );
}
