import { describe, expect, it } from 'vitest';
import { DEFAULT_REJECTION, policyPrincipal, settle } from '../../functions/policies/outcomes.ts';
import { engineOf, request, VERSION } from './support.ts';

const REFUNDS = `
@id("refunds-small")
permit(principal, action == Handback::Action::"callWithoutApproval", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount <= 100 };

@id("refunds")
@approvers("group:support")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order");

@id("finance-over-100")
@approvers("group:finance")
@approvals("2")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount > 100 };

@id("finance-over-1000")
@approvers("group:finance, email:cfo@example.com")
@approvals("3")
@fourEyes("true")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount > 1000 };

@id("no-agent-deletes")
@reason("Agents never delete customers")
forbid(principal is Handback::Agent, action, resource == Handback::Tool::"delete_customer");

@id("people-delete")
permit(principal is Handback::Person, action == Handback::Action::"call", resource == Handback::Tool::"delete_customer");

@id("no-blocked")
forbid(principal, action, resource == Handback::Tool::"refund_order")
when { context.args has note && context.args.note like "*blocked*" };

@id("agents-may-delete")
permit(principal, action, resource == Handback::Tool::"delete_customer");
`;

describe('the outcome of an approval ask (§17), with the real Cedar', () => {
  const engine = engineOf(REFUNDS);

  it('rejects by an explicit forbid, with its @reason, whatever permits apply', () => {
    expect(engine.evaluate(request('delete_customer', {}))).toEqual({
      outcome: 'reject',
      policyIds: ['no-agent-deletes'],
      reason: 'Agents never delete customers',
      version: VERSION,
    });
  });

  it("rejects with the forbid's id when it has no @reason, even where a permit would approve", () => {
    expect(engine.evaluate(request('refund_order', { amount: 20, note: 'customer blocked' }))).toEqual({
      outcome: 'reject',
      policyIds: ['no-blocked'],
      reason: 'no-blocked',
      version: VERSION,
    });
  });

  it('approves where callWithoutApproval is allowed, naming what the permits of call would ask of people', () => {
    expect(engine.evaluate(request('refund_order', { amount: 100 }))).toEqual({
      outcome: 'approve',
      policyIds: ['refunds-small'],
      requires: { approvers: { groups: ['support'] } },
      version: VERSION,
    });
  });

  it("lets it wait with the applying permits' requirements: approvers' union, the largest approvals, four eyes", () => {
    expect(engine.evaluate(request('refund_order', { amount: 101 }))).toEqual({
      outcome: 'ask',
      policyIds: ['refunds', 'finance-over-100'],
      requires: { approvers: { groups: ['support', 'finance'] }, approvals: 2 },
      version: VERSION,
    });
    expect(engine.evaluate(request('refund_order', { amount: 5000 }))).toEqual({
      outcome: 'ask',
      policyIds: ['refunds', 'finance-over-100', 'finance-over-1000'],
      requires: {
        approvers: { groups: ['support', 'finance'], emails: ['cfo@example.com'] },
        approvals: 3,
        fourEyes: true,
      },
      version: VERSION,
    });
  });

  it('evaluates a person with its groups as parents', () => {
    const person = { kind: 'person', subject: 'ann', groups: ['support'] };
    // The forbid is the agents'; a permit of every action permits callWithoutApproval too.
    expect(engine.evaluate(request('delete_customer', {}, person))).toEqual({
      outcome: 'approve',
      policyIds: ['agents-may-delete'],
      version: VERSION,
    });
    const grouped = engineOf(`@id("support-only") permit(principal in Handback::Group::"support", action, resource);`);
    expect(grouped.evaluate(request('anything', {}, person))).toMatchObject({ outcome: 'approve' });
    expect(grouped.evaluate(request('anything', {}))).toMatchObject({ outcome: 'ask', basis: 'default' });
  });

  it('applies the default where no permit or forbid of call applies: ask, or reject as policy:default', () => {
    expect(engine.evaluate(request('send_email', {}))).toEqual({
      outcome: 'ask',
      policyIds: [],
      basis: 'default',
      version: VERSION,
    });
    const strict = engineOf(REFUNDS, { default: 'reject' });
    expect(strict.evaluate(request('send_email', {}))).toEqual({
      outcome: 'reject',
      policyIds: [],
      basis: 'default',
      reason: DEFAULT_REJECTION,
      version: VERSION,
    });
    expect(settle({}, strict.evaluate(request('send_email', {})), 'enforce').decided?.by).toEqual(
      policyPrincipal('default', VERSION),
    );
  });

  it('leaves undeclared arguments out of the request', () => {
    expect(engine.evaluate(request('refund_order', { amount: 50, colour: 'red', nested: { deep: [1] } }))).toEqual({
      outcome: 'approve',
      policyIds: ['refunds-small'],
      requires: { approvers: { groups: ['support'] } },
      version: VERSION,
    });
  });

  it('reads a JSON number as the decimal the schema declares, and nested records and sets', () => {
    const decimals = engineOf(`
@id("small-total")
permit(principal, action == Handback::Action::"callWithoutApproval", resource)
when { context.args has total && context.args.total.lessThanOrEqual(decimal("99.95")) };
@id("tagged")
permit(principal, action == Handback::Action::"callWithoutApproval", resource)
when { context.args has tags && context.args.tags.contains("vip") && context.args has item && context.args.item has qty && context.args.item.qty == 2 };
`);
    expect(decimals.evaluate(request('t', { total: 99.95 }))).toMatchObject({
      outcome: 'approve',
      policyIds: ['small-total'],
    });
    expect(decimals.evaluate(request('t', { total: 12 }))).toMatchObject({ outcome: 'approve' });
    expect(decimals.evaluate(request('t', { total: 99.96 }))).toMatchObject({ outcome: 'ask', basis: 'default' });
    expect(decimals.evaluate(request('t', { tags: ['vip'], item: { qty: 2, colour: 'x' } }))).toMatchObject({
      outcome: 'approve',
      policyIds: ['tagged'],
    });
  });

  it.each([
    ['a Long that is not an integer', { amount: 60.5 }, 'args.amount is 60.5, which does not fit a Long'],
    ['a decimal with 5 fraction digits', { total: 1.23456 }, 'args.total is 1.23456, which does not fit a decimal'],
    ['a string where a Long is declared', { amount: '20' }, 'args.amount is "20", not a number (a Long)'],
    ['a list holding null', { tags: ['a', null] }, 'args.tags[1] is null'],
  ])('fails closed on %s: rejected as policy:error', (_, args, words) => {
    const errors: unknown[] = [];
    const verdict = engineOf(REFUNDS, { onError: (failure) => errors.push(failure) }).evaluate(
      request('refund_order', args),
    );
    expect(verdict).toMatchObject({ outcome: 'reject', policyIds: [], basis: 'error' });
    expect(verdict.reason).toContain(words);
    expect(errors).toEqual([
      { tool: 'refund_order', runId: 'run-1', tenant: 'acme', policyIds: [], message: expect.stringContaining(words) },
    ]);
    expect(settle({}, verdict, 'enforce').decided).toEqual({
      body: { decision: 'reject', reason: verdict.reason },
      by: policyPrincipal('error', VERSION),
    });
  });

  it("fails closed on an error inside a policy, naming that policy's id, even where another permit applies", () => {
    const errors: Array<{ policyIds: string[]; message: string }> = [];
    const overflowing = engineOf(
      `
@id("overflows")
permit(principal, action == Handback::Action::"callWithoutApproval", resource)
when { context.args has amount && context.args.amount * 4611686018427387904 > 0 };
@id("everything")
permit(principal, action == Handback::Action::"call", resource);
`,
      { onError: (failure) => errors.push(failure) },
    );
    const verdict = overflowing.evaluate(request('refund_order', { amount: 4 }));
    expect(verdict).toMatchObject({ outcome: 'reject', policyIds: ['overflows'], basis: 'error' });
    expect(verdict.reason).toContain('overflow');
    expect(errors).toEqual([expect.objectContaining({ policyIds: ['overflows'] })]);
    expect(overflowing.evaluate(request('refund_order', { amount: 0 }))).toMatchObject({ outcome: 'ask' });
  });
});

describe('what an outcome does to the ask the agent made', () => {
  const waiting = {
    outcome: 'ask' as const,
    policyIds: ['finance-over-100'],
    requires: { approvers: { groups: ['finance'], emails: ['CFO@example.com'] }, approvals: 2 },
  };

  it('takes the policies’ approvers when the agent named none', () => {
    expect(settle({}, waiting, 'enforce')).toEqual({
      policy: waiting,
      approvers: waiting.requires.approvers,
      approvals: 2,
    });
  });

  it('lets the agent narrow the approvers to those the policies name too', () => {
    const settled = settle({ approvers: { emails: ['cfo@example.com', 'mallory@example.com'] } }, waiting, 'enforce');
    expect(settled.approvers).toEqual({ emails: ['cfo@example.com'] });
    expect(settled.policy.agentApprovers).toBe('narrowed');
  });

  it("never lets the agent widen them: with no one in common the policies' list stands, and the view says so", () => {
    const settled = settle({ approvers: { subjects: ['mallory'], groups: ['bots'] } }, waiting, 'enforce');
    expect(settled.approvers).toEqual(waiting.requires.approvers);
    expect(settled.policy.agentApprovers).toBe('replaced');
  });

  it('keeps the larger of the agent’s and the policies’ approvals, and four eyes when a policy asks', () => {
    expect(settle({ approvals: 3 }, waiting, 'enforce').approvals).toBe(3);
    expect(settle({ approvals: 1 }, { ...waiting, requires: { fourEyes: true } }, 'enforce')).toEqual({
      policy: { ...waiting, requires: { fourEyes: true } },
      fourEyes: true,
    });
  });

  it("keeps the agent's approvers where no policy names any", () => {
    expect(settle({ approvers: { subjects: ['ann'] } }, { outcome: 'ask', policyIds: ['p'] }, 'enforce')).toEqual({
      policy: { outcome: 'ask', policyIds: ['p'] },
      approvers: { subjects: ['ann'] },
    });
  });

  it('decides approvals and rejections as policy:<the first determining id>', () => {
    expect(settle({}, { outcome: 'approve', policyIds: ['a', 'b'] }, 'enforce').decided).toEqual({
      body: { decision: 'approve' },
      by: { kind: 'service', subject: 'policy:a', via: 'policy' },
    });
  });

  it('in shadow mode only records what the policies would do', () => {
    expect(
      settle({ approvers: { subjects: ['ann'] } }, { outcome: 'reject', policyIds: ['f'], reason: 'no' }, 'shadow'),
    ).toEqual({
      policy: { outcome: 'reject', policyIds: ['f'], reason: 'no', shadow: true },
    });
  });
});

describe('an agent acting on behalf of a person (§20), with the real Cedar', () => {
  const engine = engineOf(`
@id("not-for-ann")
@reason("Ann's own runs are not auto-approved")
forbid(principal, action == Handback::Action::"callWithoutApproval", resource)
when { context has onBehalfOf && context.onBehalfOf == Handback::Person::"u-ann" };

@id("agents-small")
permit(principal is Handback::Agent, action == Handback::Action::"callWithoutApproval", resource);
`);

  it('sees context.onBehalfOf, the person the agent pauses for', () => {
    const forAnn = { ...request('refund_order', { amount: 5 }), onBehalfOf: { subject: 'u-ann' } };
    expect(engine.evaluate(forAnn)).toMatchObject({ outcome: 'ask' });
    const forBob = { ...request('refund_order', { amount: 5 }), onBehalfOf: { subject: 'u-bob' } };
    expect(engine.evaluate(forBob)).toMatchObject({ outcome: 'approve', policyIds: ['agents-small'] });
  });

  it('leaves context.onBehalfOf out for an agent acting for no one', () => {
    expect(engine.evaluate(request('refund_order', { amount: 5 }))).toMatchObject({ outcome: 'approve' });
  });
});
