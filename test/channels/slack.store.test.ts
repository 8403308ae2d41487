import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { slackSignature } from '../../functions/channels/slack-api.ts';
import { SLACK_LIMITS } from '../../functions/channels/slack-message.ts';
import { createTable, EMBEDDED_CLIENT_CONFIG } from '../../functions/local/embedded-dynamodb.ts';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { type SlackStandIn, startSlackStandIn } from './slack-stand-in.ts';

const TEAM = 'T0TEAM0001';
const SECRET = 'slack-signing-secret-for-tests';
const CHANNEL = 'C0APPROVE1';

let slack: SlackStandIn;
let service: LocalService;

beforeAll(async () => {
  slack = await startSlackStandIn(TEAM);
  const tableName = `handback-slack-${Date.now()}`;
  const endpoint = inject('dynamodbEndpoint');
  const raw = new DynamoDBClient({ endpoint, ...EMBEDDED_CLIENT_CONFIG });
  await createTable(raw, tableName);
  raw.destroy();
  service = await startLocalService({
    PORT: '0',
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME: tableName,
    LOG_LEVEL: 'ERROR',
    HANDBACK_SWEEP_INTERVAL_MS: '200',
    HANDBACK_SLACK_BOT_TOKEN: 'xoxb-test-token',
    HANDBACK_SLACK_SIGNING_SECRET: SECRET,
    HANDBACK_SLACK_API_URL: slack.url,
  });
});

afterAll(async () => {
  await service?.close();
  await slack?.close();
});

function transcript(calls: Array<{ id: string; name: string; args: object }>) {
  return [
    { role: 'user', content: 'Please refund order-42, it arrived broken.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      })),
    },
  ];
}

async function api(path: string, method: string, body?: unknown) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** POSTs an interaction payload signed as Slack signs it (or as told). */
async function interact(
  payload: object,
  options: { timestamp?: number; secret?: string; raw?: { body: string; headers: Record<string, string> } } = {},
) {
  const body = options.raw?.body ?? new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const headers = options.raw?.headers ?? {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': slackSignature(options.secret ?? SECRET, timestamp, body),
  };
  const response = await fetch(`${service.url}/channels/slack/interactions`, { method: 'POST', headers, body });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: text === '' ? undefined : JSON.parse(text),
    headers,
    sent: body,
  };
}

async function until<T>(probe: () => T | undefined, what: string, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/** Pauses a run with notify to CHANNEL and waits for its message. */
async function pauseWithMessage(
  runId: string,
  asks: object[],
  calls: Array<{ id: string; name: string; args: object }>,
  extra: object = {},
) {
  const paused = await api(`/runs/${runId}/pauses`, 'POST', {
    format: 'openai-chat',
    messages: transcript(calls),
    asks,
    notify: [{ channel: 'slack', to: CHANNEL }],
    ...extra,
  });
  expect(paused.status).toBe(201);
  const post = await until(
    () =>
      slack
        .of('chat.postMessage')
        .find((call) => JSON.stringify(call.body).includes(runId) && call.body.thread_ts === undefined),
    `the message of ${runId}`,
  );
  const message = { channel: CHANNEL, ts: await tsOf(post.body) };
  return { interruptId: paused.body.interruptId as string, post, message };
}

async function tsOf(body: Record<string, unknown>): Promise<string> {
  const index = slack.calls.findIndex((call) => call.body === body);
  // The stand-in numbers its posts in order: the nth postMessage got ts 1700000000+n.
  const n = slack.calls.slice(0, index + 1).filter((call) => call.method === 'chat.postMessage').length;
  return `${1_700_000_000 + n}.000100`;
}

function click(
  message: { channel: string; ts: string },
  actionId: string,
  value: object,
  user = 'U0ALICE01',
  team = TEAM,
) {
  return {
    type: 'block_actions',
    team: { id: team },
    user: { id: user, team_id: team },
    trigger_id: `trigger-${Math.random()}`,
    container: { type: 'message', channel_id: message.channel, message_ts: message.ts },
    actions: [{ action_id: actionId, value: JSON.stringify(value), block_id: 'ask:0' }],
  };
}

function submission(
  view: { callback_id: string; private_metadata: string; blocks: Array<{ type: string; block_id?: string }> },
  values: Record<string, string>,
  user = 'U0ALICE01',
) {
  return {
    type: 'view_submission',
    team: { id: TEAM },
    user: { id: user, team_id: TEAM },
    view: {
      ...view,
      state: {
        values: Object.fromEntries(
          Object.entries(values).map(([block, value]) => [block, { value: { type: 'plain_text_input', value } }]),
        ),
      },
    },
  };
}

function lastUpdate(ts: string) {
  return slack
    .of('chat.update')
    .filter((call) => call.body.ts === ts)
    .at(-1);
}

function everyText(blocks: KnownBlock[]): string {
  return JSON.stringify(blocks);
}

const REFUND = { id: 'call_refund', name: 'refund_order', args: { orderId: 'order-42', amount: 30 } };
const EMAIL = { id: 'call_email', name: 'email_customer', args: { to: 'c@example.com', body: 'Sorry!' } };

describe('the Slack channel through the local service', () => {
  it('posts the pause as one Block Kit message within Slack’s limits, with Approve, Edit… and Reject…', async () => {
    const { post } = await pauseWithMessage(
      'order-42',
      [
        { toolCallId: 'call_refund', kind: 'approval', prompt: 'Refund this order?' },
        { toolCallId: 'call_email', kind: 'approval', prompt: 'Send this email?', editable: false },
      ],
      [REFUND, EMAIL],
    );
    expect(post.authorization).toBe('Bearer xoxb-test-token');
    const blocks = post.body.blocks as KnownBlock[];
    expect(post.body).toMatchObject({
      channel: CHANNEL,
      text: 'Approval needed: refund_order, email_customer — order-42',
    });
    expect(blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'Approval needed: refund_order, email_customer — order-42' },
    });
    expect(everyText(blocks)).toContain('Please refund order-42, it arrived broken.');
    expect(everyText(blocks)).toContain('```{\\n  \\"orderId\\": \\"order-42\\",\\n  \\"amount\\": 30\\n}```');
    const actions = blocks.filter((block) => block.type === 'actions');
    expect(actions.map((block) => block.elements.map((e) => (e.type === 'button' ? e.text.text : '')))).toEqual([
      ['Approve', 'Edit…', 'Reject…'],
      ['Approve', 'Reject…'],
    ]);
    expect(blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
    for (const block of blocks) {
      if (block.type === 'section') expect(block.text?.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
      if (block.type === 'actions') {
        expect(block.elements.length).toBeLessThanOrEqual(SLACK_LIMITS.actionsElements);
        for (const element of block.elements) {
          if (element.type !== 'button') continue;
          expect(element.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.buttonText);
          expect(element.value?.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.buttonValue);
        }
      }
    }
  });

  it('cuts arguments past a section’s 3,000 characters with “…”', async () => {
    const big = { id: 'call_big', name: 'write_note', args: { text: 'x'.repeat(5000) } };
    const { post } = await pauseWithMessage('big-args', [{ toolCallId: 'call_big', kind: 'approval' }], [big]);
    const section = (post.body.blocks as KnownBlock[]).find(
      (block) => block.type === 'section' && block.text?.text.includes('write_note'),
    );
    expect(section?.type === 'section' && section.text?.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    expect(section?.type === 'section' && section.text?.text).toContain('…```');
  });

  it('records an Approve click as the Slack user, and updates the message with who decided and without that ask’s buttons', async () => {
    const { interruptId, message } = await pauseWithMessage(
      'approve-1',
      [
        { toolCallId: 'call_refund', kind: 'approval' },
        { toolCallId: 'call_email', kind: 'approval' },
      ],
      [REFUND, EMAIL],
    );
    const answer = await interact(click(message, 'handback.approve', { a: 0 }));
    expect(answer.status).toBe(200);
    const view = await api(`/runs/approve-1/pauses/${interruptId}`, 'GET');
    expect(view.body).toMatchObject({ decided: ['call_refund'], pending: ['call_email'] });
    expect(view.body.asks[0].decision).toEqual({
      decision: 'approve',
      by: expect.objectContaining({
        kind: 'person',
        subject: expect.stringMatching(/^slack:T0TEAM0001:/),
        via: 'slack',
      }),
    });
    expect(slack.of('users.info').at(-1)?.body).toEqual({ user: 'U0ALICE01' });
    const update = await until(() => lastUpdate(message.ts), 'the update');
    const blocks = update.body.blocks as KnownBlock[];
    expect(everyText(blocks)).toContain('Approved by Alice Approver');
    expect(blocks.filter((block) => block.type === 'actions').map((block) => block.block_id)).toEqual(['ask:1']);
  });

  it('tells a person by an ephemeral message that an ask is already decided, and records nothing more', async () => {
    const { interruptId, message } = await pauseWithMessage(
      'double-1',
      [
        { toolCallId: 'call_refund', kind: 'approval' },
        { toolCallId: 'call_email', kind: 'approval' },
      ],
      [REFUND, EMAIL],
    );
    expect((await interact(click(message, 'handback.approve', { a: 0 }))).status).toBe(200);
    const before = slack.of('chat.postEphemeral').length;
    expect((await interact(click(message, 'handback.reject', { a: 0 }, 'U0BOB0002'))).status).toBe(200);
    const ephemeral = slack.of('chat.postEphemeral').slice(before);
    expect(ephemeral.map((call) => call.body)).toEqual([
      { channel: CHANNEL, user: 'U0BOB0002', text: 'Not recorded: This ask is already decided.' },
    ]);
    const view = await api(`/runs/double-1/pauses/${interruptId}`, 'GET');
    expect(view.body.asks[0].decision).toEqual({
      decision: 'approve',
      by: expect.objectContaining({
        kind: 'person',
        subject: expect.stringMatching(/^slack:T0TEAM0001:/),
        via: 'slack',
      }),
    });
  });

  it('rejects with a reason through the modal, and shows the closed pause’s outcome without buttons', async () => {
    const { interruptId, message } = await pauseWithMessage(
      'reject-1',
      [{ toolCallId: 'call_refund', kind: 'approval' }],
      [REFUND],
    );
    const opened = slack.of('views.open').length;
    const payload = click(message, 'handback.reject', { a: 0 });
    await interact(payload);
    const open = slack.of('views.open')[opened];
    expect(open?.body.trigger_id).toBe(payload.trigger_id);
    const view = open?.body.view as {
      callback_id: string;
      private_metadata: string;
      blocks: Array<{ type: string; block_id?: string }>;
    };
    expect(view.callback_id).toBe('handback.reject');
    const submitted = await interact(submission(view, { reason: 'Not this one.' }));
    expect(submitted).toMatchObject({ status: 200, body: undefined });
    const paused = await api(`/runs/reject-1/pauses/${interruptId}`, 'GET');
    expect(paused.body).toMatchObject({ status: 'resumed', outcome: 'resumed' });
    expect(paused.body.asks[0].decision).toEqual({
      decision: 'reject',
      reason: 'Not this one.',
      by: expect.objectContaining({
        kind: 'person',
        subject: expect.stringMatching(/^slack:T0TEAM0001:/),
        via: 'slack',
      }),
    });
    await settle();
    const blocks = lastUpdate(message.ts)?.body.blocks as KnownBlock[];
    expect(everyText(blocks)).toContain('*Resumed*');
    expect(blocks.some((block) => block.type === 'actions')).toBe(false);
  });

  it('answers a modal edit that fails its schema inline and records nothing, then records the edit that passes', async () => {
    const { interruptId, message } = await pauseWithMessage(
      'edit-1',
      [
        {
          toolCallId: 'call_refund',
          kind: 'approval',
          argsSchema: {
            type: 'object',
            properties: { orderId: { type: 'string' }, amount: { type: 'number', maximum: 50 } },
            required: ['orderId', 'amount'],
          },
        },
      ],
      [REFUND],
    );
    const opened = slack.of('views.open').length;
    await interact(click(message, 'handback.edit', { a: 0 }));
    const view = slack.of('views.open')[opened]?.body.view as {
      callback_id: string;
      private_metadata: string;
      blocks: Array<{ type: string; block_id?: string; element?: { initial_value?: string } }>;
    };
    expect(view.blocks.find((block) => block.block_id === 'args')?.element?.initial_value).toBe(
      JSON.stringify(REFUND.args, null, 2),
    );
    const failed = await interact(submission(view, { args: '{"orderId":"order-42","amount":100}' }));
    expect(failed.status).toBe(200);
    expect(failed.body.response_action).toBe('errors');
    expect(Object.keys(failed.body.errors)).toEqual(['args']);
    expect(failed.body.errors.args).toContain('/amount');
    expect((await api(`/runs/edit-1/pauses/${interruptId}`, 'GET')).body.decided).toEqual([]);
    const passed = await interact(submission(view, { args: '{"orderId":"order-42","amount":20}' }));
    expect(passed).toMatchObject({ status: 200, body: undefined });
    const paused = await api(`/runs/edit-1/pauses/${interruptId}`, 'GET');
    expect(paused.body.asks[0].decision).toEqual({
      decision: 'edit',
      args: { orderId: 'order-42', amount: 20 },
      by: expect.objectContaining({
        kind: 'person',
        subject: expect.stringMatching(/^slack:T0TEAM0001:/),
        via: 'slack',
      }),
    });
  });

  it('offers one button per enum value and records the one clicked as the answer', async () => {
    const pick = { id: 'call_pick', name: 'pick_reason', args: {} };
    const { interruptId, post, message } = await pauseWithMessage(
      'enum-1',
      [
        {
          toolCallId: 'call_pick',
          kind: 'answer',
          prompt: 'Why?',
          answerSchema: { enum: ['broken', 'late', 'wrong item'] },
        },
      ],
      [pick],
    );
    const actions = (post.body.blocks as KnownBlock[]).find((block) => block.type === 'actions');
    expect(
      actions?.type === 'actions' && actions.elements.map((e) => (e.type === 'button' ? e.text.text : '')),
    ).toEqual(['broken', 'late', 'wrong item']);
    await interact(click(message, 'handback.choose:1', { a: 0, v: 1 }));
    const paused = await api(`/runs/enum-1/pauses/${interruptId}`, 'GET');
    expect(paused.body).toMatchObject({ status: 'resumed' });
    expect(paused.body.asks[0].decision).toEqual({
      answer: 'late',
      by: expect.objectContaining({
        kind: 'person',
        subject: expect.stringMatching(/^slack:T0TEAM0001:/),
        via: 'slack',
      }),
    });
  });

  it('tells a clicker users.info cannot describe that they could not be identified, answers 200 and records nothing', async () => {
    const { interruptId, message } = await pauseWithMessage(
      'unknown-user-1',
      [{ toolCallId: 'call_refund', kind: 'approval' }],
      [REFUND],
    );
    const before = slack.of('chat.postEphemeral').length;
    const answer = await interact(click(message, 'handback.approve', { a: 0 }, 'U0NOBODY1'));
    expect(answer.status).toBe(200);
    expect(slack.of('users.info').at(-1)?.body).toEqual({ user: 'U0NOBODY1' });
    expect(
      slack
        .of('chat.postEphemeral')
        .slice(before)
        .map((call) => call.body),
    ).toEqual([{ channel: CHANNEL, user: 'U0NOBODY1', text: expect.stringContaining('could not identify you') }]);
    const view = await api(`/runs/unknown-user-1/pauses/${interruptId}`, 'GET');
    expect(view.body).toMatchObject({ status: 'paused', decided: [], pending: ['call_refund'] });
    expect(view.body.asks[0].decision).toBeUndefined();
  });

  it('tells a person who clicks on a closed pause that it is closed, and records nothing', async () => {
    const { interruptId, message } = await pauseWithMessage(
      'closed-1',
      [{ toolCallId: 'call_refund', kind: 'approval' }],
      [REFUND],
    );
    expect(
      (await api(`/runs/closed-1/pauses/${interruptId}/cancel`, 'POST', { reason: 'changed my mind' })).status,
    ).toBe(200);
    const before = slack.of('chat.postEphemeral').length;
    await interact(click(message, 'handback.approve', { a: 0 }));
    expect(
      slack
        .of('chat.postEphemeral')
        .slice(before)
        .map((call) => call.body.text),
    ).toEqual(['Not recorded: This pause is cancelled: nothing more can be decided.']);
    expect((await api(`/runs/closed-1/pauses/${interruptId}`, 'GET')).body.asks[0].decision).toBeUndefined();
  });

  describe.each([
    { what: 'a bad signature', runId: 'bad-signature', options: { secret: 'another-secret' } },
    {
      what: 'a stale timestamp',
      runId: 'stale-timestamp',
      options: { timestamp: Math.floor(Date.now() / 1000) - 301 },
    },
  ])('a request with $what', ({ runId, options }) => {
    it('is 401 application/problem+json and records nothing', async () => {
      const { interruptId, message } = await pauseWithMessage(
        runId,
        [{ toolCallId: 'call_refund', kind: 'approval' }],
        [REFUND],
      );
      const answer = await interact(click(message, 'handback.approve', { a: 0 }), options);
      expect(answer.status).toBe(401);
      expect(answer.type).toBe('application/problem+json');
      expect(answer.body).toMatchObject({
        status: 401,
        code: 'unauthorized',
        type: 'urn:handback:problem:unauthorized',
      });
      expect((await api(`/runs/${runId}/pauses/${interruptId}`, 'GET')).body.decided).toEqual([]);
    });
  });

  it('takes a replayed request once: the second changes nothing', async () => {
    const { interruptId, message } = await pauseWithMessage(
      'replay-1',
      [
        { toolCallId: 'call_refund', kind: 'approval' },
        { toolCallId: 'call_email', kind: 'approval' },
      ],
      [REFUND, EMAIL],
    );
    const first = await interact(click(message, 'handback.approve', { a: 0 }));
    // The decision's own event updates the message; the replay comes after it.
    await until(() => lastUpdate(message.ts), 'the update');
    await settle();
    const ephemerals = slack.of('chat.postEphemeral').length;
    const calls = slack.calls.length;
    const again = await interact({}, { raw: { body: first.sent, headers: first.headers } });
    expect(again.status).toBe(200);
    expect(slack.calls.length).toBe(calls);
    expect(slack.of('chat.postEphemeral').length).toBe(ephemerals);
    expect((await api(`/runs/replay-1/pauses/${interruptId}`, 'GET')).body.decided).toEqual(['call_refund']);
  });

  it('records nothing for a click from another workspace', async () => {
    const { interruptId, message } = await pauseWithMessage(
      'team-1',
      [{ toolCallId: 'call_refund', kind: 'approval' }],
      [REFUND],
    );
    const calls = slack.of('users.info').length;
    expect((await interact(click(message, 'handback.approve', { a: 0 }, 'U0ALICE01', 'T0OTHER001'))).status).toBe(200);
    expect(slack.of('users.info').length).toBe(calls);
    expect((await api(`/runs/team-1/pauses/${interruptId}`, 'GET')).body.decided).toEqual([]);
  });

  it('posts each pause’s message once whatever events follow, and replies in its thread for the reminder', async () => {
    const { message } = await pauseWithMessage(
      'remind-1',
      [{ toolCallId: 'call_refund', kind: 'approval' }],
      [REFUND],
      {
        expiresInSeconds: 4,
        remindBeforeSeconds: 3,
      },
    );
    const reply = await until(
      () => slack.of('chat.postMessage').find((call) => call.body.thread_ts === message.ts),
      'the reminder',
    );
    expect(reply.body).toMatchObject({ channel: CHANNEL, thread_ts: message.ts });
    expect(String(reply.body.text)).toMatch(/^Reminder: this still waits for a decision/);
    await until(
      () =>
        lastUpdate(message.ts) && everyText(lastUpdate(message.ts)?.body.blocks as KnownBlock[]).includes('*Expired*'),
      'the expiry',
      8_000,
    );
    const posts = slack
      .of('chat.postMessage')
      .filter((call) => JSON.stringify(call.body).includes('remind-1') && call.body.thread_ts === undefined);
    expect(posts).toHaveLength(1);
    expect(slack.of('chat.postMessage').filter((call) => call.body.thread_ts === message.ts)).toHaveLength(1);
  });

  it('refuses a pause that names a channel this deployment has not configured', async () => {
    const answer = await api('/runs/no-email/pauses', 'POST', {
      format: 'openai-chat',
      messages: transcript([REFUND]),
      asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
      notify: [{ channel: 'email', to: 'ops@example.com' }],
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('/notify/0/channel');
    expect(
      (
        await api('/runs/no-email/pauses', 'POST', {
          format: 'openai-chat',
          messages: transcript([REFUND]),
          asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
          notify: [{ channel: 'slack', to: 'general' }],
        })
      ).status,
    ).toBe(400);
  });
});
