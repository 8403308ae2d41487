import { describe, expect, it } from 'vitest';
import { firstDraft, idsOf } from '../../functions/inbox/page/decide.ts';
import { approversText, decidedByText, readOnlyText, votesText } from '../../functions/inbox/page/deciders.ts';
import {
  alreadyDecidedText,
  argsChangedText,
  loadProblemText,
  readRefusal,
} from '../../functions/inbox/page/refusals.ts';
import {
  allReadOnly,
  closedBannerText,
  closedKind,
  closedLocally,
  collectDecisions,
  failureErrors,
  linkMemoryOf,
  mergeErrors,
  nextDrafts,
  pendingText,
  resumedText,
  rowName,
  submitState,
} from '../../functions/inbox/page/screen.ts';
import type { AskView, PauseView, Principal, Problem } from '../../functions/inbox/page/types.ts';

const ann: Principal = { kind: 'person', subject: 'u-ann', email: 'ann@example.com', name: 'Ann', via: 'api' };
const bob: Principal = { kind: 'person', subject: 'u-bob', email: 'bob@example.com', via: 'api' };

const refund: AskView = {
  toolCallId: 'call_refund',
  name: 'refund_order',
  args: { orderId: 'A1', amount: 20 },
  kind: 'approval',
  prompt: 'Refund order A1?',
};
const question: AskView = {
  toolCallId: 'call_ask',
  name: 'ask_customer',
  args: {},
  kind: 'answer',
  prompt: 'Which account?',
  answerSchema: { type: 'object', properties: { account: { type: 'string' } }, required: ['account'] },
};

function pause(asks: AskView[], extra: Partial<PauseView> = {}): PauseView {
  return {
    runId: 'run-1',
    interruptId: 'int-1',
    status: 'paused',
    format: 'openai-chat',
    toolCall: { id: asks[0]?.toolCallId ?? '', name: asks[0]?.name ?? '', args: {} },
    prompt: null,
    answerSchema: null,
    asks,
    decided: asks.filter((a) => a.decision !== undefined).map((a) => a.toolCallId),
    pending: asks.filter((a) => a.decision === undefined).map((a) => a.toolCallId),
    metadata: null,
    onExpiry: 'reject',
    createdAt: '2026-12-01T10:00:00.000Z',
    expiresAt: '2026-12-02T10:00:00.000Z',
    ...extra,
  } as PauseView;
}

describe('collectDecisions', () => {
  it('makes the decisions of the drafts, skips asks left for later and asks already decided', () => {
    const view = pause([refund, question, { ...refund, toolCallId: 'call_done', decision: { decision: 'approve' } }]);
    const drafts = {
      call_refund: { ...firstDraft(refund, 0, true), choice: 'approve' as const },
      call_ask: { ...firstDraft(question, 1, true), choice: 'later' as const },
      call_done: { ...firstDraft(refund, 2, true), choice: 'reject' as const },
    };
    expect(collectDecisions(view, drafts)).toEqual({
      decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
      errors: [],
      checks: [],
    });
  });

  it('asks for a choice on an approval with none, and hands the answer to the schema check', () => {
    const view = pause([refund, question]);
    const drafts = { call_refund: firstDraft(refund, 0, false), call_ask: firstDraft(question, 1, false) };
    const collected = collectDecisions(view, drafts);
    expect(collected.errors).toEqual([{ id: idsOf(0).choice, message: 'Choose what to do with this request.' }]);
    expect(collected.checks.map((c) => c.index)).toEqual([1]);
  });

  it('sends nothing for an ask the person may not decide (§13)', () => {
    const view = pause([{ ...refund, mayDecide: false }]);
    const drafts = { call_refund: { ...firstDraft(refund, 0, false), choice: 'approve' as const } };
    expect(collectDecisions(view, drafts).decisions).toEqual([]);
  });
});

describe('failureErrors', () => {
  it('puts an edit’s failures on the arguments editor, and none when the validator could not run', () => {
    const pending = {
      check: { schema: { type: 'object' }, value: {}, field: 'args' as const },
      index: 2,
      known: [],
    };
    expect(failureErrors(pending, [{ path: '/amount', message: 'must be <= 10' }])).toEqual([
      { id: idsOf(2).args, message: expect.stringContaining('must be <= 10') },
    ]);
    expect(failureErrors(pending, undefined)).toEqual([]);
    expect(failureErrors(pending, [])).toEqual([]);
  });
});

describe('mergeErrors', () => {
  it('joins two errors on one control', () => {
    expect(
      mergeErrors([
        { id: 'a', message: 'One.' },
        { id: 'b', message: 'Two.' },
        { id: 'a', message: 'Three.' },
      ]),
    ).toEqual({ a: 'One. Three.', b: 'Two.' });
  });
});

describe('nextDrafts', () => {
  it('keeps the person’s drafts and starts the new asks afresh', () => {
    const kept = { ...firstDraft(refund, 0, true), choice: 'reject' as const, reason: 'no' };
    const next = nextDrafts({ call_refund: kept }, pause([refund, question]));
    expect(next.call_refund).toBe(kept);
    expect(next.call_ask?.choice).toBe('answer');
  });
});

describe('what an answer says', () => {
  it('names the asks still waiting after a 202', () => {
    const view = pause([refund, question]);
    const text = pendingText(view, {
      runId: 'run-1',
      interruptId: 'int-1',
      status: 'paused',
      decided: ['call_refund'],
      pending: ['call_ask'],
      replayed: false,
    });
    expect(text).toBe('Recorded. Still waiting for a decision on: ask_customer.');
  });

  it.each([
    [{ outcome: 'resumed', dispatch: [{ name: 'refund_order' }] }, 'Resumed: the agent will now run refund_order.'],
    [{ outcome: 'resumed', dispatch: [] }, 'Resumed: the agent goes on with your decisions.'],
    [{ outcome: 'cancelled', dispatch: [] }, 'Cancelled. The agent has been told.'],
  ])('says how a 200 closed the pause (%j)', (body, text) => {
    expect(resumedText({ runId: 'r', interruptId: 'i', continuationId: 'c', resumedAt: 't', ...body } as never)).toBe(
      text,
    );
  });

  it('records, from a link, what was sent on the asks it decided', () => {
    const closed = closedLocally(pause([refund]), [{ toolCallId: 'call_refund', decision: 'approve' }], {
      runId: 'run-1',
      interruptId: 'int-1',
      continuationId: 'c',
      outcome: 'resumed',
      dispatch: [],
      resumedAt: '2026-12-01T11:00:00.000Z',
    });
    expect(closed.status).toBe('resumed');
    expect(closed.asks[0]).toMatchObject({ decision: { decision: 'approve' }, decidedAt: '2026-12-01T11:00:00.000Z' });
    // Who decided: the page itself, "by you", not a decision by no one.
    expect(decidedByText(closed.asks[0] as AskView)).toBe('by you');
  });

  it('remembers, from a link, what it decided once that closed the pause, and says so when the link is closed', () => {
    const body = { runId: 'run-1', interruptId: 'int-1', continuationId: 'c', outcome: 'resumed', dispatch: [] };
    const closed = closedLocally(
      pause([refund, { ...question, decision: { answer: { account: 'x' }, by: ann } }]),
      [{ toolCallId: 'call_refund', decision: 'reject', reason: 'Too much.' }],
      { ...body, resumedAt: '2026-12-01T11:00:00.000Z' } as never,
    );
    const memory = linkMemoryOf(closed);
    expect(memory).toEqual({
      decided: [{ name: 'refund_order', decision: 'rejected: Too much.' }],
      at: '2026-12-01T11:00:00.000Z',
    });
    expect(
      loadProblemText({ status: 410, code: 'link_closed' }, false, memory, Date.parse('2026-12-01T11:05:00.000Z')),
    ).toEqual({
      title: 'This request is closed',
      text: 'You decided it 5 minutes ago: refund_order rejected: Too much. It is closed now, and this link opens it no more.',
    });
  });

  it.each([
    [{ status: 'resumed', resumedAt: '2026-12-01T11:58:00.000Z' }, 'Resumed 2 minutes ago: every ask was decided.'],
    [{ status: 'resumed', resumedAt: '2026-12-01T12:00:02.000Z' }, 'Resumed just now: every ask was decided.'],
    [
      { status: 'cancelled', resumedAt: '2026-12-01T11:00:00.000Z', cancelledBy: ann },
      'Cancelled by Ann 1 hour ago: every undecided ask was rejected.',
    ],
    [{ status: 'cancelled' }, 'Cancelled: every undecided ask was rejected.'],
    [
      { status: 'cancelled', cancelReason: 'answered at the terminal or closed' },
      'Cancelled (answered at the terminal or closed): every undecided ask was rejected.',
    ],
    [
      { status: 'expired', expiresAt: '2026-12-01T11:30:00.000Z' },
      'Expired 30 minutes ago: no decision can be made now.',
    ],
    [{ status: 'closed' }, 'This request is closed.'],
  ])('says how a pause %j ended, by whom and when, never in the future', (extra, text) => {
    expect(closedBannerText(pause([refund], extra as Partial<PauseView>), Date.parse('2026-12-01T12:00:00.000Z'))).toBe(
      text,
    );
  });

  it.each([
    ['paused', undefined, undefined],
    ['cancelled', undefined, 'cancelled'],
    ['resumed', 'cancelled', 'cancelled'],
    ['expired', undefined, 'expired'],
    ['resumed', 'resumed', 'resumed'],
    ['closed', undefined, 'closed'],
  ])('calls a pause %s with outcome %s %s', (status, outcome, kind) => {
    expect(closedKind(pause([refund], { status, ...(outcome ? { outcome } : {}) } as Partial<PauseView>))).toBe(kind);
  });
});

describe('readRefusal', () => {
  const view = pause([refund, question]);
  const decisions = [
    { toolCallId: 'call_refund', decision: 'approve' as const },
    { toolCallId: 'call_ask', answer: { account: 1 } },
  ];
  const problem = (p: Partial<Problem>): Problem => ({ status: 400, code: 'bad_request', ...p });

  it.each([
    [problem({ status: 401, code: 'unauthorized' }), true, 'unauthorized'],
    [problem({ status: 401, code: 'unauthorized' }), false, 'link-invalid'],
    [problem({ status: 409, code: 'already_decided', toolCallId: 'call_refund' }), true, 'already-decided'],
    [problem({ status: 410, code: 'pause_expired' }), true, 'closed'],
    [problem({ status: 409, code: 'pause_cancelled' }), true, 'closed'],
    [problem({ status: 500, code: 'internal' }), true, 'other'],
  ])('reads %j (signed in: %s) as %s', (p, signedIn, kind) => {
    expect(readRefusal(view, p, decisions, signedIn).kind).toBe(kind);
  });

  it.each([
    ['pause_expired', 'expired'],
    ['pause_cancelled', 'cancelled'],
    ['already_resumed', 'resumed'],
    ['link_closed', 'closed'],
  ])('reads %s as a pause now %s', (code, status) => {
    expect(readRefusal(view, problem({ status: 410, code }), decisions, false)).toMatchObject({
      kind: 'closed',
      status,
    });
  });

  it('puts the failures of an answer on the form field they name', () => {
    const refusal = readRefusal(
      view,
      problem({
        code: 'invalid_answer',
        failures: [{ path: '/decisions/1/answer/account', message: 'must be string' }],
      }),
      decisions,
      true,
    );
    expect(refusal).toMatchObject({ kind: 'attributed', formError: expect.stringMatching(/^Nothing was recorded/) });
    expect(refusal.kind === 'attributed' && refusal.errors[0]?.id.startsWith(idsOf(1).formPrefix)).toBe(true);
  });

  it('puts a not_an_approver refusal on the ask it names, saying who may decide it', () => {
    const guarded = pause([{ ...refund, approvers: { groups: ['finance'] } }]);
    const refusal = readRefusal(
      guarded,
      problem({ status: 403, code: 'not_an_approver', toolCallId: 'call_refund' }),
      [decisions[0] as never],
      true,
    );
    expect(refusal).toMatchObject({
      kind: 'attributed',
      errors: [{ id: idsOf(0).ask, message: 'You may not decide this request. Only the group finance may decide it.' }],
    });
  });

  it.each([
    ['self_decision', 'You paused this request yourself; someone else must decide it.'],
    ['already_voted', 'You have already voted on this request.'],
    [
      'unknown_person',
      'This request needs someone Handback knows as a person (four eyes or several approvals), and it does not know you: an email address, or a sign-in no one is listed for, is not enough. Sign in as yourself, or decide in Slack.',
    ],
  ])('says what %s means, on the ask', (code, message) => {
    const refusal = readRefusal(view, problem({ status: 403, code, toolCallId: 'call_refund' }), decisions, true);
    expect(refusal).toMatchObject({ kind: 'attributed', errors: [{ id: idsOf(0).ask, message }] });
  });

  it('reads args_changed as arguments to read again, and says so on the ask', () => {
    const changed = problem({ status: 409, code: 'args_changed', toolCallId: 'call_refund' });
    expect(readRefusal(view, changed, decisions, true)).toEqual({ kind: 'args-changed' });
    const fresh = pause([{ ...refund, args: { orderId: 'A1', amount: 9999 }, argsHash: 'h2' }]);
    expect(argsChangedText(changed, fresh)).toMatchObject({
      notes: { call_refund: expect.stringMatching(/edited these arguments/) },
      formError: expect.stringMatching(/^Nothing was sent: the arguments of refund_order changed/),
    });
  });
});

describe('argsHash in the drafts (§16)', () => {
  it('sends back the hash of the arguments the person saw, with every kind of decision', () => {
    const seen = { ...refund, argsHash: 'h1' };
    const view = pause([seen]);
    for (const choice of ['approve', 'reject'] as const) {
      const drafts = { call_refund: { ...firstDraft(seen, 0, false), choice } };
      expect(collectDecisions(view, drafts).decisions).toEqual([
        { toolCallId: 'call_refund', decision: choice, argsHash: 'h1' },
      ]);
    }
    const edit = { call_refund: { ...firstDraft(seen, 0, false), choice: 'edit' as const, argsText: '{"amount":1}' } };
    expect(collectDecisions(view, edit).decisions).toEqual([
      { toolCallId: 'call_refund', decision: 'edit', args: { amount: 1 }, argsHash: 'h1' },
    ]);
  });

  it('keeps a draft across a read while the arguments stay, and starts it again when they changed', () => {
    const before = pause([{ ...refund, argsHash: 'h1' }]);
    const drafted = { call_refund: { ...firstDraft(before.asks[0] as AskView, 0, false), choice: 'approve' as const } };
    expect(nextDrafts(drafted, before).call_refund).toBe(drafted.call_refund);
    const after = pause([{ ...refund, args: { orderId: 'A1', amount: 9999 }, argsHash: 'h2' }]);
    expect(nextDrafts(drafted, after).call_refund).toMatchObject({ choice: undefined, seen: 'h2' });
    expect(nextDrafts(drafted, after).call_refund?.argsText).toContain('9999');
  });
});

describe('alreadyDecidedText', () => {
  it('says who decided first and what, when the API says who', () => {
    const fresh = pause([{ ...refund, decision: { decision: 'reject', reason: 'fraud', by: bob } }]);
    const said = alreadyDecidedText({ status: 409, code: 'already_decided', toolCallId: 'call_refund' }, fresh);
    expect(said.notes).toEqual({ call_refund: 'Already decided by bob@example.com: Rejected: fraud.' });
    expect(said.formError).toMatch(/someone else decided refund_order first \(Rejected: fraud\)/);
  });

  it('says the request is closed when it can no longer be read', () => {
    const said = alreadyDecidedText({ status: 409, code: 'already_decided', toolCallId: 'call_refund' }, undefined);
    expect(said.formError).toMatch(/this request is now closed/);
    expect(said.notes).toEqual({ call_refund: 'Already decided by someone else: see the request.' });
  });
});

describe('loadProblemText', () => {
  it.each([
    [
      { status: 401, code: 'unauthorized' },
      false,
      'Request',
      'This link is not valid. Ask whoever sent it for a new one.',
    ],
    [
      { status: 410, code: 'link_closed' },
      false,
      'This request is closed',
      'Whatever it asked has been settled, has expired or was cancelled.',
    ],
    [{ status: 404, code: 'pause_not_found' }, true, 'Request', 'There is no such request, or it is not yours to see.'],
  ])('titles %j (signed in: %s) %s', (problem, signedIn, title, text) => {
    expect(loadProblemText(problem, signedIn)).toEqual({ title, text });
  });
});

describe('who may decide (§13)', () => {
  it.each([
    [{ emails: ['ann@example.com'] }, 'Only ann@example.com may decide it.'],
    [{ groups: ['finance', 'ops'] }, 'Only the groups finance or ops may decide it.'],
    [
      { emails: ['ann@example.com'], subjects: ['u-bob'], groups: ['finance'] },
      'Only ann@example.com, u-bob or the group finance may decide it.',
    ],
    [{}, 'No one may decide it.'],
  ])('says who may decide by %j', (approvers, text) => {
    expect(approversText(approvers)).toBe(text);
  });

  it.each([
    [
      'not_an_approver',
      { approvers: { emails: ['ann@example.com'] } },
      'You may not decide this request. Only ann@example.com may decide it.',
    ],
    ['self_decision', {}, 'You paused this request yourself; someone else must decide it.'],
    ['already_voted', { approvals: 2 }, 'You have already voted on this request.'],
    ['forbidden', {}, 'Your sign-in may not decide requests: it is an agent’s.'],
    [
      'unknown_person',
      { approvals: 2 },
      'This request needs someone Handback knows as a person (four eyes or several approvals), and it does not know you: an email address, or a sign-in no one is listed for, is not enough. Sign in as yourself, or decide in Slack.',
    ],
  ] satisfies Array<[NonNullable<AskView['refusal']>, Partial<AskView>, string]>)(
    'shows an ask the server refuses the person (%s) as read-only, in its words',
    (refusal, extra, text) => {
      const ask: AskView = { ...refund, ...extra, mayDecide: false, refusal };
      expect(readOnlyText(ask)).toBe(text);
    },
  );

  it('says only that the person may not decide when an older server gives no reason', () => {
    expect(readOnlyText({ ...refund, mayDecide: false })).toBe('You may not decide this request.');
  });

  it('leaves an ask without the fields, or one the person may decide, open', () => {
    expect(readOnlyText(refund)).toBeUndefined();
    expect(readOnlyText({ ...refund, mayDecide: true })).toBeUndefined();
  });

  it('disables the submit button, saying why, when nothing waiting is the person’s to decide', () => {
    const mine = pause([refund, { ...question, mayDecide: false }]);
    const theirs = pause([
      { ...refund, mayDecide: false },
      { ...question, mayDecide: false },
    ]);
    expect(allReadOnly(mine)).toBe(false);
    expect(submitState(mine, false)).toEqual({ label: 'Submit decisions', disabled: false });
    expect(submitState(mine, true)).toEqual({ label: 'Sending…', disabled: true });
    expect(allReadOnly(theirs)).toBe(true);
    expect(submitState(theirs, false)).toMatchObject({ disabled: true, why: expect.stringMatching(/who may decide/) });
  });

  it.each([
    [
      { tally: { have: 1, need: 2 }, votes: [{ decision: 'approve' as const, by: ann, at: 't1' }] },
      '1 of 2 approvals: Ann approved',
    ],
    [
      {
        tally: { have: 1, need: 2 },
        votes: [
          { decision: 'approve' as const, by: ann, at: 't1' },
          { decision: 'edit' as const, args: { amount: 10 }, by: bob, at: 't2' },
        ],
      },
      '1 of 2 approvals: Ann approved and bob@example.com edited',
    ],
    [{ tally: { have: 0, need: 2 } }, '0 of 2 approvals'],
    [{ tally: { have: 0, need: 1 } }, undefined],
    // A server without tallies: the page counts nothing itself.
    [{ approvals: 2, votes: [{ decision: 'approve' as const, by: ann, at: 't1' }] }, undefined],
  ])('shows the server’s tally and the votes of %j', (quorum, text) => {
    expect(votesText({ ...refund, ...quorum })).toBe(text);
  });

  it('says who decided a decided ask, when the API says', () => {
    expect(decidedByText({ ...refund, decision: { decision: 'approve', by: ann } })).toBe('by Ann');
    expect(decidedByText({ ...refund, decision: { decision: 'approve' } })).toBeUndefined();
  });
});

describe('rowName', () => {
  it.each([
    [[refund], 'refund_order: Refund order A1?'],
    [[{ ...refund, prompt: null }], 'refund_order, run run-1'],
    [[{ ...refund, prompt: '' }, question], 'refund_order, ask_customer: Which account?'],
  ])('names a row of %j by what it asks', (asks, name) => {
    expect(rowName({ runId: 'run-1', asks })).toBe(name);
  });
});
