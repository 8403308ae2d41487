import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDynamoDBDeliveryLog,
  createMemoryDeliveryLog,
  type DeliveryLog,
} from '../../functions/channels/delivery-log.ts';
import { createSlackChannel } from '../../functions/channels/slack.ts';
import { createSlackCall } from '../../functions/channels/slack-api.ts';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import type { LifecycleEvent } from '../../functions/events/lifecycle.ts';
import type { UseCaseDeps } from '../../functions/resume/resume.ts';
import type { PauseView } from '../../functions/wire.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { type SlackStandIn, startSlackStandIn } from './slack-stand-in.ts';

const table = useTestTable();
const key = { tenant: 't1', runId: 'run-1', interruptId: 'p1', entry: 'slack:C0APPROVE1', what: 'post' };

describe.each<[string, (now: () => number) => DeliveryLog]>([
  ['in memory', (now) => createMemoryDeliveryLog(now)],
  ['on DynamoDB', (now) => createDynamoDBDeliveryLog({ client: table.client, tableName: table.tableName, now })],
])('the delivery log %s', (_, make) => {
  it('grants a delivery to its first claim only, and again once given back', async () => {
    const log = make(Date.now);
    const k = { ...key, runId: `claims-${Math.random()}` };
    expect(await log.claim(k)).toBe(true);
    expect(await log.claim(k)).toBe(false);
    await log.release(k);
    expect(await log.claim(k)).toBe(true);
    await log.done(k, { channel: 'C0APPROVE1', ts: '1.2' });
    expect(await log.claim(k, 0)).toBe(false);
    expect(await log.ref(k)).toEqual({ channel: 'C0APPROVE1', ts: '1.2' });
  });

  it('lets a claim whose sender went quiet be taken over, and not before', async () => {
    let now = 1_000_000;
    const log = make(() => now);
    const k = { ...key, runId: `stale-${Math.random()}` };
    expect(await log.claim(k, 60_000)).toBe(true);
    now += 30_000;
    expect(await log.claim(k, 60_000)).toBe(false);
    now += 31_000;
    expect(await log.claim(k, 60_000)).toBe(true);
  });

  it('finds the pause of a message it indexed, and nothing for another message', async () => {
    const log = make(Date.now);
    const ts = String(Math.random());
    await log.index({ channel: 'C0APPROVE1', ts }, { tenant: 't1', runId: 'run-1', interruptId: 'p1' });
    expect(await log.lookup({ channel: 'C0APPROVE1', ts })).toEqual({
      tenant: 't1',
      runId: 'run-1',
      interruptId: 'p1',
    });
    expect(await log.lookup({ channel: 'C0APPROVE1', ts: `${ts}9` })).toBeUndefined();
  });

  it('sees an id once within its window', async () => {
    let now = 2_000_000_000;
    const log = make(() => now);
    const id = `sig-${Math.random()}`;
    expect(await log.once(id, 600)).toBe(true);
    expect(await log.once(id, 600)).toBe(false);
    now += 601_000;
    expect(await log.once(id, 600)).toBe(true);
  });
});

describe('Slack deliveries in any order', () => {
  let slack: SlackStandIn;
  beforeAll(async () => {
    slack = await startSlackStandIn('T0TEAM0001');
  });
  afterAll(async () => {
    await slack.close();
  });

  const view = (over: Partial<PauseView>): PauseView => ({
    runId: 'order-7',
    interruptId: 'p7',
    status: 'paused',
    format: 'openai-chat',
    toolCall: { id: 'call_refund', name: 'refund_order', args: { orderId: 'order-7' } },
    prompt: null,
    answerSchema: null,
    asks: [
      {
        toolCallId: 'call_refund',
        name: 'refund_order',
        args: { orderId: 'order-7' },
        kind: 'approval',
        prompt: null,
        editable: true,
      },
    ],
    decided: [],
    pending: ['call_refund'],
    metadata: null,
    onExpiry: 'fail',
    createdAt: '2026-12-01T00:00:00.000Z',
    expiresAt: '2026-12-08T00:00:00.000Z',
    notify: [{ channel: 'slack', to: 'C0APPROVE1' }],
    ...over,
  });
  const event = (type: LifecycleEvent['type'], runId: string): LifecycleEvent => ({
    type,
    detail: {
      tenant: 't1',
      runId,
      interruptId: 'p7',
      status: 'paused',
      asks: [],
      decided: [],
      pending: [],
      expiresAt: '',
    },
  });
  const channelOver = (current: { view: PauseView }) =>
    createSlackChannel({
      useCases: { store: { getPause: async () => current.view } as unknown as CheckpointStore } as UseCaseDeps,
      call: createSlackCall('xoxb-test', { apiUrl: slack.url }),
      log: createMemoryDeliveryLog(),
      signingSecret: 'secret',
      defaultChannels: [],
    });
  const postsOf = (runId: string) =>
    slack.of('chat.postMessage').filter((call) => JSON.stringify(call.body).includes(runId));

  it('posts nothing twice when Pause Created is delivered again', async () => {
    const current = { view: view({ runId: 'again-1' }) };
    const channel = channelOver(current);
    await channel.deliver(event('Pause Created', 'again-1'));
    await channel.deliver(event('Pause Created', 'again-1'));
    expect(postsOf('again-1')).toHaveLength(1);
  });

  it('shows a pause that closed before its Pause Created arrived as closed, without buttons, and posts it once', async () => {
    const current = {
      view: view({ runId: 'late-1', status: 'resumed', outcome: 'resumed', decided: ['call_refund'], pending: [] }),
    };
    current.view.asks[0] = {
      ...(current.view.asks[0] as PauseView['asks'][number]),
      decision: { decision: 'approve' },
    };
    const channel = channelOver(current);
    await channel.deliver(event('Pause Resumed', 'late-1'));
    expect(postsOf('late-1')).toHaveLength(0);
    await channel.deliver(event('Pause Created', 'late-1'));
    const posts = postsOf('late-1');
    expect(posts).toHaveLength(1);
    const blocks = posts[0]?.body.blocks as KnownBlock[];
    expect(blocks.some((block) => block.type === 'actions')).toBe(false);
    expect(JSON.stringify(blocks)).toContain('*Resumed*');
  });

  it('posts only to the pause’s own Slack entries, or to the default when it names none', async () => {
    const own = { view: view({ runId: 'default-1', notify: [{ channel: 'email', to: 'a@example.com' }] }) };
    await channelOver(own).deliver(event('Pause Created', 'default-1'));
    expect(postsOf('default-1')).toHaveLength(0);
    const { notify: _, ...without } = view({ runId: 'default-2' });
    const channel = createSlackChannel({
      useCases: { store: { getPause: async () => without } as unknown as CheckpointStore } as UseCaseDeps,
      call: createSlackCall('xoxb-test', { apiUrl: slack.url }),
      log: createMemoryDeliveryLog(),
      signingSecret: 'secret',
      defaultChannels: ['C0DEFAULT1'],
    });
    await channel.deliver(event('Pause Created', 'default-2'));
    expect(postsOf('default-2').map((call) => call.body.channel)).toEqual(['C0DEFAULT1']);
  });
});
