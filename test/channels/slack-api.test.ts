import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryDeliveryLog } from '../../functions/channels/delivery-log.ts';
import { createSlackChannel } from '../../functions/channels/slack.ts';
import {
  createSlackCall,
  type SlackCall,
  type SlackMethod,
  slackRequestBody,
  slackSignature,
} from '../../functions/channels/slack-api.ts';
import type { CheckpointStore, PauseView } from '../../functions/checkpoints/checkpoint-store.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { NotAnApproverError, UnknownPersonError } from '../../functions/errors.ts';
import type { UseCaseDeps } from '../../functions/resume/resume.ts';
import { approvalTranscript } from '../../functions/testing/index.ts';
import { testTelemetry } from '../handlers/telemetry.ts';
import { type SlackStandIn, startSlackStandIn } from './slack-stand-in.ts';

/**
 * Slack's Web API as its method reference says each method takes its arguments: the client sends the read methods
 * form-encoded and the write methods as JSON, and the stand-in reads them as Slack does, so a read method sent JSON
 * sees no arguments here as it does on Slack.
 */

const TEAM = 'T0TEAM0API';
let slack: SlackStandIn;

beforeAll(async () => {
  slack = await startSlackStandIn(TEAM);
});

afterAll(async () => {
  await slack?.close();
});

async function raw(method: string, init: { type?: string; body: string }) {
  const response = await fetch(`${slack.url}${method}`, {
    method: 'POST',
    headers: { authorization: 'Bearer xoxb-test', ...(init.type === undefined ? {} : { 'content-type': init.type }) },
    // Bytes, not a string: fetch gives a string body a content type of its own.
    body: new TextEncoder().encode(init.body),
  });
  return (await response.json()) as { ok: boolean; error?: string };
}

describe('the Slack client', () => {
  it.each<[SlackMethod, string]>([
    ['users.info', 'application/x-www-form-urlencoded'],
    ['auth.test', 'application/x-www-form-urlencoded'],
    ['chat.postMessage', 'application/json'],
    ['chat.update', 'application/json'],
    ['chat.postEphemeral', 'application/json'],
    ['views.open', 'application/json'],
  ])('sends %s as %s', async (method, type) => {
    await createSlackCall('xoxb-test', { apiUrl: slack.url })(method, {
      channel: 'C0APPROVE1',
      ts: '1.000100',
      user: 'U0ALICE01',
      text: 'hello',
      trigger_id: 'trigger-1',
      view: { type: 'modal' },
    }).catch(() => undefined);
    expect(slack.of(method).at(-1)?.contentType).toBe(type);
  });

  it('reads a user through users.info with the user form-encoded', async () => {
    const call = createSlackCall('xoxb-test', { apiUrl: slack.url });
    const answer = await call<{ user: { profile: { email: string } } }>('users.info', { user: 'U0ALICE01' });
    expect(answer.user.profile.email).toBe('alice@example.com');
    expect(slack.of('users.info').at(-1)?.body).toEqual({ user: 'U0ALICE01' });
  });

  it('form-encodes an object argument as its JSON text', () => {
    expect(slackRequestBody('users.info', { user: 'U1', include_locale: true, view: { a: 1 } })).toEqual({
      type: 'application/x-www-form-urlencoded',
      body: 'user=U1&include_locale=true&view=%7B%22a%22%3A1%7D',
    });
  });
});

describe('the Slack stand-in reads arguments as Slack does', () => {
  it('sees no arguments in a JSON body on users.info, and answers user_not_found', async () => {
    expect(await raw('users.info', { type: 'application/json', body: '{"user":"U0ALICE01"}' })).toEqual({
      ok: false,
      error: 'user_not_found',
    });
    expect(slack.of('users.info').at(-1)?.body).toEqual({});
  });

  it('reads the same user form-encoded, or as a query parameter', async () => {
    expect(
      await raw('users.info', { type: 'application/x-www-form-urlencoded', body: 'user=U0ALICE01' }),
    ).toMatchObject({ ok: true });
    const query = await fetch(`${slack.url}users.info?user=U0BOB0002`, { headers: { authorization: 'Bearer x' } });
    expect(await query.json()).toMatchObject({ ok: true, user: { id: 'U0BOB0002' } });
  });

  it('reads a JSON body on a write method that accepts one', async () => {
    expect(
      await raw('chat.postMessage', { type: 'application/json', body: '{"channel":"C0APPROVE1","text":"hi"}' }),
    ).toMatchObject({ ok: true, channel: 'C0APPROVE1' });
  });

  it('refuses a body without a content type, or of one Slack does not read', async () => {
    expect(await raw('chat.postMessage', { body: 'channel=C1&text=hi' })).toEqual({
      ok: false,
      error: 'missing_post_type',
    });
    expect(await raw('chat.postMessage', { type: 'text/xml', body: '<channel/>' })).toEqual({
      ok: false,
      error: 'invalid_post_type',
    });
  });

  it('refuses a call without a token', async () => {
    const response = await fetch(`${slack.url}auth.test`, { method: 'POST' });
    expect(await response.json()).toEqual({ ok: false, error: 'not_authed' });
  });
});

describe('a click by a user users.info cannot describe', () => {
  const SECRET = 'slack-signing-secret-for-api-tests';
  const setup = () => {
    const warn = vi.fn();
    const logger = { debug: vi.fn(), info: vi.fn(), warn, error: vi.fn() };
    const channel = createSlackChannel({
      useCases: { logger } as unknown as UseCaseDeps,
      call: createSlackCall('xoxb-test', { apiUrl: slack.url }),
      log: createMemoryDeliveryLog(),
      signingSecret: SECRET,
      defaultChannels: [],
    });
    return { warn, channel };
  };
  const signed = (payload: object) => {
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const timestamp = String(Math.floor(Date.now() / 1000));
    return {
      headers: { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(SECRET, timestamp, body) },
      body,
    };
  };

  it('is answered 200, told by an ephemeral that they could not be identified, and logged', async () => {
    const { warn, channel } = setup();
    const ephemerals = slack.of('chat.postEphemeral').length;
    const answer = await channel.interactions(
      signed({
        type: 'block_actions',
        team: { id: TEAM },
        user: { id: 'U0NOBODY1', team_id: TEAM },
        container: { type: 'message', channel_id: 'C0APPROVE1', message_ts: '1.000100' },
        actions: [{ action_id: 'handback.approve', value: '{"a":0}' }],
      }),
    );
    expect(answer).toEqual({ status: 200 });
    expect(
      slack
        .of('chat.postEphemeral')
        .slice(ephemerals)
        .map((call) => call.body),
    ).toEqual([{ channel: 'C0APPROVE1', user: 'U0NOBODY1', text: expect.stringContaining('could not identify you') }]);
    expect(warn).toHaveBeenCalledWith('Slack click not recorded: the clicker could not be identified', {
      team: TEAM,
      user: 'U0NOBODY1',
      method: 'users.info',
      slackError: 'user_not_found',
    });
  });

  it('gets the modal’s inline error when submitting one', async () => {
    const { channel } = setup();
    const answer = await channel.interactions(
      signed({
        type: 'view_submission',
        team: { id: TEAM },
        user: { id: 'U0NOBODY1', team_id: TEAM },
        view: {
          callback_id: 'handback.reject',
          private_metadata: '{}',
          blocks: [{ type: 'input', block_id: 'reason' }],
        },
      }),
    );
    expect(answer).toEqual({
      status: 200,
      body: { response_action: 'errors', errors: { reason: expect.stringContaining('could not identify you') } },
    });
  });
});

describe('clicks the Slack channel cannot take', () => {
  const SECRET = 'slack-signing-secret-for-click-tests';
  const REF = { channel: 'C0APPROVE1', ts: '1700000999.000100' };
  const PAUSE = { tenant: 't1', runId: 'order-9', interruptId: 'p9' };
  const setup = async (store: Partial<CheckpointStore> = {}) => {
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const log = createMemoryDeliveryLog();
    await log.index(REF, PAUSE);
    const channel = createSlackChannel({
      useCases: { logger, metrics: { addMetric: vi.fn() }, store } as unknown as UseCaseDeps,
      call: createSlackCall('xoxb-test', { apiUrl: slack.url }),
      log,
      signingSecret: SECRET,
      defaultChannels: [],
    });
    return { logger, channel };
  };
  const signed = (payload: object) => {
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const timestamp = String(Math.floor(Date.now() / 1000));
    return {
      headers: { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(SECRET, timestamp, body) },
      body,
    };
  };
  const click = (over: { team?: string; ts?: string }) => ({
    type: 'block_actions',
    team: { id: over.team ?? TEAM },
    user: { id: 'U0ALICE01', team_id: over.team ?? TEAM },
    container: { type: 'message', channel_id: REF.channel, message_ts: over.ts ?? REF.ts },
    actions: [{ action_id: 'handback.approve', value: '{"a":0}' }],
  });

  it('logs a click from another workspace, and asks Slack nothing about its user', async () => {
    const { logger, channel } = await setup();
    const lookups = slack.of('users.info').length;
    expect(await channel.interactions(signed(click({ team: 'T0OTHER001' })))).toEqual({ status: 200 });
    expect(logger.warn).toHaveBeenCalledWith('Slack interaction ignored: not from the bot token’s workspace', {
      team: 'T0OTHER001',
      user: 'U0ALICE01',
      type: 'block_actions',
    });
    expect(slack.of('users.info')).toHaveLength(lookups);
  });

  it('logs a click on a message this deployment did not post, and reads no pause', async () => {
    const getPause = vi.fn();
    const { logger, channel } = await setup({ getPause });
    expect(await channel.interactions(signed(click({ ts: '1700000998.000100' })))).toEqual({ status: 200 });
    expect(logger.warn).toHaveBeenCalledWith('Slack click ignored: not on a message this deployment posted', {
      channel: REF.channel,
      ts: '1700000998.000100',
      user: 'U0ALICE01',
    });
    expect(getPause).not.toHaveBeenCalled();
  });

  it('tells a clicker who is not an approver so, without naming the approvers’ addresses', async () => {
    const { channel } = await setup({
      getPause: async () =>
        ({
          ...PAUSE,
          status: 'paused',
          asks: [{ toolCallId: 'call_refund', name: 'refund_order', args: {}, kind: 'approval', prompt: null }],
          decided: [],
          pending: ['call_refund'],
        }) as unknown as PauseView,
      decide: async () => {
        throw new NotAnApproverError('order-9', 'p9', 'call_refund', 'its approvers are bob@example.com');
      },
    });
    const before = slack.of('chat.postEphemeral').length;
    expect(await channel.interactions(signed(click({})))).toEqual({ status: 200 });
    const texts = slack
      .of('chat.postEphemeral')
      .slice(before)
      .map((call) => String(call.body.text));
    expect(texts).toEqual(['Not recorded: you are not one of the approvers of this ask.']);
    expect(texts.join()).not.toContain('bob@example.com');
  });

  it('tells a clicker the directory does not know as an active person what that means (§20)', async () => {
    const { channel } = await setup({
      getPause: async () =>
        ({
          ...PAUSE,
          status: 'paused',
          asks: [{ toolCallId: 'call_refund', name: 'refund_order', args: {}, kind: 'approval', prompt: null }],
          decided: [],
          pending: ['call_refund'],
        }) as unknown as PauseView,
      decide: async () => {
        throw new UnknownPersonError('order-9', 'p9', 'call_refund', 'the directory says bob is not active');
      },
    });
    const before = slack.of('chat.postEphemeral').length;
    expect(await channel.interactions(signed(click({})))).toEqual({ status: 200 });
    const texts = slack
      .of('chat.postEphemeral')
      .slice(before)
      .map((call) => String(call.body.text));
    expect(texts).toEqual([
      'Not recorded: Handback’s directory does not list your Slack user as an active person, and this ask needs one.',
    ]);
  });
});

describe('the answer to a click', () => {
  const SECRET = 'slack-signing-secret-for-ack-tests';
  const REF = { channel: 'C0APPROVE1', ts: '1700000777.000100' };

  it('answers a click once it is decided, with no chat.update on the way', async () => {
    const store = createMemoryCheckpointStore();
    const { interruptId } = await store.pause({
      tenant: 't1',
      runId: 'order-ack',
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
    });
    const pause = { tenant: 't1', runId: 'order-ack', interruptId };
    const log = createMemoryDeliveryLog();
    await log.index(REF, pause);
    const slackCall = createSlackCall('xoxb-test', { apiUrl: slack.url });
    // A chat.update that never answers: were the answer to wait on one, it would never come.
    let updateStarted: () => void = () => undefined;
    const updating = new Promise<'waited on chat.update'>((resolve) => {
      updateStarted = () => resolve('waited on chat.update');
    });
    const call: SlackCall = (method, args) => {
      if (method !== 'chat.update') return slackCall(method, args);
      updateStarted();
      return new Promise(() => undefined);
    };
    const channel = createSlackChannel({
      useCases: { ...testTelemetry(), store, handoff: { deliver: async () => {} } } as unknown as UseCaseDeps,
      call,
      log,
      signingSecret: SECRET,
      defaultChannels: [],
    });
    const body = new URLSearchParams({
      payload: JSON.stringify({
        type: 'block_actions',
        team: { id: TEAM },
        user: { id: 'U0ALICE01', team_id: TEAM },
        container: { type: 'message', channel_id: REF.channel, message_ts: REF.ts },
        actions: [{ action_id: 'handback.approve', value: '{"a":0}' }],
      }),
    }).toString();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers = {
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': slackSignature(SECRET, timestamp, body),
    };
    expect(await Promise.race([channel.interactions({ headers, body }), updating])).toEqual({ status: 200 });
    expect((await store.getPause(pause)).asks[0]?.decision).toMatchObject({
      decision: 'approve',
      by: { subject: `slack:${TEAM}:U0ALICE01`, via: 'slack' },
    });
  });
});
