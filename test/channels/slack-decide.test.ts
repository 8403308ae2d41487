import { describe, expect, it } from 'vitest';
import { clickOf, submissionOf } from '../../functions/channels/slack-decide.ts';
import {
  ANSWER_BLOCK,
  ARGS_BLOCK,
  DECISION_ACTIONS,
  REASON_BLOCK,
  SlackAction,
  SlackModal,
} from '../../functions/channels/slack-message.ts';
import { DECISION_KINDS } from '../../functions/vocabulary.ts';
import type { AskView } from '../../functions/wire.ts';

/** What a click or a modal submission in Slack decides (`slack-decide.ts`), pure: each decision kind's button and modal. */

const approval: AskView = {
  toolCallId: 'call_refund',
  name: 'refund_order',
  args: { amount: 30 },
  kind: 'approval',
  prompt: null,
  editable: true,
};
const question: AskView = {
  toolCallId: 'call_reason',
  name: 'pick_reason',
  args: {},
  kind: 'answer',
  prompt: 'Why?',
  answerSchema: {
    type: 'object',
    properties: { why: { type: 'string' }, amount: { type: 'number' }, urgent: { type: 'boolean' } },
  },
};
const metadata = { channel: 'C0123456789', ts: '1.2', a: 0, h: 'hash-seen' };
const field = (value: string) => ({ value: { value } });

describe('a click in Slack', () => {
  it('gives every decision kind its own action id, the one its modal answers to', () => {
    const ids = DECISION_KINDS.map((kind) => DECISION_ACTIONS[kind]);
    expect(new Set(ids).size).toBe(DECISION_KINDS.length);
    expect([DECISION_ACTIONS.edit, DECISION_ACTIONS.reject]).toEqual([SlackModal.Edit, SlackModal.Reject]);
  });

  it('approves at once, with the hash of the arguments the message showed', () => {
    expect(clickOf(SlackAction.Approve, { a: 0, h: 'hash-seen' }, approval)).toEqual({
      kind: 'decide',
      decision: { toolCallId: 'call_refund', decision: 'approve', argsHash: 'hash-seen' },
    });
    expect(clickOf(SlackAction.Approve, { a: 0 }, approval)).toEqual({
      kind: 'decide',
      decision: { toolCallId: 'call_refund', decision: 'approve' },
    });
  });

  it.each([
    [SlackAction.Edit, 'edit'],
    [SlackAction.Reject, 'reject'],
    [SlackAction.Answer, 'answer'],
  ])('opens a modal first for %s', (action, modal) => {
    expect(clickOf(action, { a: 0 }, approval)).toEqual({ kind: 'modal', modal });
  });

  it('answers with the enum value a button names, and nothing for one it does not', () => {
    const choose = { ...question, answerSchema: { enum: ['broken', 'late'] } };
    expect(clickOf(SlackAction.Choose, { a: 0, v: 1 }, choose)).toEqual({
      kind: 'decide',
      decision: { toolCallId: 'call_reason', answer: 'late' },
    });
    expect(clickOf(SlackAction.Choose, { a: 0, v: 2 }, choose)).toEqual({ kind: 'none' });
    expect(clickOf('handback.unknown', { a: 0 }, choose)).toEqual({ kind: 'none' });
  });
});

describe('a modal submitted in Slack', () => {
  it('edits with the arguments as a JSON object and the shown hash, or says what is wrong beside them', () => {
    expect(submissionOf(SlackModal.Edit, { [ARGS_BLOCK]: field('{"amount": 60}') }, approval, metadata)).toEqual({
      decision: { toolCallId: 'call_refund', decision: 'edit', args: { amount: 60 }, argsHash: 'hash-seen' },
    });
    expect(submissionOf(SlackModal.Edit, { [ARGS_BLOCK]: field('[1]') }, approval, metadata)).toEqual({
      errors: { [ARGS_BLOCK]: 'The arguments must be a JSON object.' },
    });
  });

  it('rejects with the reason given, or none', () => {
    expect(submissionOf(SlackModal.Reject, { [REASON_BLOCK]: field('too much') }, approval, metadata)).toEqual({
      decision: { toolCallId: 'call_refund', decision: 'reject', reason: 'too much' },
    });
    expect(submissionOf(SlackModal.Reject, {}, approval, metadata)).toEqual({
      decision: { toolCallId: 'call_refund', decision: 'reject' },
    });
  });

  it('answers a flat schema field by field, each as its type reads, leaving out empty fields', () => {
    const values = {
      [`${ANSWER_BLOCK}:why`]: field('broken'),
      [`${ANSWER_BLOCK}:amount`]: field('12.5'),
      [`${ANSWER_BLOCK}:urgent`]: field('true'),
    };
    expect(submissionOf(SlackModal.Answer, values, question, metadata)).toEqual({
      decision: { toolCallId: 'call_reason', answer: { why: 'broken', amount: 12.5, urgent: true } },
    });
    expect(submissionOf(SlackModal.Answer, { [`${ANSWER_BLOCK}:why`]: field('') }, question, metadata)).toEqual({
      decision: { toolCallId: 'call_reason', answer: {} },
    });
  });

  it('takes a bare word as the string it is, and JSON as JSON, without a flat schema', () => {
    const free = { ...question, answerSchema: undefined } as AskView;
    expect(submissionOf(SlackModal.Answer, { [ANSWER_BLOCK]: field('late') }, free, metadata)).toEqual({
      decision: { toolCallId: 'call_reason', answer: 'late' },
    });
    expect(submissionOf(SlackModal.Answer, { [ANSWER_BLOCK]: field('{"a":1}') }, free, metadata)).toEqual({
      decision: { toolCallId: 'call_reason', answer: { a: 1 } },
    });
  });

  it('makes nothing of a modal that is not one of ours, nor of an approve (it has none)', () => {
    expect(submissionOf('someone.else', {}, approval, metadata)).toBeUndefined();
    expect(submissionOf(DECISION_ACTIONS.approve, {}, approval, metadata)).toBeUndefined();
  });
});
