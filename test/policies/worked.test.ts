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

  it('are six, and load against the page’s own schema', () => {
    expect(blocks).toHaveLength(6);
    expect(engine.size).toBe(6);
  });

  it('approve refunds up to 100 with no one asked', () => {
    expect(engine.evaluate(request('refund_order', { amount: 100 }))).toEqual({
      outcome: 'approve',
      policyIds: ['refunds-up-to-100'],
      version: VERSION,
    });
  });

  it("never let an agent delete, by any delete_* tool, with the policy's reason; a person's delete_* waits", () => {
    for (const tool of ['delete_customer', 'delete_invoice']) {
      expect(engine.evaluate(request(tool, { customer: 'c-1' }))).toMatchObject({
        outcome: 'reject',
        policyIds: ['no-agent-deletes'],
        reason: 'Agents never delete; ask support to do it',
      });
    }
    expect(engine.evaluate(request('delete_invoice', {}, finance))).toMatchObject({ outcome: 'ask', basis: 'default' });
    expect(engine.evaluate(request('archive_customer', {}))).toMatchObject({ outcome: 'ask', basis: 'default' });
  });

  it('send credits up to $250.00 alone in business hours, in the deployment’s time zone, and keep the rest with people', () => {
    // Monday 3 March 2025 at 10:00 UTC (the tests' clock): 11:00 in Paris.
    const paris = engineOf(blocks.join('\n'), { timeZone: 'Europe/Paris' }, schema);
    expect(paris.evaluate(request('issue_credit', { total: 250 }))).toMatchObject({
      outcome: 'approve',
      policyIds: ['credits-up-to-250-in-hours'],
    });
    expect(paris.evaluate(request('issue_credit', { total: 249.99 }))).toMatchObject({ outcome: 'approve' });
    expect(paris.evaluate(request('issue_credit', { total: 250.01 }))).toMatchObject({
      outcome: 'ask',
      basis: 'default',
    });
    // 18:30 in Paris: after hours.
    const evening = { ...request('issue_credit', { total: 20 }), now: new Date('2025-03-03T17:30:00.000Z') };
    expect(paris.evaluate(evening)).toMatchObject({ outcome: 'ask', basis: 'default' });
    // The same instant is 12:30 in New York: business hours there.
    const newYork = engineOf(blocks.join('\n'), { timeZone: 'America/New_York' }, schema);
    expect(newYork.evaluate(evening)).toMatchObject({ outcome: 'approve' });
    // Dollars and cents only: a fifth fraction digit does not fit a decimal, and fails closed.
    expect(paris.evaluate(request('issue_credit', { total: 1.00001 }))).toMatchObject({
      outcome: 'reject',
      basis: 'error',
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
