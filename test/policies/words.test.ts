import { describe, expect, it } from 'vitest';
import { pauseMessage } from '../../functions/channels/slack-message.ts';
import { policyNowText, policyText } from '../../functions/policies/words.ts';
import type { AskView, PauseView } from '../../functions/wire.ts';

/** What the policies made of an ask, in words (§17): the inbox's ask card and the Slack message say the same. */
describe('policyText', () => {
  it('says why an ask waits: the policy, how many, of whom, and four eyes', () => {
    expect(
      policyText({
        outcome: 'ask',
        policyIds: ['finance-over-100'],
        requires: { approvers: { groups: ['finance'] }, approvals: 2 },
      }),
    ).toBe('Waits: policy finance-over-100 requires 2 of finance.');
    expect(
      policyText({
        outcome: 'ask',
        policyIds: ['over-1000', 'finance-over-100'],
        requires: { approvers: { groups: ['finance'], emails: ['cfo@example.com'] }, approvals: 2, fourEyes: true },
      }),
    ).toBe(
      'Waits: policies over-1000, finance-over-100 require 2 of finance or cfo@example.com, not the one who paused it.',
    );
    expect(policyText({ outcome: 'ask', policyIds: [], basis: 'default' })).toBe(
      "Waits for people: the deployment's default (no policy matched).",
    );
  });

  it('says what decided an ask, with the reason of a rejection', () => {
    expect(policyText({ outcome: 'approve', policyIds: ['refunds-small'] })).toBe('Approved by policy refunds-small.');
    expect(policyText({ outcome: 'reject', policyIds: ['no-deletes'], reason: 'Agents never delete customers' })).toBe(
      'Rejected by policy no-deletes: Agents never delete customers.',
    );
    expect(policyText({ outcome: 'reject', policyIds: [], basis: 'error', reason: 'evaluation failed' })).toBe(
      'Rejected by a policy evaluation error: evaluation failed.',
    );
  });

  it('in shadow mode, says what the policies would have done', () => {
    expect(policyText({ outcome: 'approve', policyIds: ['refunds-small'], shadow: true })).toBe(
      'Shadow mode: policy refunds-small would have approved it.',
    );
    expect(
      policyText({
        outcome: 'ask',
        policyIds: ['finance-over-100'],
        requires: { approvers: { groups: ['finance'] }, approvals: 2 },
        shadow: true,
      }),
    ).toBe('Shadow mode: policy finance-over-100 would have required 2 of finance.');
    expect(policyText(undefined)).toBeUndefined();
  });

  it('is in the Slack message of the pause, beside the ask', () => {
    const ask = {
      toolCallId: 'call_1',
      name: 'refund_order',
      kind: 'approval',
      prompt: null,
      args: { amount: 500 },
      policy: {
        outcome: 'ask',
        policyIds: ['finance-over-100'],
        requires: { approvers: { groups: ['finance'] }, approvals: 2 },
      },
    } as unknown as AskView;
    const view = {
      tenant: 'acme',
      runId: 'run-1',
      interruptId: 'i-1',
      status: 'paused',
      asks: [ask],
      decided: [],
      pending: ['call_1'],
    } as unknown as PauseView;
    const text = JSON.stringify(pauseMessage(view).blocks);
    expect(text).toContain('_Waits: policy finance-over-100 requires 2 of finance._');
  });

  it('says what the policies make of the edited arguments (policyNow, §19), never that they decided an edit', () => {
    const finance = { approvers: { groups: ['finance'] }, approvals: 2 };
    expect(policyNowText({ outcome: 'ask', policyIds: ['finance-over-100'], requires: finance })).toBe(
      'After the edit: policy finance-over-100 requires 2 of finance.',
    );
    expect(policyNowText({ outcome: 'ask', policyIds: [], basis: 'default' })).toBe(
      "After the edit: waits for people (the deployment's default (no policy matched)).",
    );
    expect(policyNowText({ outcome: 'approve', policyIds: ['refunds-small'] })).toBe(
      "After the edit: policy refunds-small would allow it; a person's vote still decides.",
    );
    expect(policyNowText({ outcome: 'reject', policyIds: ['cap'], reason: 'Too much', shadow: true })).toBe(
      'After the edit: Shadow mode: policy cap would have rejected it: Too much.',
    );
    expect(policyNowText(undefined)).toBeUndefined();
  });

  it("is in the Slack message after an edit, below what the policies said of the model's arguments", () => {
    const ask = {
      toolCallId: 'call_1',
      name: 'refund_order',
      kind: 'approval',
      prompt: null,
      args: { amount: 5000 },
      policy: { outcome: 'ask', policyIds: [], basis: 'default' },
      policyNow: {
        outcome: 'ask',
        policyIds: ['finance-over-100'],
        requires: { approvers: { groups: ['finance'] }, approvals: 2 },
      },
    } as unknown as AskView;
    const view = {
      tenant: 'acme',
      runId: 'run-1',
      interruptId: 'i-1',
      status: 'paused',
      asks: [ask],
      decided: [],
      pending: ['call_1'],
    } as unknown as PauseView;
    const text = JSON.stringify(pauseMessage(view).blocks);
    expect(text).toContain(
      "_Waits for people: the deployment's default (no policy matched)._\\n_After the edit: policy finance-over-100 requires 2 of finance._",
    );
  });
});
