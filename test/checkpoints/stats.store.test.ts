import { describe, expect, it } from 'vitest';
import type { CheckpointStore, PauseCreated, PauseInput } from '../../functions/checkpoints/checkpoint-store.ts';
import {
  createDynamoDBCheckpointStore,
  createMemoryCheckpointStore,
} from '../../functions/checkpoints/dynamodb-store.ts';
import { BadRequestError } from '../../functions/errors.ts';
import { policyTranscript, SPEC_ARGS, SPEC_POLICIES, testClock } from '../../functions/testing/index.ts';
import type { Actor } from '../../functions/wire.ts';
import { engineOf } from '../policies/support.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * `GET /stats` (§21) exactly, on both stores: pauses seeded through the store at known times on an injected clock —
 * each outcome (approve, edit, reject, a quorum's last vote, an answer, an expiry, a cancel, the policies'), one
 * still waiting, one before the window and one after it — and the counts, the nearest-rank percentiles and the oldest
 * wait the window's answer must hold, to the millisecond.
 */

const table = useTestTable();
const engine = engineOf(SPEC_POLICIES, {}, SPEC_ARGS);
const T0 = Date.parse('2026-03-02T00:00:00.000Z');
const SINCE = new Date(T0).toISOString();
const UNTIL = new Date(T0 + 2000_000).toISOString();
const alice: Actor = { kind: 'person', subject: 'alice', via: 'api' };
const bob: Actor = { kind: 'person', subject: 'bob', via: 'slack' };
const agent: Actor = { kind: 'agent', subject: 'agent-7', via: 'api' };

const stores: Array<[string, (clock: () => Date) => CheckpointStore]> = [
  ['the memory store', (clock) => createMemoryCheckpointStore({ clock, policies: async () => engine })],
  [
    'the DynamoDB store',
    (clock) =>
      createDynamoDBCheckpointStore({
        client: table.client,
        tableName: table.tableName,
        clock,
        policies: async () => engine,
      }),
  ],
];

describe.each(stores)('the stats of a window, on %s', (_, storeOf) => {
  /** A fresh tenant on a fresh clock at T0; `at(seconds)` sets the clock to T0 + seconds. */
  const setup = () => {
    const clock = testClock(SINCE);
    let now = 0;
    const at = (seconds: number) => {
      clock.advance(seconds - now);
      now = seconds;
    };
    const tenant = `t-${Math.random().toString(36).slice(2)}`;
    const store = storeOf(clock.now);
    let runs = 0;
    /** One approval ask of `tool` (call `call_<tool>`), paused now. */
    const pause = (tool: string, extra: Partial<PauseInput> = {}) =>
      store.pause({
        tenant,
        runId: `run-${++runs}`,
        format: 'openai-chat',
        messages: policyTranscript([[`call_${tool}`, tool, { orderId: 'A-1' }]]),
        asks: [{ toolCallId: `call_${tool}`, kind: 'approval' }],
        by: agent,
        ...extra,
      }) as Promise<PauseCreated>;
    const decide = (created: PauseCreated, decision: Record<string, unknown>, by: Actor = alice) =>
      store.decide({
        tenant,
        runId: created.runId,
        interruptId: created.interruptId,
        decisions: [{ toolCallId: created.asks[0] as string, ...decision } as never],
        by,
      });
    return { store, tenant, at, pause, decide };
  };

  it('counts each outcome, the people’s times by nearest rank, and what still waits, to the millisecond', async () => {
    const { store, tenant, at, pause, decide } = setup();
    at(-86_400);
    await pause('deploy'); // Before the window: not counted.
    at(0);
    const approved = await pause('deploy');
    const edited = await pause('deploy');
    const rejected = await pause('deploy');
    const quorum = await pause('deploy', { asks: [{ toolCallId: 'call_deploy', kind: 'approval', approvals: 2 }] });
    const expiring = await pause('deploy', { expiresInSeconds: 600, onExpiry: 'reject' });
    const cancelled = await pause('deploy');
    // Two asks of one tool: the first approved, then the pause cancelled while the second waits.
    const decidedEarly = await pause('deploy', {
      messages: policyTranscript([
        ['call_deploy', 'deploy', { orderId: 'A-1' }],
        ['call_deploy_2', 'deploy', { orderId: 'A-2' }],
      ]),
      asks: [
        { toolCallId: 'call_deploy', kind: 'approval' },
        { toolCallId: 'call_deploy_2', kind: 'approval' },
      ],
    });
    const answered = await store.pause({
      tenant,
      runId: 'run-answer',
      format: 'openai-chat',
      messages: policyTranscript([['call_ask', 'ask_human', { question: 'Which one?' }]]),
      asks: [{ toolCallId: 'call_ask' }],
      by: agent,
    });
    // The policies decide these two at pause time (§17): one approved, one rejected, in no time.
    await store.pause({
      tenant,
      runId: 'run-policy',
      format: 'openai-chat',
      messages: policyTranscript([
        ['call_small', 'refund_order', { orderId: 'A-1', amount: 20 }],
        ['call_delete', 'delete_customer', { orderId: 'A-3' }],
      ]),
      asks: [
        { toolCallId: 'call_small', kind: 'approval' },
        { toolCallId: 'call_delete', kind: 'approval' },
      ],
      by: agent,
    });
    at(30);
    await decide(decidedEarly, { decision: 'approve' });
    at(45);
    await store.resume({
      tenant,
      runId: answered.runId,
      interruptId: answered.interruptId,
      answer: 'the blue one',
      by: bob,
    });
    at(60);
    await decide(approved, { decision: 'approve' });
    at(100);
    await decide(quorum, { decision: 'approve' });
    at(120);
    await decide(edited, { decision: 'edit', args: { orderId: 'A-2' } }, bob);
    at(300);
    await decide(rejected, { decision: 'reject', reason: 'not today' });
    at(400);
    await decide(quorum, { decision: 'approve' }, bob);
    at(700);
    await store.closeDue();
    at(900);
    await store.cancel({ tenant, runId: cancelled.runId, interruptId: cancelled.interruptId, by: alice });
    // A recorded approval keeps its outcome when its pause is cancelled later.
    await store.cancel({ tenant, runId: decidedEarly.runId, interruptId: decidedEarly.interruptId, by: alice });
    at(1000);
    await pause('deploy'); // Still waiting at the end.
    at(2000);
    await pause('deploy'); // Made at `until`: after the window.
    at(4000);

    expect(expiring.expiresAt).toBe(new Date(T0 + 600_000).toISOString());
    expect(await store.stats({ tenant, since: SINCE, until: UNTIL })).toEqual({
      since: SINCE,
      until: UNTIL,
      tools: [
        {
          tool: 'deploy',
          outcomes: { approve: 3, edit: 1, reject: 1, expired: 1, cancelled: 2, policy: 0 },
          // People's times: 30, 60, 120, 300 and 400 seconds; the expiry and the cancel are not theirs.
          timeToDecisionMs: { p50: 120_000, p90: 400_000, max: 400_000 },
          pending: 1,
          oldestPendingSeconds: 3000,
        },
        {
          tool: 'ask_human',
          outcomes: { approve: 1, edit: 0, reject: 0, expired: 0, cancelled: 0, policy: 0 },
          timeToDecisionMs: { p50: 45_000, p90: 45_000, max: 45_000 },
          pending: 0,
          oldestPendingSeconds: null,
        },
        {
          tool: 'delete_customer',
          outcomes: { approve: 0, edit: 0, reject: 0, expired: 0, cancelled: 0, policy: 1 },
          timeToDecisionMs: { p50: null, p90: null, max: null },
          pending: 0,
          oldestPendingSeconds: null,
        },
        {
          tool: 'refund_order',
          outcomes: { approve: 0, edit: 0, reject: 0, expired: 0, cancelled: 0, policy: 1 },
          timeToDecisionMs: { p50: null, p90: null, max: null },
          pending: 0,
          oldestPendingSeconds: null,
        },
      ],
    });
  });

  it('counts an open pause past its expiry as expired, before any sweep', async () => {
    const { store, tenant, at, pause } = setup();
    at(0);
    await pause('deploy', { expiresInSeconds: 60 });
    at(61);
    const stats = await store.stats({ tenant, since: SINCE, until: UNTIL });
    expect(stats.tools).toEqual([
      {
        tool: 'deploy',
        outcomes: { approve: 0, edit: 0, reject: 0, expired: 1, cancelled: 0, policy: 0 },
        timeToDecisionMs: { p50: null, p90: null, max: null },
        pending: 0,
        oldestPendingSeconds: null,
      },
    ]);
  });

  it('keeps tenants apart, and answers an empty window with no tools', async () => {
    const { store, tenant, at, pause } = setup();
    at(0);
    await pause('deploy');
    const other = setup();
    expect((await other.store.stats({ tenant: other.tenant, since: SINCE, until: UNTIL })).tools).toEqual([]);
    expect((await store.stats({ tenant, since: SINCE, until: UNTIL })).tools).toHaveLength(1);
  });

  it('takes instants with an offset and answers them as UTC, the window’s start included and its end not', async () => {
    const { store, tenant, at, pause } = setup();
    at(0);
    await pause('deploy');
    const later = await store.stats({ tenant, since: '2026-03-02T02:00:00.000+02:00', until: '2026-03-02T00:00:01Z' });
    expect(later).toMatchObject({ since: SINCE, until: '2026-03-02T00:00:01.000Z' });
    expect(later.tools.map((tool) => tool.tool)).toEqual(['deploy']);
    const before = await store.stats({ tenant, since: '2026-03-01T00:00:00Z', until: SINCE });
    expect(before.tools).toEqual([]);
  });

  it.each([
    ['since after until', { since: UNTIL, until: SINCE }, '/since'],
    ['since at until', { since: SINCE, until: SINCE }, '/since'],
    ['more than 31 days', { since: SINCE, until: new Date(T0 + 31 * 86_400_000 + 1).toISOString() }, '/until'],
    ['an instant without a time zone', { since: '2026-03-02T00:00:00', until: UNTIL }, '/since'],
    ['no until', { since: SINCE }, '/until'],
  ])('refuses %s, naming the field', async (_, window, path) => {
    const { store, tenant } = setup();
    const refusal = await store.stats({ tenant, ...window } as never).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BadRequestError);
    expect((refusal as BadRequestError).failures?.map((failure) => failure.path)).toEqual([path]);
  });

  it('takes a window of exactly 31 days', async () => {
    const { store, tenant } = setup();
    const until = new Date(T0 + 31 * 86_400_000).toISOString();
    expect(await store.stats({ tenant, since: SINCE, until })).toEqual({ since: SINCE, until, tools: [] });
  });
});
