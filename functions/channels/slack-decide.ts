import { DECISION_KINDS, type DecisionKind, unhandled } from '../vocabulary.ts';
import type { AskView, Decision } from '../wire.ts';
import {
  ANSWER_BLOCK,
  ARGS_BLOCK,
  type ButtonValue,
  DECISION_ACTIONS,
  enumOf,
  fieldsOf,
  type ModalMetadata,
  REASON_BLOCK,
  SlackAction,
  SlackModal,
} from './slack-message.ts';

/**
 * What a click or a modal submission in Slack decides (§14), pure: a button's action id and value, or a modal's
 * callback id and fields, in; the decision to record, the modal to open, or the fields' errors out.
 */

/** What a click asks for: a decision to record at once, a modal to open first, or nothing. */
export type Click =
  | { kind: 'decide'; decision: Decision }
  | { kind: 'modal'; modal: 'edit' | 'reject' | 'answer' }
  | { kind: 'none' };

/** What a click on a button of ask `ask` does (the button's `action_id` and parsed `value`). */
export function clickOf(actionId: string, value: ButtonValue, ask: AskView): Click {
  const kind = DECISION_KINDS.find((each) => DECISION_ACTIONS[each] === actionId);
  if (kind !== undefined) return decisionClick(kind, value, ask);
  if (actionId === SlackAction.Choose) {
    const values = enumOf(ask.answerSchema) ?? [];
    if (value.v === undefined || !(value.v in values)) return { kind: 'none' };
    return { kind: 'decide', decision: { toolCallId: ask.toolCallId, answer: values[value.v] } };
  }
  if (actionId === SlackAction.Answer) return { kind: 'modal', modal: 'answer' };
  return { kind: 'none' };
}

/** Each decision kind's button: an approve decides as the message showed it; an edit or a reject asks first. */
function decisionClick(kind: DecisionKind, value: ButtonValue, ask: AskView): Click {
  switch (kind) {
    case 'approve':
      // Approved as the message showed it (§16): arguments edited since are args_changed, told to the clicker.
      return {
        kind: 'decide',
        decision: {
          toolCallId: ask.toolCallId,
          decision: 'approve',
          ...(value.h === undefined ? {} : { argsHash: value.h }),
        },
      };
    case 'edit':
    case 'reject':
      return { kind: 'modal', modal: kind };
    default:
      return unhandled(kind, 'decision kind');
  }
}

/** A modal's fields as Slack submits them: `state.values[block][action]`. */
export type SubmittedValues = Record<string, Record<string, { value?: string | null }>>;

/** What a submission makes: the decision, the fields' errors (by block id), or nothing (not a modal of ours). */
export type Submitted = { decision: Decision } | { errors: Record<string, string> } | undefined;

/** The decision a modal's submission makes for `ask`, with the arguments' hash the modal showed (`metadata.h`). */
export function submissionOf(
  callbackId: string | undefined,
  values: SubmittedValues,
  ask: AskView,
  metadata: ModalMetadata,
): Submitted {
  const text = (block: string) => values[block]?.value?.value ?? undefined;
  const kind = DECISION_KINDS.find((each) => DECISION_ACTIONS[each] === callbackId);
  if (kind !== undefined) return decisionSubmission(kind, text, ask, metadata);
  if (callbackId !== SlackModal.Answer) return undefined;
  const fields = fieldsOf(ask.answerSchema);
  if (fields === undefined) {
    const raw = text(ANSWER_BLOCK) ?? '';
    const answer = parseJson<unknown>(raw);
    // A bare word is taken as the string it is: people type answers, not JSON.
    return { decision: { toolCallId: ask.toolCallId, answer: answer === undefined ? raw : answer } };
  }
  const answer: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = text(`${ANSWER_BLOCK}:${field.name}`);
    if (raw === undefined || raw === '') continue;
    answer[field.name] = coerce(raw, field.type);
  }
  return { decision: { toolCallId: ask.toolCallId, answer } };
}

/** Each decision kind's modal: an edit's arguments, a reject's reason; an approve opens none. */
function decisionSubmission(
  kind: DecisionKind,
  text: (block: string) => string | undefined,
  ask: AskView,
  metadata: ModalMetadata,
): Submitted {
  switch (kind) {
    case 'approve':
      return undefined;
    case 'edit': {
      const args = parseJson<unknown>(text(ARGS_BLOCK) ?? '');
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        return { errors: { [ARGS_BLOCK]: 'The arguments must be a JSON object.' } };
      }
      return {
        decision: {
          toolCallId: ask.toolCallId,
          decision: 'edit',
          args: args as Record<string, unknown>,
          ...(metadata.h === undefined ? {} : { argsHash: metadata.h }),
        },
      };
    }
    case 'reject': {
      const reason = text(REASON_BLOCK);
      return { decision: { toolCallId: ask.toolCallId, decision: 'reject', ...(reason ? { reason } : {}) } };
    }
    default:
      return unhandled(kind, 'decision kind');
  }
}

/** A typed field's text as its JSON type, when it reads as one; else the text itself (the schema check says why). */
function coerce(raw: string, type: string): unknown {
  if (type === 'string') return raw;
  if (type === 'boolean') return raw.trim() === 'true' ? true : raw.trim() === 'false' ? false : raw;
  const number = Number(raw);
  return raw.trim() !== '' && Number.isFinite(number) ? number : raw;
}

/** `text` as JSON, or undefined when it is none. */
export function parseJson<T>(text: string | undefined | null): T | undefined {
  if (text === undefined || text === null || text === '') return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
