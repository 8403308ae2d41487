import { describe, expect, it, vi } from 'vitest';
import { createMemoryDeliveryLog } from '../../functions/channels/delivery-log.ts';
import { createEmailChannel } from '../../functions/channels/email.ts';
import { createSlackChannel } from '../../functions/channels/slack.ts';
import { SlackApiError, type SlackCall } from '../../functions/channels/slack-api.ts';
import type { PauseView } from '../../functions/checkpoints/checkpoint-store.ts';
import type { LifecycleEvent } from '../../functions/events/lifecycle.ts';
import type { UseCaseDeps } from '../../functions/resume/resume.ts';
import { LifecycleType } from '../../functions/vocabulary.ts';

/**
 * A send that fails is logged naming the channel, whom it did not reach and the pause, once per recipient; the others
 * of the event are still sent, and the event fails (so it is retried).
 */

const PAUSE = { tenant: 't1', runId: 'order-7', interruptId: 'p7' };
const created = { type: LifecycleType.Created, detail: { ...PAUSE } } as unknown as LifecycleEvent;

function deps(notify: Array<{ channel: string; to: string }>) {
  const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const view = {
    ...PAUSE,
    status: 'paused',
    createdAt: '2026-12-01T10:00:00.000Z',
    expiresAt: '2026-12-08T10:00:00.000Z',
    asks: [{ toolCallId: 'call_refund', name: 'refund_order', args: {}, kind: 'approval', prompt: 'Refund?' }],
    decided: [],
    pending: ['call_refund'],
    notify,
  } as unknown as PauseView;
  const useCases = { logger, metrics: { addMetric: vi.fn() }, store: { getPause: async () => view } };
  return { logger, useCases: useCases as unknown as UseCaseDeps };
}

/** The one warn line of a send to `to` on `channel` that failed with `error`. */
function expectLoggedOnce(logger: ReturnType<typeof deps>['logger'], channel: string, to: string, error: unknown) {
  expect(logger.warn).toHaveBeenCalledTimes(1);
  expect(logger.warn).toHaveBeenCalledWith('Channel send failed', {
    channel,
    to,
    type: LifecycleType.Created,
    runId: 'order-7',
    interruptId: 'p7',
    error,
  });
}

describe('a failed send', () => {
  it('is logged by the email channel naming the channel, the recipient and the pause; the other recipient is mailed', async () => {
    const { logger, useCases } = deps([
      { channel: 'email', to: 'alice@example.com' },
      { channel: 'email', to: 'bob@example.com' },
    ]);
    const sent: string[] = [];
    const refused = new Error('554 Message rejected: Email address is not verified.');
    const channel = createEmailChannel({
      useCases,
      transport: {
        async send(message) {
          if (message.to === 'alice@example.com') throw refused;
          sent.push(message.to);
        },
      },
      from: 'handback@example.com',
      log: createMemoryDeliveryLog(),
      link: async () => 'https://inbox.example.com/#token',
      defaultRecipients: [],
    });
    await expect(channel.deliver(created)).rejects.toBe(refused);
    expect(sent).toEqual(['bob@example.com']);
    expectLoggedOnce(logger, 'email', 'alice@example.com', refused);
  });

  it('is logged by the Slack channel naming the channel, the Slack channel it posts to and the pause; the other is posted to', async () => {
    const { logger, useCases } = deps([
      { channel: 'slack', to: 'C0GONE0001' },
      { channel: 'slack', to: 'C0OPEN0001' },
    ]);
    const posted: string[] = [];
    const notFound = new SlackApiError('chat.postMessage', 'channel_not_found');
    const call = (async (method: string, args: Record<string, unknown>) => {
      if (method !== 'chat.postMessage') return {};
      if (args.channel === 'C0GONE0001') throw notFound;
      posted.push(String(args.channel));
      return { channel: args.channel, ts: '1700000000.000100' };
    }) as unknown as SlackCall;
    const channel = createSlackChannel({
      useCases,
      call,
      log: createMemoryDeliveryLog(),
      signingSecret: 'slack-signing-secret-for-failed-sends',
      defaultChannels: [],
    });
    await expect(channel.deliver(created)).rejects.toBe(notFound);
    expect(posted).toEqual(['C0OPEN0001']);
    expectLoggedOnce(logger, 'slack', 'C0GONE0001', notFound);
  });
});
