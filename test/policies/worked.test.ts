import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { engineOf, request, VERSION } from './support.ts';

/** The Cedar blocks of docs/policies.md, as written. */
const page = readFileSync('docs/policies.md', 'utf8');
const blocks = [...page.matchAll(/```cedar\n([\s\S]*?)```/g)].map((match) => match[1] as string);
const schema = /```cedarschema\n([\s\S]*?)```/.exec(page)?.[1] as string;

describe('the worked policies of docs/policies.md, as written', () => {
  const engine = engineOf(blocks.join('\n'), {}, schema);
  const finance = { kind: 'person', subject: 'ann', groups: ['finance'] };

  it('are five, and load against the page’s own schema', () => {
    expect(blocks).toHaveLength(5);
    expect(engine.size).toBe(5);
  });

  it('approve refunds up to 100 with no one asked', () => {
    expect(engine.evaluate(request('refund_order', { amount: 100 }))).toEqual({
      outcome: 'approve',
      policyIds: ['refunds-up-to-100'],
      version: VERSION,
    });
  });

  it("never let an agent delete, with the policy's reason", () => {
    expect(engine.evaluate(request('delete_customer', { customer: 'c-1' }))).toMatchObject({
      outcome: 'reject',
      policyIds: ['no-agent-deletes'],
      reason: 'Agents never delete customers; ask support to do it',
    });
  });

  it('ask two of finance with four eyes above 1,000', () => {
    expect(engine.evaluate(request('refund_order', { amount: 1500 }, finance))).toEqual({
      outcome: 'ask',
      policyIds: ['finance-over-1000'],
      requires: { approvers: { groups: ['finance'] }, approvals: 2, fourEyes: true },
      version: VERSION,
    });
  });

  it('keep payouts with treasury, and refunds between 100 and 1,000 with support or finance', () => {
    expect(engine.evaluate(request('send_payout', {}))).toMatchObject({
      outcome: 'ask',
      requires: { approvers: { groups: ['treasury'] } },
    });
    expect(engine.evaluate(request('refund_order', { amount: 500 }))).toMatchObject({
      outcome: 'ask',
      policyIds: ['refunds-between-100-and-1000'],
      requires: { approvers: { groups: ['support', 'finance'] } },
    });
  });

  it('in shadow mode are the same outcomes, only recorded', () => {
    const shadow = engineOf(blocks.join('\n'), { mode: 'shadow' }, schema);
    expect(shadow.mode).toBe('shadow');
    expect(shadow.evaluate(request('refund_order', { amount: 20 }))).toMatchObject({ outcome: 'approve' });
  });
});
