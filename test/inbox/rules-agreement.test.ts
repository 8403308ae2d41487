import { describe, expect, it } from 'vitest';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { createApiHandler } from '../../functions/handlers/http-api.ts';
import { draftDecision, firstDraft } from '../../functions/inbox/page/decide.ts';
import { mayDecide, readOnlyText, votesText } from '../../functions/inbox/page/deciders.ts';
import type { AskView, PauseView } from '../../functions/inbox/page/types.ts';
import { approvalTranscript } from '../../functions/testing/index.ts';
import { httpEvent, lambdaContext } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

/**
 * The page and the server give the same answer (§16, issue 28 item 3): over a table of pauses, votes and viewers, the
 * page reads the view the server sends for that viewer — `refusal`, `tally`, `argsHash` — and the server, sent the
 * decision the page would make, answers exactly what the view said: accepted when the page lets the person decide,
 * refused with the view's own code when it does not, and nothing recorded then. The page counts nothing itself, so an
 * edit back to earlier arguments (whose earlier votes count again) reads the same on both sides.
 */

/** Claims as API Gateway's JWT authorizer passes them: every claim a string, a list as `[a b]`. */
const PEOPLE: Record<string, Record<string, string>> = {
  ann: { sub: 'u-ann', email: 'ann@example.com', email_verified: 'true', scope: 'handback/decide' },
  // Ann again under another subject (another issuer's account), with the same verified email: the same person.
  annToo: { sub: 'u-ann-2', email: 'ANN@example.com', email_verified: 'true', scope: 'handback/decide' },
  bob: { sub: 'u-bob', email: 'bob@example.com', email_verified: 'true', 'cognito:groups': '[finance ops]' },
  cyd: { sub: 'u-cyd', email: 'cyd@example.com', email_verified: 'true' },
  dan: { sub: 'u-dan', email: 'dan@example.com', email_verified: 'true' },
  // Claims Ann's address without proving it.
  mallory: { sub: 'u-mallory', email: 'ann@example.com', email_verified: 'false' },
  agent: { sub: 'agent-1', scope: 'handback/agent' },
  pauser: { sub: 'u-pauser', email: 'pauser@example.com', email_verified: 'true' },
};

const MODEL = { orderId: 'A-1042', amount: 120 };
const EDITED = { orderId: 'A-1042', amount: 9999 };

type Step = [who: string, what: 'approve' | 'reject' | { edit: Record<string, unknown> }];

interface Case {
  name: string;
  ask?: Record<string, unknown>;
  fourEyes?: boolean;
  steps?: Step[];
  cancel?: boolean;
  viewer: string;
  refusal: AskView['refusal'];
  tally: { have: number; need: number };
}

const CASES: Case[] = [
  {
    name: 'anyone may decide an ask without approvers',
    viewer: 'ann',
    refusal: undefined,
    tally: { have: 0, need: 1 },
  },
  {
    name: 'an approver by group may decide',
    ask: { approvers: { groups: ['finance'] } },
    viewer: 'bob',
    refusal: undefined,
    tally: { have: 0, need: 1 },
  },
  {
    name: 'someone outside the approvers may not',
    ask: { approvers: { groups: ['finance'] } },
    viewer: 'cyd',
    refusal: 'not_an_approver',
    tally: { have: 0, need: 1 },
  },
  {
    name: 'an approver by verified email may decide',
    ask: { approvers: { emails: ['Ann@Example.com'] } },
    viewer: 'ann',
    refusal: undefined,
    tally: { have: 0, need: 1 },
  },
  {
    name: 'an unverified claim to that email may not',
    ask: { approvers: { emails: ['ann@example.com'] } },
    viewer: 'mallory',
    refusal: 'not_an_approver',
    tally: { have: 0, need: 1 },
  },
  {
    name: 'the pauser may not decide a four-eyes pause',
    fourEyes: true,
    viewer: 'pauser',
    refusal: 'self_decision',
    tally: { have: 0, need: 1 },
  },
  {
    name: 'a pauser who is not an approver is told self_decision first',
    fourEyes: true,
    ask: { approvers: { groups: ['finance'] } },
    viewer: 'pauser',
    refusal: 'self_decision',
    tally: { have: 0, need: 1 },
  },
  {
    name: 'an agent never decides',
    viewer: 'agent',
    refusal: 'forbidden',
    tally: { have: 0, need: 1 },
  },
  {
    name: 'a voter may not vote again',
    ask: { approvals: 2 },
    steps: [['ann', 'approve']],
    viewer: 'ann',
    refusal: 'already_voted',
    tally: { have: 1, need: 2 },
  },
  {
    name: 'the same person under another subject (the same verified email) may not vote again',
    ask: { approvals: 2 },
    steps: [['ann', 'approve']],
    viewer: 'annToo',
    refusal: 'already_voted',
    tally: { have: 1, need: 2 },
  },
  {
    name: 'another person may vote',
    ask: { approvals: 2 },
    steps: [['ann', 'approve']],
    viewer: 'bob',
    refusal: undefined,
    tally: { have: 1, need: 2 },
  },
  {
    name: 'an edit makes the votes for other arguments stop counting',
    ask: { approvals: 3 },
    steps: [
      ['ann', 'approve'],
      ['bob', { edit: EDITED }],
    ],
    viewer: 'cyd',
    refusal: undefined,
    tally: { have: 1, need: 3 },
  },
  {
    name: 'an edit back to earlier arguments counts the earlier votes for them again',
    ask: { approvals: 3 },
    steps: [
      ['ann', 'approve'],
      ['bob', { edit: EDITED }],
      ['cyd', { edit: MODEL }],
    ],
    viewer: 'dan',
    refusal: undefined,
    tally: { have: 2, need: 3 },
  },
  {
    name: 'a voter whose vote counts again after an edit back still may not vote again',
    ask: { approvals: 3 },
    steps: [
      ['ann', 'approve'],
      ['bob', { edit: EDITED }],
      ['cyd', { edit: MODEL }],
    ],
    viewer: 'ann',
    refusal: 'already_voted',
    tally: { have: 2, need: 3 },
  },
  {
    name: 'nobody may decide a cancelled pause',
    cancel: true,
    viewer: 'ann',
    refusal: 'pause_cancelled',
    tally: { have: 0, need: 1 },
  },
];

function api() {
  const handler = createApiHandler({
    store: createMemoryCheckpointStore(),
    handoff: { deliver: async () => {} },
    ...testTelemetry(),
  });
  return async (who: string, method: string, path: string, body?: unknown) => {
    const result = await handler(
      httpEvent(method, path, { claims: { tenant: 'acme', ...PEOPLE[who] }, ...(body === undefined ? {} : { body }) }),
      lambdaContext(),
    );
    // biome-ignore lint/suspicious/noExplicitAny: responses are read as loose JSON in the tests
    return { status: result.statusCode ?? 0, body: JSON.parse(String(result.body)) as Record<string, any> };
  };
}

let runs = 0;

describe('the page and the server on who may decide (§16)', () => {
  it.each(CASES)('agree: $name', async (c) => {
    const call = api();
    const runId = `agree-rules-${++runs}`;
    const created = await call('pauser', 'POST', `/runs/${runId}/pauses`, {
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: [{ toolCallId: 'call_refund', kind: 'approval', ...c.ask }],
      ...(c.fourEyes ? { fourEyes: true } : {}),
    });
    expect(created.status).toBe(201);
    const path = `/runs/${runId}/pauses/${created.body.interruptId}`;
    const read = async (who: string) => (await call(who, 'GET', path)).body as PauseView;
    const send = (who: string, decision: unknown) =>
      call(who, 'POST', `/runs/${runId}/resume`, { interruptId: created.body.interruptId, decisions: [decision] });
    // Each step is a decision made from what that person's page shows: the arguments' hash they saw.
    for (const [who, what] of c.steps ?? []) {
      const ask = (await read(who)).asks[0] as AskView;
      const decision =
        typeof what === 'string'
          ? { toolCallId: 'call_refund', decision: what, argsHash: ask.argsHash }
          : { toolCallId: 'call_refund', decision: 'edit', args: what.edit, argsHash: ask.argsHash };
      expect((await send(who, decision)).status).toBe(202);
    }
    if (c.cancel) expect((await call('pauser', 'POST', `${path}/cancel`, {})).status).toBe(200);

    const view = await read(c.viewer);
    const ask = view.asks[0] as AskView;
    // The server's view says what the table says.
    expect(ask.refusal).toBe(c.refusal);
    expect(ask.tally).toEqual(c.tally);
    // The page shows what the view says, and nothing it worked out itself.
    expect(mayDecide(ask)).toBe(c.refusal === undefined);
    if (view.status === 'paused') expect(readOnlyText(ask) === undefined).toBe(c.refusal === undefined);
    if (c.tally.need > 1) expect(votesText(ask)).toMatch(new RegExp(`^${c.tally.have} of ${c.tally.need} approvals`));
    // The decision the page would send, and the server's answer to it. A voter's same vote again is a replay (the
    // same answer, nothing recorded twice); `already_voted` is what any other vote of theirs gets: a veto, here.
    const choice = c.refusal === 'already_voted' ? 'reject' : 'approve';
    if (c.refusal === 'already_voted' && c.viewer === c.steps?.[0]?.[0]) {
      const again = draftDecision(ask, 0, { ...firstDraft(ask, 0, false), choice: 'approve' });
      const replay = await send(c.viewer, again.kind === 'decision' ? again.decision : undefined);
      expect(replay).toMatchObject({ status: 202, body: { votes: { call_refund: c.tally } } });
    }
    const drafted = draftDecision(ask, 0, { ...firstDraft(ask, 0, false), choice });
    expect(drafted.kind).toBe('decision');
    const before = await read('ann');
    const answer = await send(c.viewer, drafted.kind === 'decision' ? drafted.decision : undefined);
    if (c.refusal === undefined) {
      expect([200, 202]).toContain(answer.status);
    } else {
      expect(answer.body.code).toBe(c.refusal);
      // A refusal changes nothing: the pause reads back as it was.
      const after = await read('ann');
      expect({ votes: after.asks[0]?.votes, decided: after.decided, status: after.status }).toEqual({
        votes: before.asks[0]?.votes,
        decided: before.decided,
        status: before.status,
      });
    }
  });

  it('agree that an approve of arguments edited since it was drafted is refused, and records nothing', async () => {
    const call = api();
    const runId = `agree-rules-${++runs}`;
    const created = await call('pauser', 'POST', `/runs/${runId}/pauses`, {
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals: 2 }],
    });
    const path = `/runs/${runId}/pauses/${created.body.interruptId}`;
    const seenByBob = ((await call('bob', 'GET', path)).body as PauseView).asks[0] as AskView;
    const annSees = ((await call('ann', 'GET', path)).body as PauseView).asks[0] as AskView;
    const edit = { toolCallId: 'call_refund', decision: 'edit', args: EDITED, argsHash: annSees.argsHash };
    const resume = (who: string, decision: unknown) =>
      call(who, 'POST', `/runs/${runId}/resume`, { interruptId: created.body.interruptId, decisions: [decision] });
    expect((await resume('ann', edit)).status).toBe(202);
    const drafted = draftDecision(seenByBob, 0, { ...firstDraft(seenByBob, 0, false), choice: 'approve' });
    const stale = await resume('bob', drafted.kind === 'decision' ? drafted.decision : undefined);
    expect(stale).toMatchObject({ status: 409, body: { code: 'args_changed', toolCallId: 'call_refund' } });
    const now = ((await call('bob', 'GET', path)).body as PauseView).asks[0] as AskView;
    expect(stale.body.argsHash).toBe(now.argsHash);
    expect(now.votes?.map((vote) => vote.by.subject)).toEqual(['u-ann']);
    expect(now.tally).toEqual({ have: 1, need: 2 });
    // Bob's page, read again, drafts on the new arguments, and the server takes that approve.
    const redrafted = draftDecision(now, 0, { ...firstDraft(now, 0, false), choice: 'approve' });
    const closed = await resume('bob', redrafted.kind === 'decision' ? redrafted.decision : undefined);
    expect(closed).toMatchObject({ status: 200, body: { dispatch: [{ toolCallId: 'call_refund', args: EDITED }] } });
  });
});
