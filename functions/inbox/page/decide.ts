import { DECISION_KINDS, type DecisionKind, LIMITS, unhandled } from '../../vocabulary.ts';
import { type Field, type FieldError, type FormValues, formFor, initialValues, readForm } from './forms.ts';
import type { AskView, Decision, JsonSchema, RecordedDecisionView } from './types.ts';

/**
 * What the person has chosen for each ask, and the decisions it makes (§9), pure. Each undecided ask has a draft:
 * a choice — answer (answer asks), approve, edit (approval asks), reject (any), or later — and what the choice needs:
 * the form's values, the edited arguments as JSON text, the reason. `draftDecision` turns a draft into the decision
 * to send, or the errors the page can tell without the schema; the schema check follows in `validate.ts`.
 */

/** What a person can choose for an ask: to answer it, a decision kind, or to leave it for later. */
export type Choice = 'later' | 'answer' | DecisionKind;

/** One ask's draft. */
export interface Draft {
  choice: Choice | undefined;
  values: FormValues;
  argsText: string;
  reason: string;
  /** The ask's `argsHash` when the draft began (§16): what the person saw, sent back with the decision. */
  seen?: string;
}

/** The longest reason a rejection takes, in UTF-8 bytes (§9). */
export const MAX_REASON_BYTES = LIMITS.reasonBytes;

/** The DOM ids of an ask's controls, beside its form's field ids (`a<index>-f<n>`). */
export function idsOf(index: number) {
  const p = `a${index}`;
  return { ask: p, choice: `${p}-choice`, args: `${p}-args`, reason: `${p}-reason`, formPrefix: `${p}-f` };
}

/** Which asks offer each decision kind (§9): approval asks all of them (an edit only where editable); any ask a reject. */
const OFFERED: Record<DecisionKind, (ask: AskView) => boolean> = {
  approve: (ask) => ask.kind === 'approval',
  edit: (ask) => ask.kind === 'approval' && ask.editable !== false,
  reject: () => true,
};

/** The choices an ask offers, in order; `later` when more than one ask is waiting. */
export function choicesOf(ask: AskView, several: boolean): Choice[] {
  const own: Choice[] = [
    ...(ask.kind === 'answer' ? (['answer'] as const) : []),
    ...DECISION_KINDS.filter((kind) => OFFERED[kind](ask)),
  ];
  return several ? [...own, 'later'] : own;
}

/** The form of an answer ask. */
export function formOf(ask: AskView, index: number): Field {
  return formFor(ask.answerSchema, idsOf(index).formPrefix, 'Your answer');
}

/**
 * A first draft: an answer ask starts on "answer" (its form is what the person came for); an approval ask starts
 * undecided — on "later" when others wait, so approving is always a deliberate choice.
 */
export function firstDraft(ask: AskView, index: number, several: boolean): Draft {
  return {
    choice: ask.kind === 'answer' ? 'answer' : several ? 'later' : undefined,
    values: initialValues(formOf(ask, index), ask.answerSchema),
    argsText: ask.args === undefined || ask.args === null ? '{}' : JSON.stringify(ask.args, null, 2),
    reason: '',
    ...(ask.argsHash === undefined ? {} : { seen: ask.argsHash }),
  };
}

/** What a draft makes: a decision to send with the value its schema must check, or errors, or nothing (later). */
export type Drafted =
  | { kind: 'none' }
  | { kind: 'errors'; errors: FieldError[]; check?: SchemaCheck }
  | { kind: 'decision'; decision: Decision; check?: SchemaCheck };

/** A value for the validator: its schema, and the form field (or the arguments editor) its failures go to. */
export interface SchemaCheck {
  schema: JsonSchema;
  value: unknown;
  field: Field | 'args';
}

/** The decision a draft makes, or why it cannot make one yet. */
export function draftDecision(ask: AskView, index: number, draft: Draft): Drafted {
  const ids = idsOf(index);
  const toolCallId = ask.toolCallId;
  // Every decision carries the arguments' hash the person saw (§16): the server refuses one of arguments since edited.
  const seen = draft.seen === undefined ? {} : { argsHash: draft.seen };
  switch (draft.choice) {
    case undefined:
      return { kind: 'errors', errors: [{ id: ids.choice, message: 'Choose what to do with this request.' }] };
    case 'later':
      return { kind: 'none' };
    case 'approve':
      return { kind: 'decision', decision: { toolCallId, decision: 'approve', ...seen } };
    case 'reject': {
      const reason = draft.reason.trim();
      const bytes = new TextEncoder().encode(reason).length;
      if (bytes > MAX_REASON_BYTES) {
        const message = `The reason is ${bytes} bytes long; at most ${MAX_REASON_BYTES} fit. Shorten it.`;
        return { kind: 'errors', errors: [{ id: ids.reason, message }] };
      }
      return {
        kind: 'decision',
        decision:
          reason === ''
            ? { toolCallId, decision: 'reject', ...seen }
            : { toolCallId, decision: 'reject', reason, ...seen },
      };
    }
    case 'edit': {
      let args: unknown;
      try {
        args = JSON.parse(draft.argsText);
      } catch (error) {
        return {
          kind: 'errors',
          errors: [{ id: ids.args, message: `This is not valid JSON: ${(error as Error).message}` }],
        };
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        return { kind: 'errors', errors: [{ id: ids.args, message: 'The arguments must be a JSON object, in { }.' }] };
      }
      const decision: Decision = { toolCallId, decision: 'edit', args: args as Record<string, unknown>, ...seen };
      return ask.argsSchema === undefined
        ? { kind: 'decision', decision }
        : { kind: 'decision', decision, check: { schema: ask.argsSchema, value: args, field: 'args' } };
    }
    case 'answer': {
      const form = formOf(ask, index);
      const read = readForm(form, draft.values);
      // With errors the form can tell, the schema still checks the other fields, so every error shows at once.
      const check =
        ask.answerSchema === undefined || !('value' in read)
          ? undefined
          : { schema: ask.answerSchema, value: read.value, field: form };
      if (read.errors.length > 0) return { kind: 'errors', errors: read.errors, ...(check ? { check } : {}) };
      const decision: Decision = { toolCallId, answer: read.value, ...seen };
      return check === undefined ? { kind: 'decision', decision } : { kind: 'decision', decision, check };
    }
    default:
      return unhandled(draft.choice, 'choice');
  }
}

/** A recorded decision in words: "Approved", "Rejected: too large", "Answered: …". */
export function describeDecision(decision: RecordedDecisionView): string {
  if ('answer' in decision) return `Answered: ${shortJson(decision.answer)}`;
  switch (decision.decision) {
    case 'approve':
      return 'Approved';
    case 'edit':
      return `Approved with edited arguments: ${shortJson(decision.args)}`;
    case 'reject':
      return decision.reason === undefined || decision.reason === '' ? 'Rejected' : `Rejected: ${decision.reason}`;
    default:
      return unhandled(decision, 'decision kind');
  }
}

/** A JSON value on one line, cut to `max` characters. */
/** What an ask waits for, in words. */
export function kindText(ask: { kind: AskView['kind'] }): string {
  return ask.kind === 'approval' ? 'needs approval' : 'needs an answer';
}

export function shortJson(value: unknown, max = 200): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
