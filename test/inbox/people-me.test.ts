import { describe, expect, it } from 'vitest';
import { decidedByText, delegationText, votesText } from '../../functions/inbox/page/deciders.ts';
import { fullTime } from '../../functions/inbox/page/time.ts';
import type { AskView, PersonView, Principal } from '../../functions/inbox/page/types.ts';

/** The inbox's words for the signed-in person's delegation and for decisions a delegate made (§20). */

const bob: Principal = { kind: 'person', subject: 'u-bob', name: 'Bob', via: 'api', person: 'bob' };
const ann: Principal = { kind: 'person', subject: 'u-ann', name: 'Ann', via: 'api', person: 'ann' };
const UNTIL = '2026-06-08T09:00:00.000Z';
const NOW = Date.parse('2026-06-01T09:00:00Z');

const refund: AskView = {
  toolCallId: 'call_refund',
  name: 'refund_order',
  args: {},
  kind: 'approval',
  prompt: null,
} as unknown as AskView;

describe('a delegate’s decisions in words', () => {
  it('says whom a vote was for, with the delegation’s end when it is the reader’s', () => {
    const ask = {
      ...refund,
      tally: { have: 1, need: 2 },
      votes: [{ decision: 'approve', by: bob, for: ann, at: '2026-06-01T09:00:00Z' }],
    } as AskView;
    expect(votesText(ask)).toBe('1 of 2 approvals: Bob approved for Ann');
    expect(votesText(ask, { ann: UNTIL })).toBe(
      `1 of 2 approvals: Bob approved for Ann (delegation until ${fullTime(UNTIL)})`,
    );
    expect(votesText(ask, { cyd: UNTIL })).toBe('1 of 2 approvals: Bob approved for Ann');
  });

  it('says whom a decision was for, and nothing more for one’s own', () => {
    expect(decidedByText({ ...refund, decision: { decision: 'approve', by: bob, for: ann } } as AskView)).toBe(
      'by Bob for Ann',
    );
    expect(decidedByText({ ...refund, decision: { decision: 'approve', by: bob } } as AskView)).toBe('by Bob');
  });
});

describe('delegationText', () => {
  const me: PersonView = { id: 'ann', name: 'Ann', emails: [], groups: [] };
  it('says where the approvals go while the delegation has not ended, and from when when it has not begun', () => {
    expect(delegationText(me, NOW)).toBeUndefined();
    const held = { ...me, delegation: { to: 'bob', toName: 'Bob', until: UNTIL, holds: true } };
    expect(delegationText(held, NOW)).toBe(`Your approvals go to Bob until ${fullTime(UNTIL)}.`);
    const from = '2026-06-02T00:00:00.000Z';
    const later = { ...me, delegation: { to: 'bob', from, until: UNTIL, holds: false } };
    expect(delegationText(later, NOW)).toBe(
      `Your approvals go to bob from ${fullTime(from)} until ${fullTime(UNTIL)}.`,
    );
    expect(delegationText(held, Date.parse(UNTIL))).toBeUndefined();
  });
});
