import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PauseChange } from '../../functions/checkpoints/checkpoint-service.ts';
import type { PauseCreated, PauseInput } from '../../functions/checkpoints/checkpoint-store.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { EmfMetrics, JsonLogger, type LineWriter } from '../../functions/handlers/telemetry.ts';
import { parseLadder } from '../../functions/policies/ladder.ts';
import {
  countEscalation,
  countPending,
  countSettled,
  PENDING_EVERY_MINUTES,
  pendingDue,
  toolDimension,
} from '../../functions/resume/decision-metrics.ts';
import { sweepDue } from '../../functions/resume/resume.ts';
import { policyTranscript, SPEC_ARGS, SPEC_POLICIES, testClock } from '../../functions/testing/index.ts';
import type { Actor } from '../../functions/wire.ts';
import { engineOf } from '../policies/support.ts';

/**
 * §21's metrics, as the EMF lines CloudWatch reads: each settled ask counted once from the committed change that
 * settled it (a memory store's observer stands in for the lifecycle stream), with its outcome, door and time from the
 * pause on an injected clock; what waits, as the sweep counts it; an escalation level.
 */

const NOW = '2026-03-02T00:00:00.000Z';
const T0 = Date.parse(NOW);
const engine = engineOf(SPEC_POLICIES, {}, SPEC_ARGS);
const alice: Actor = { kind: 'person', subject: 'alice', via: 'api' };
const bob: Actor = { kind: 'person', subject: 'bob', via: 'slack' };
const agent: Actor = { kind: 'agent', subject: 'agent-7', via: 'api' };

beforeEach(() => {
  // EMF's `_aws.Timestamp` is the time of writing.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(NOW));
});
afterEach(() => {
  vi.useRealTimers();
});

/** A memory store on a clock at T0 whose every committed change is counted into EMF lines. */
function setup() {
  const clock = testClock(NOW);
  const lines: string[] = [];
  const write: LineWriter = (_, line) => lines.push(line);
  const metrics = new EmfMetrics({ namespace: 'Handback', serviceName: 'handback', write });
  const store = createMemoryCheckpointStore({
    clock: clock.now,
    policies: async () => engine,
    onChange: (change: PauseChange) => countSettled(metrics, change),
  });
  let runs = 0;
  const pause = (tool: string, extra: Partial<PauseInput> = {}) =>
    store.pause({
      tenant: 'acme',
      runId: `run-${++runs}`,
      format: 'openai-chat',
      messages: policyTranscript([[`call_${tool}`, tool, { orderId: 'A-1' }]]),
      asks: [{ toolCallId: `call_${tool}`, kind: 'approval' }],
      by: agent,
      ...extra,
    }) as Promise<PauseCreated>;
  const decide = (created: PauseCreated, decision: Record<string, unknown>, by: Actor = alice) =>
    store.decide({
      tenant: 'acme',
      runId: created.runId,
      interruptId: created.interruptId,
      decisions: [{ toolCallId: created.asks[0] as string, ...decision } as never],
      by,
    });
  /** The documents written since the last call, parsed. */
  const written = () => {
    metrics.publish();
    return lines.splice(0).map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  return { store, clock, metrics, lines, pause, decide, written };
}

/** The values of each document: its dimension values and metric values, without `_aws`. */
const values = (documents: Array<Record<string, unknown>>) => documents.map(({ _aws, ...rest }) => rest);

describe('countSettled', () => {
  it('writes an approval as TimeToDecision by tool, outcome and door and by tool, and Decisions by those and by outcome', async () => {
    const { clock, pause, decide, written, lines, metrics } = setup();
    const created = await pause('deploy');
    expect(written()).toEqual([]);
    clock.advance(90);
    await decide(created, { decision: 'approve' });
    metrics.publish();
    expect(lines).toEqual([
      `{"_aws":{"Timestamp":${T0},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[["tool","outcome","via"],["tool"]],"Metrics":[{"Name":"TimeToDecision","Unit":"Milliseconds"}]}]},"tool":"deploy","outcome":"approve","via":"api","TimeToDecision":90000}`,
      `{"_aws":{"Timestamp":${T0},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[["tool","outcome","via"],["outcome"]],"Metrics":[{"Name":"Decisions","Unit":"Count"}]}]},"tool":"deploy","outcome":"approve","via":"api","Decisions":1}`,
    ]);
  });

  it('counts a quorum once, at the vote that completes it, through that vote’s door', async () => {
    const { clock, pause, decide, written } = setup();
    const created = await pause('deploy', { asks: [{ toolCallId: 'call_deploy', kind: 'approval', approvals: 2 }] });
    clock.advance(10);
    await decide(created, { decision: 'approve' });
    expect(written()).toEqual([]);
    clock.advance(20);
    await decide(created, { decision: 'approve' }, bob);
    expect(values(written())).toEqual([
      { tool: 'deploy', outcome: 'approve', via: 'slack', TimeToDecision: 30_000 },
      { tool: 'deploy', outcome: 'approve', via: 'slack', Decisions: 1 },
    ]);
  });

  it('writes an edit and a rejection with their own outcomes', async () => {
    const { clock, pause, decide, written } = setup();
    const edited = await pause('deploy');
    const rejected = await pause('notify');
    clock.advance(5);
    await decide(edited, { decision: 'edit', args: { orderId: 'A-2' } });
    await decide(rejected, { decision: 'reject', reason: 'no' }, bob);
    expect(values(written())).toEqual([
      { tool: 'deploy', outcome: 'edit', via: 'api', TimeToDecision: 5000 },
      { tool: 'deploy', outcome: 'edit', via: 'api', Decisions: 1 },
      { tool: 'notify', outcome: 'reject', via: 'slack', TimeToDecision: 5000 },
      { tool: 'notify', outcome: 'reject', via: 'slack', Decisions: 1 },
    ]);
  });

  it('writes the policies’ decisions at pause time as outcome policy, door policy, with no per-tool time series', async () => {
    const { store, written } = setup();
    await store.pause({
      tenant: 'acme',
      runId: 'run-policy',
      format: 'openai-chat',
      messages: policyTranscript([['call_delete', 'delete_customer', { orderId: 'A-3' }]]),
      asks: [{ toolCallId: 'call_delete', kind: 'approval' }],
      by: agent,
    });
    const documents = written();
    expect(values(documents)).toEqual([
      { tool: 'delete_customer', outcome: 'policy', via: 'policy', TimeToDecision: 0 },
      { tool: 'delete_customer', outcome: 'policy', via: 'policy', Decisions: 1 },
    ]);
    expect(
      documents.map(
        (d) => (d._aws as { CloudWatchMetrics: [{ Dimensions: unknown }] }).CloudWatchMetrics[0].Dimensions,
      ),
    ).toEqual([[['tool', 'outcome', 'via']], [['tool', 'outcome', 'via'], ['outcome']]]);
  });

  it('writes an expiry at expiresAt through the sweep, whatever the sweep’s lag', async () => {
    const { store, clock, pause, written } = setup();
    await pause('deploy', { expiresInSeconds: 600, onExpiry: 'reject' });
    clock.advance(700);
    await store.closeDue();
    expect(values(written())).toEqual([
      { tool: 'deploy', outcome: 'expired', via: 'sweep', TimeToDecision: 600_000 },
      { tool: 'deploy', outcome: 'expired', via: 'sweep', Decisions: 1 },
    ]);
  });

  it('writes a cancel for the asks still waiting only: an ask decided before it was counted then', async () => {
    const { store, clock, pause, decide, written } = setup();
    const created = await pause('deploy', {
      messages: policyTranscript([
        ['call_deploy', 'deploy', { orderId: 'A-1' }],
        ['call_notify', 'notify', { orderId: 'A-2' }],
      ]),
      asks: [
        { toolCallId: 'call_deploy', kind: 'approval' },
        { toolCallId: 'call_notify', kind: 'approval' },
      ],
    });
    clock.advance(30);
    await decide(created, { decision: 'approve' });
    expect(values(written()).map((d) => d.outcome)).toEqual(['approve', 'approve']);
    clock.advance(30);
    await store.cancel({ tenant: 'acme', runId: created.runId, interruptId: created.interruptId, by: bob });
    expect(values(written())).toEqual([
      { tool: 'notify', outcome: 'cancelled', via: 'slack', TimeToDecision: 60_000 },
      { tool: 'notify', outcome: 'cancelled', via: 'slack', Decisions: 1 },
    ]);
  });
});

describe('countPending', () => {
  it('writes the asks waiting and the oldest wait in seconds, in all and per tool', async () => {
    const { store, clock, pause, decide, written, metrics, lines } = setup();
    await pause('deploy');
    clock.advance(100);
    await pause('deploy');
    const decided = await pause('notify');
    await decide(decided, { decision: 'approve' });
    await pause('notify');
    clock.advance(20.5);
    written();
    const census = await store.countPending();
    expect(census).toMatchObject({ asks: 3, pauses: 3, complete: true, oldestSinceMs: T0 });
    countPending(metrics, census, T0 + 120_500);
    metrics.publish();
    expect(lines).toEqual([
      `{"_aws":{"Timestamp":${T0},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[[]],"Metrics":[{"Name":"PendingAsks","Unit":"Count"},{"Name":"OldestPendingSeconds","Unit":"Seconds"}]}]},"PendingAsks":3,"OldestPendingSeconds":120}`,
      `{"_aws":{"Timestamp":${T0},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[["tool"]],"Metrics":[{"Name":"PendingAsks","Unit":"Count"},{"Name":"OldestPendingSeconds","Unit":"Seconds"}]}]},"tool":"deploy","PendingAsks":2,"OldestPendingSeconds":120}`,
      `{"_aws":{"Timestamp":${T0},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[["tool"]],"Metrics":[{"Name":"PendingAsks","Unit":"Count"},{"Name":"OldestPendingSeconds","Unit":"Seconds"}]}]},"tool":"notify","PendingAsks":1,"OldestPendingSeconds":20}`,
    ]);
  });

  it('writes none waiting as 0 asks and 0 seconds, so the alarm’s series has a value', async () => {
    const { store, written, metrics } = setup();
    countPending(metrics, await store.countPending(), T0);
    expect(values(written())).toEqual([{ PendingAsks: 0, OldestPendingSeconds: 0 }]);
  });

  it('reads at most limit open pauses, and says the count is not complete', async () => {
    const { store, pause } = setup();
    await pause('deploy');
    await pause('deploy');
    await pause('deploy');
    expect(await store.countPending({ limit: 2 })).toMatchObject({ asks: 2, pauses: 2, complete: false });
  });

  it('runs on the ticks of every fifth minute', () => {
    const minute = (n: number) => T0 + n * 60_000 + 1234;
    expect([0, 1, 4, 5, 6, 10].map((n) => pendingDue(minute(n)))).toEqual([true, false, false, true, false, true]);
    expect(PENDING_EVERY_MINUTES).toBe(5);
  });
});

describe('countEscalation', () => {
  it('writes one Escalations in all and by tool, the level riding along in no dimension set', () => {
    const { metrics, lines } = setup();
    countEscalation(metrics, { tool: 'deploy', level: 2 });
    metrics.publish();
    expect(lines).toEqual([
      `{"_aws":{"Timestamp":${T0},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[[],["tool"]],"Metrics":[{"Name":"Escalations","Unit":"Count"}]}]},"tool":"deploy","level":"2","Escalations":1}`,
    ]);
  });
});

describe("the sweep's Escalations (§21)", () => {
  it('writes one Escalations line per level the sweep reaches, and none when a sweep reaches none', async () => {
    const clock = testClock(NOW);
    const lines: string[] = [];
    const metrics = new EmfMetrics({
      namespace: 'Handback',
      serviceName: 'handback',
      write: (_, line) => lines.push(line),
    });
    const store = createMemoryCheckpointStore({
      clock: clock.now,
      escalation: parseLadder('PT1M group:leads; PT2M email:cfo@example.com'),
    });
    await store.pause({
      tenant: 'acme',
      runId: 'run-ladder',
      format: 'openai-chat',
      messages: policyTranscript([['call_refund', 'refund', { orderId: 'A-1' }]]),
      asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { subjects: ['ann'] } }],
      expiresInSeconds: 600,
      by: agent,
    });
    const logger = new JsonLogger({ serviceName: 'handback-test', logLevel: 'SILENT' });
    const deps = { store, metrics, logger, handoff: { deliver: async () => {} } };
    const sweep = async () => {
      await sweepDue(deps);
      metrics.publish();
      return lines.splice(0);
    };
    expect(await sweep()).toEqual([]);
    clock.advance(60);
    const line = (level: number) =>
      `{"_aws":{"Timestamp":${T0},"CloudWatchMetrics":[{"Namespace":"Handback","Dimensions":[[],["tool"]],"Metrics":[{"Name":"Escalations","Unit":"Count"}]}]},"tool":"refund","level":"${level}","Escalations":1}`;
    expect(await sweep()).toEqual([line(1)]);
    expect(await sweep()).toEqual([]);
    clock.advance(60);
    expect(await sweep()).toEqual([line(2)]);
    expect(await sweep()).toEqual([]);
  });
});

describe('toolDimension', () => {
  it('keeps a name as it is, clips a long one to 256 characters (never half a character), names a blank one', () => {
    expect(toolDimension('refund_order')).toBe('refund_order');
    expect(toolDimension('x'.repeat(300))).toBe('x'.repeat(256));
    expect(toolDimension('😀'.repeat(300))).toBe('😀'.repeat(256));
    expect(toolDimension('  ')).toBe('(unnamed)');
  });
});
