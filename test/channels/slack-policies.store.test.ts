import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { slackSignature } from '../../functions/channels/slack-api.ts';
import { createTable, EMBEDDED_CLIENT_CONFIG } from '../../functions/local/embedded-dynamodb.ts';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { policyTranscript } from '../../functions/testing/index.ts';
import { type SlackStandIn, startSlackStandIn } from './slack-stand-in.ts';

/**
 * A person's edit in a Slack modal is judged by the policies like any other (§19): the local service with a policy
 * file and the Slack channel, against the strict Slack stand-in. An edit past a forbid, or to an amount only finance
 * may approve, is refused beside the modal's field and records nothing; the control, an edit the policies leave to
 * anyone, is recorded with what the policies said of it.
 */

const TEAM = 'T0TEAM0001';
const SECRET = 'slack-signing-secret-for-tests';
const CHANNEL = 'C0APPROVE1';

let slack: SlackStandIn;
let service: LocalService;
/** The same, with a policy that raises the need without naming a group: an edit's vote leaves the ask waiting. */
let quorum: LocalService;

beforeAll(async () => {
  slack = await startSlackStandIn(TEAM);
  const tableName = `handback-slack-policies-${Date.now()}`;
  const endpoint = inject('dynamodbEndpoint');
  const raw = new DynamoDBClient({ endpoint, ...EMBEDDED_CLIENT_CONFIG });
  await createTable(raw, tableName);
  raw.destroy();
  const settings = {
    PORT: '0',
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME: tableName,
    LOG_LEVEL: 'ERROR',
    HANDBACK_SLACK_BOT_TOKEN: 'xoxb-test-token',
    HANDBACK_SLACK_SIGNING_SECRET: SECRET,
    HANDBACK_SLACK_API_URL: slack.url,
    HANDBACK_POLICIES: 'test/fixtures/policies/edits.cedar',
    HANDBACK_POLICY_SCHEMA: 'test/fixtures/policies/edits.cedarschema',
    HANDBACK_POLICY_VERSION: 'refunds-7',
  };
  service = await startLocalService(settings);
  quorum = await startLocalService({ ...settings, HANDBACK_POLICIES: 'test/fixtures/policies/edit-quorum.cedar' });
});

afterAll(async () => {
  await service?.close();
  await quorum?.close();
  await slack?.close();
});

async function api(path: string, method: string, body?: unknown, on = service) {
  const response = await fetch(`${on.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** POSTs an interaction payload signed as Slack signs it. */
async function interact(payload: object, on = service) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(Math.floor(Date.now() / 1000));
  const response = await fetch(`${on.url}/channels/slack/interactions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': slackSignature(SECRET, timestamp, body),
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function until<T>(probe: () => T | undefined, what: string, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

type View = { callback_id: string; private_metadata: string; blocks: Array<{ type: string; block_id?: string }> };

/** Pauses a refund of `args` with its message in CHANNEL, and opens its Edit… modal as Alice. */
async function editModal(runId: string, args: object, on = service): Promise<{ interruptId: string; view: View }> {
  const paused = await api(
    `/runs/${runId}/pauses`,
    'POST',
    {
      format: 'openai-chat',
      messages: policyTranscript([['call_refund', 'refund_order', args]]),
      asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
      notify: [{ channel: 'slack', to: CHANNEL }],
    },
    on,
  );
  expect(paused.status).toBe(201);
  await until(
    () => slack.of('chat.postMessage').find((call) => JSON.stringify(call.body).includes(runId)),
    `the message of ${runId}`,
  );
  // The stand-in numbers its posts in order: the nth postMessage got ts 1700000000+n.
  const n = slack.of('chat.postMessage').findIndex((call) => JSON.stringify(call.body).includes(runId)) + 1;
  const opened = slack.of('views.open').length;
  await interact(
    {
      type: 'block_actions',
      team: { id: TEAM },
      user: { id: 'U0ALICE01', team_id: TEAM },
      trigger_id: `trigger-${runId}`,
      container: { type: 'message', channel_id: CHANNEL, message_ts: `${1_700_000_000 + n}.000100` },
      actions: [{ action_id: 'handback.edit', value: JSON.stringify({ a: 0 }), block_id: 'ask:0' }],
    },
    on,
  );
  const view = await until(() => slack.of('views.open')[opened]?.body.view as View | undefined, 'the edit modal');
  return { interruptId: paused.body.interruptId, view };
}

const submit = (view: View, args: object, on = service) =>
  interact(
    {
      type: 'view_submission',
      team: { id: TEAM },
      user: { id: 'U0ALICE01', team_id: TEAM },
      view: {
        ...view,
        state: { values: { args: { value: { type: 'plain_text_input', value: JSON.stringify(args) } } } },
      },
    },
    on,
  );

describe('a Slack modal edit, judged by the policies (§19)', () => {
  it('refuses an edit past a forbid, or one Alice may not approve, beside the field; records the control', async () => {
    // No amount: no policy applies, anyone may decide it.
    const { interruptId, view } = await editModal('slack-edit-1', { orderId: 'A-1' });
    const read = async () => (await api(`/runs/slack-edit-1/pauses/${interruptId}`, 'GET')).body;
    const before = await read();

    const forbidden = await submit(view, { orderId: 'A-1', amount: 40_000 });
    expect(forbidden).toMatchObject({ status: 200, body: { response_action: 'errors' } });
    expect(forbidden.body.errors.args).toContain('forbidden by policy never-over-10000');
    expect(forbidden.body.errors.args).toContain('Refunds over 10,000 go through the bank');

    // $5,000 needs two of finance: a Slack user carries no groups.
    const raised = await submit(view, { orderId: 'A-1', amount: 5000 });
    expect(raised.body).toEqual({
      response_action: 'errors',
      errors: { args: 'Not recorded: you are not one of the approvers of this ask.' },
    });
    expect(await read()).toEqual(before);

    const recorded = await submit(view, { orderId: 'A-1-b' });
    expect(recorded).toMatchObject({ status: 200, body: undefined });
    const after = await read();
    expect(after.status).toBe('resumed');
    expect(after.asks[0].decision).toMatchObject({
      decision: 'edit',
      args: { orderId: 'A-1-b' },
      by: { kind: 'person', subject: expect.stringMatching(/^slack:T0TEAM0001:/), via: 'slack' },
      policy: { outcome: 'ask', basis: 'default', version: 'refunds-7' },
    });
  });

  it('after an edit that leaves the ask waiting, the message says what the policies make of the edited arguments', async () => {
    const { interruptId, view } = await editModal('slack-edit-2', { orderId: 'A-2' }, quorum);
    const updates = slack.of('chat.update').length;
    expect(await submit(view, { orderId: 'A-2', amount: 500 }, quorum)).toMatchObject({ status: 200, body: undefined });
    const [ask] = (await api(`/runs/slack-edit-2/pauses/${interruptId}`, 'GET', undefined, quorum)).body.asks;
    expect(ask).toMatchObject({
      tally: { have: 1, need: 2 },
      policyNow: { outcome: 'ask', policyIds: ['two-over-100'], requires: { approvals: 2 } },
    });
    const update = await until(
      () =>
        slack
          .of('chat.update')
          .slice(updates)
          .find((call) => JSON.stringify(call.body).includes('slack-edit-2')),
      'the message updated after the vote',
    );
    const text = JSON.stringify(update.body);
    expect(text).toContain('_After the edit: policy two-over-100 requires 2 approvals._');
    expect(text).toContain("_Waits for people: the deployment's default (no policy matched)._");
  });
});
