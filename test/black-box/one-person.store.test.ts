import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KnownBlock } from '@slack/types';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackSignature } from '../../functions/channels/slack-api.ts';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { SCOPES } from '../../functions/vocabulary.ts';
import { type SlackStandIn, startSlackStandIn } from '../channels/slack-stand-in.ts';
import { type SmtpCatcher, startSmtpCatcher, recipientsOf as to, until } from '../channels/smtp-catcher.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { freePort, request } from './service.ts';

/**
 * One person at every door (§16, issue 29), black-box, as the issue's attacker tried it: the local service (what
 * `npm start` runs) with a real OIDC issuer's RS256 tokens (oidc-provider's keys, found by discovery), Slack (the
 * stand-in, signed clicks) and email (a real SMTP server) configured, recipient domains set. Each attack of the issue
 * is a case below; each refused attempt reads the pause back to prove nothing changed.
 */

const AUDIENCE = 'handback-api';
const TEAM = 'T0TEAM0001';
const SLACK_SECRET = 'slack-signing-secret-for-one-person';
const CHANNEL = 'C0APPROVE1';
const LINK_SECRET = 'an-answer-link-secret-of-at-least-32-bytes';

const table = useTestTable();
let issuer: string;
let closeIssuer: () => Promise<void>;
let rsa: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let slack: SlackStandIn;
let smtp: SmtpCatcher;
let service: LocalService;

beforeAll(async () => {
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  const pair = await generateKeyPair('RS256', { extractable: true });
  rsa = pair.privateKey;
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(pair.privateKey)), kid: 'rsa', alg: 'RS256', use: 'sig' }] },
  });
  const server = provider.listen(port);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  closeIssuer = () => new Promise((resolve) => server.close(() => resolve()));
  slack = await startSlackStandIn(TEAM);
  smtp = await startSmtpCatcher();
  service = await startLocalService(serviceEnv());
}, 60_000);

/** The local service's settings: the issuer, Slack, email and the recipient domains, and `extra`. */
function serviceEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: '0',
    DYNAMODB_ENDPOINT: table.endpoint,
    TABLE_NAME: table.tableName,
    LOG_LEVEL: 'ERROR',
    HANDBACK_SWEEP_INTERVAL_MS: '60000',
    HANDBACK_JWT_ISSUER: issuer,
    HANDBACK_JWT_AUDIENCE: AUDIENCE,
    HANDBACK_LINK_SECRET: LINK_SECRET,
    HANDBACK_SLACK_BOT_TOKEN: 'xoxb-test-token',
    HANDBACK_SLACK_SIGNING_SECRET: SLACK_SECRET,
    HANDBACK_SLACK_API_URL: slack.url,
    HANDBACK_SMTP_URL: smtp.url,
    HANDBACK_EMAIL_FROM: 'Handback <handback@example.com>',
    HANDBACK_RECIPIENT_DOMAINS: 'example.com',
    ...extra,
  };
}

afterAll(async () => {
  await service?.close();
  await slack?.close();
  await smtp?.close();
  await closeIssuer?.();
});

const now = () => Math.floor(Date.now() / 1000);
const BOTH = `openid ${SCOPES.agent} ${SCOPES.decide}`;

/** An RS256 token of the issuer, as an IdP issues them: `exp`, `aud`, `iss`, the tenant. */
function token(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ iss: issuer, aud: AUDIENCE, tenant: 'acme', iat: now(), exp: now() + 600, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'rsa' })
    .sign(rsa);
}

/** Alice and Bob are also Slack users (`SLACK_USERS`: the same emails); Mallory is not an approver of anything. */
const PEOPLE: Record<string, Record<string, unknown>> = {
  alice: { sub: 'u-alice', email: 'alice@example.com', email_verified: true, name: 'Alice', scope: BOTH },
  bob: { sub: 'u-bob', email: 'bob@example.com', email_verified: true, scope: BOTH },
  mallory: { sub: 'u-mallory', email: 'mallory@example.com', email_verified: true, scope: BOTH },
  cyd: { sub: 'u-cyd', email: 'cyd@example.com', email_verified: true, scope: BOTH },
  agent: { sub: 'agent-1', client_id: 'agent', scope: SCOPES.agent },
};

async function as(who: string | Record<string, unknown>): Promise<Record<string, string>> {
  const claims = typeof who === 'string' ? (PEOPLE[who] as Record<string, unknown>) : who;
  return { authorization: `Bearer ${await token(claims)}` };
}

const REFUND = { orderId: 'order-42', amount: 30 };

function transcript() {
  return [
    { role: 'user', content: 'Please refund order-42, it arrived broken.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_refund', type: 'function', function: { name: 'refund_order', arguments: JSON.stringify(REFUND) } },
      ],
    },
  ];
}

let runs = 0;
interface Paused {
  runId: string;
  interruptId: string;
  answerUrl?: string;
  path: string;
}

/** Pauses a run by `who`; `ask` and `extra` go into the body. */
async function pause(who: string, ask: object = {}, extra: object = {}): Promise<Paused> {
  const runId = `one-person-${Date.now()}-${++runs}`;
  const created = await request(
    `${service.url}/runs/${runId}/pauses`,
    'POST',
    {
      format: 'openai-chat',
      messages: transcript(),
      asks: [{ toolCallId: 'call_refund', kind: 'approval', ...ask }],
      ...extra,
    },
    await as(who),
  );
  expect([created.status, created.body.code]).toEqual([201, undefined]);
  const { interruptId, answerUrl } = created.body as { interruptId: string; answerUrl?: string };
  return {
    runId,
    interruptId,
    path: `${service.url}/runs/${runId}/pauses/${interruptId}`,
    ...(answerUrl ? { answerUrl } : {}),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: views are read as loose JSON in the tests
const read = async (key: Paused, who = 'bob'): Promise<any> =>
  (await request(key.path, 'GET', undefined, await as(who))).body;
/** What a refusal must leave as it was. */
const state = async (key: Paused) => {
  const view = await read(key);
  return { status: view.status, decided: view.decided, votes: view.asks[0].votes, tally: view.asks[0].tally };
};

const decide = async (who: string | Record<string, unknown>, key: Paused, decision: object) =>
  request(
    `${service.url}/runs/${key.runId}/resume`,
    'POST',
    { interruptId: key.interruptId, decisions: [{ toolCallId: 'call_refund', ...decision }] },
    await as(who),
  );
const throughLink = (url: string, decision: object) =>
  request(
    `${service.url}/links/resume`,
    'POST',
    { decisions: [{ toolCallId: 'call_refund', ...decision }] },
    { 'x-handback-link': url.slice(url.indexOf('#') + 1) },
  );
const makeLink = async (who: string, key: Paused, body: object) =>
  request(`${key.path}/links`, 'POST', body, await as(who));

/** The link in the mail `address` got about `runId` (the email channel's, or a delivered one). */
async function mailedLink(address: string, runId: string, skip = 0): Promise<string> {
  const mail = await until(
    () => smtp.mails.filter((m) => to(m).includes(address) && (m.text ?? '').includes(runId))[skip],
    `the mail to ${address} about ${runId}`,
    20_000,
  );
  return /Review and decide: (\S+)/.exec(mail.text ?? '')?.[1] as string;
}

/** The Slack message about `runId`, and its Approve button's value (which carries the shown argsHash). */
async function slackMessage(runId: string) {
  const post = await until(
    () =>
      slack
        .of('chat.postMessage')
        .find((call) => JSON.stringify(call.body).includes(runId) && call.body.thread_ts === undefined),
    `the Slack message of ${runId}`,
    20_000,
  );
  const index = slack.calls.indexOf(post);
  const n = slack.calls.slice(0, index + 1).filter((call) => call.method === 'chat.postMessage').length;
  const blocks = post.body.blocks as KnownBlock[];
  const actions = blocks.find((block) => block.type === 'actions') as {
    elements: Array<{ action_id: string; value: string }>;
  };
  const approve = actions.elements.find((element) => element.action_id === 'handback.approve')?.value as string;
  return { ts: `${1_700_000_000 + n}.000100`, approve };
}

/** POSTs an interaction payload to the service, signed as Slack signs it; the status and the parsed body. */
async function interact(payload: object) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(now());
  const response = await fetch(`${service.url}/channels/slack/interactions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': slackSignature(SLACK_SECRET, timestamp, body),
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** A click by Slack user `user` on the message `ts`: the status Slack's request is answered with. */
async function click(ts: string, actionId: string, value: string, user: string) {
  const answer = await interact({
    type: 'block_actions',
    team: { id: TEAM },
    user: { id: user, team_id: TEAM },
    trigger_id: `trigger-${Math.random()}`,
    container: { type: 'message', channel_id: CHANNEL, message_ts: ts },
    actions: [{ action_id: actionId, value, block_id: 'ask:0' }],
  });
  return answer.status;
}

/** A modal submission by Slack user `user`, with `values` by block id. */
function submit(
  view: { callback_id: string; private_metadata: string; blocks: Array<{ type: string; block_id?: string }> },
  values: Record<string, string>,
  user: string,
) {
  const state = Object.fromEntries(
    Object.entries(values).map(([block, value]) => [block, { value: { type: 'plain_text_input', value } }]),
  );
  return interact({
    type: 'view_submission',
    team: { id: TEAM },
    user: { id: user, team_id: TEAM },
    view: { ...view, state: { values: state } },
  });
}

/** The ephemeral Slack showed `user` after their click on `ts`. */
const ephemeralFor = (user: string, ts: string, seen: number) =>
  until(
    () =>
      slack
        .of('chat.postEphemeral')
        .filter((call) => call.body.user === user)
        .slice(seen)[0],
    `an ephemeral to ${user} about ${ts}`,
    20_000,
  );
const ephemerals = (user: string) => slack.of('chat.postEphemeral').filter((call) => call.body.user === user).length;

const SLACK_AND_MAIL = (address: string) => ({
  notify: [
    { channel: 'slack', to: CHANNEL },
    { channel: 'email', to: address },
  ],
});

describe('one person at every door (§16), as issue 29 attacked it', () => {
  it('case 1: keeps four eyes through HTTP, the pause’s own link, the mailed link and Slack', async () => {
    const key = await pause('alice', {}, { fourEyes: true, ...SLACK_AND_MAIL('alice@example.com') });
    const before = await state(key);
    expect(await decide('alice', key, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'self_decision' },
    });
    // The 201's answerUrl is granted to Alice: it decides as her.
    expect(await throughLink(key.answerUrl as string, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'self_decision' },
    });
    // The email channel delivered a link to her own address: it decides as that verified address, which is hers.
    const mailed = await mailedLink('alice@example.com', key.runId);
    expect(await throughLink(mailed, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'self_decision' },
    });
    // Her Slack account has the same email in users.info.
    const message = await slackMessage(key.runId);
    const seen = ephemerals('U0ALICE01');
    expect(await click(message.ts, 'handback.approve', message.approve, 'U0ALICE01')).toBe(200);
    expect((await ephemeralFor('U0ALICE01', message.ts, seen)).body.text).toMatch(/^Not recorded: .*four eyes/);
    expect(await state(key)).toEqual(before);
    // Someone else may decide it.
    expect(await decide('bob', key, { decision: 'approve' })).toMatchObject({ status: 200 });
  });

  it('case 2: one person never meets a quorum alone: HTTP and Slack count once, her mailed link not at all', async () => {
    const key = await pause('agent', { approvals: 3 }, SLACK_AND_MAIL('alice@example.com'));
    expect(await decide('alice', key, { decision: 'approve' })).toMatchObject({
      status: 202,
      body: { votes: { call_refund: { have: 1, need: 3 } } },
    });
    const before = await state(key);
    // Her mailed link is an address, which a quorum does not count at all (§20).
    const mailed = await mailedLink('alice@example.com', key.runId);
    expect(await throughLink(mailed, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'unknown_person' },
    });
    const message = await slackMessage(key.runId);
    const seen = ephemerals('U0ALICE01');
    expect(await click(message.ts, 'handback.approve', message.approve, 'U0ALICE01')).toBe(200);
    expect((await ephemeralFor('U0ALICE01', message.ts, seen)).body.text).toMatch(/^Not recorded: You already voted/);
    expect(await state(key)).toEqual(before);
    expect(before.tally).toEqual({ have: 1, need: 3 });
    expect((await read(key, 'alice')).asks[0].refusal).toBe('already_voted');
  });

  it('case 3: a granted link decides as its grantor, so outsiders cannot decide as the approvers they name', async () => {
    const key = await pause('agent', { approvals: 2, approvers: { emails: ['alice@example.com', 'bob@example.com'] } });
    const before = await state(key);
    for (const email of ['alice@example.com', 'bob@example.com']) {
      const granted = await makeLink('mallory', key, { email });
      expect(granted.status).toBe(201);
      expect(await throughLink(granted.body.answerUrl, { decision: 'approve' })).toMatchObject({
        status: 403,
        body: { code: 'not_an_approver' },
      });
    }
    expect(await state(key)).toEqual(before);
    // Asked to deliver instead, Handback mails the link to the address itself, and answers without it.
    const delivered = await makeLink('mallory', key, { email: 'alice@example.com', deliver: true });
    expect(delivered).toMatchObject({
      status: 202,
      body: { recipient: { email: 'alice@example.com' }, delivered: true },
    });
    expect(delivered.body).not.toHaveProperty('answerUrl');
    // It proves the address, and a quorum counts persons (§20): without a directory it decides only a plain ask.
    const mailed = await mailedLink('alice@example.com', key.runId);
    expect(await throughLink(mailed, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'unknown_person' },
    });
    expect(await state(key)).toEqual(before);
    // A granted link Bob makes for his assistant records him, through the link, and the assistant as a label.
    const bobs = await makeLink('bob', key, { email: 'assistant@example.com', name: 'Assistant' });
    expect(await throughLink(bobs.body.answerUrl, { decision: 'approve' })).toMatchObject({ status: 202 });
    const view = await read(key);
    expect(view.asks[0].votes.map((vote: { by: unknown }) => vote.by)).toEqual([
      {
        kind: 'person',
        subject: 'u-bob',
        email: 'bob@example.com',
        emailVerified: true,
        via: 'link',
        for: { email: 'assistant@example.com', name: 'Assistant' },
        // The grantor's groups as the link carries them (§19: those the approvers name): none here.
        groups: [],
      },
    ]);
  });

  it('case 4: an agent cannot choose its approvers or whom it mails: 400 recipient_not_allowed, nothing recorded or sent', async () => {
    const runId = `one-person-evil-${Date.now()}`;
    const attempt = await request(
      `${service.url}/runs/${runId}/pauses`,
      'POST',
      {
        format: 'openai-chat',
        messages: transcript(),
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { emails: ['attacker@evil.example'] } }],
        notify: [{ channel: 'email', to: 'attacker@evil.example' }],
      },
      await as('agent'),
    );
    expect(attempt).toMatchObject({
      status: 400,
      body: {
        code: 'recipient_not_allowed',
        failures: [{ path: '/asks/0/approvers/emails/0' }, { path: '/notify/0/to' }],
      },
    });
    expect(attempt.body.detail).toContain('attacker@evil.example');
    const listed = await request(`${service.url}/pauses?limit=100`, 'GET', undefined, await as('bob'));
    expect(listed.body.items.filter((item: { runId: string }) => item.runId === runId)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.mails.filter((mail) => to(mail).includes('attacker@evil.example'))).toEqual([]);
    // Inside the recipient domains an agent may name people by email.
    await pause(
      'agent',
      { approvers: { emails: ['alice@example.com'] } },
      { notify: [{ channel: 'email', to: 'alice@example.com' }] },
    );
  });

  it('case 5: a vote is bound to what was seen: a Slack approve of arguments edited since is args_changed', async () => {
    const key = await pause('agent', { approvals: 2 }, { notify: [{ channel: 'slack', to: CHANNEL }] });
    const message = await slackMessage(key.runId);
    const shown = (await read(key, 'alice')).asks[0].argsHash;
    expect(
      await decide('alice', key, { decision: 'edit', args: { orderId: 'order-42', amount: 9999 }, argsHash: shown }),
    ).toMatchObject({ status: 202 });
    const before = await state(key);
    const seen = ephemerals('U0BOB0002');
    // Bob clicks Approve on the message as it showed 30.
    expect(await click(message.ts, 'handback.approve', message.approve, 'U0BOB0002')).toBe(200);
    expect((await ephemeralFor('U0BOB0002', message.ts, seen)).body.text).toMatch(
      /^Not recorded: The arguments .* changed/,
    );
    expect(await state(key)).toEqual(before);
    expect(before.tally).toEqual({ have: 1, need: 2 });
    // Over HTTP the same stale hash is 409, naming the current one.
    const stale = await decide('bob', key, { decision: 'approve', argsHash: shown });
    expect(stale).toMatchObject({ status: 409, body: { code: 'args_changed', toolCallId: 'call_refund' } });
    expect(stale.body.argsHash).toBe((await read(key)).asks[0].argsHash);
    // The Edit… modal takes back the hash of the arguments it shows: edited again meanwhile, its submission is
    // refused inline and records nothing.
    const editButton = JSON.stringify({ a: 0 });
    expect(await click(message.ts, 'handback.edit', editButton, 'U0BOB0002')).toBe(200);
    const modal = (await until(() => slack.of('views.open').at(-1), 'the Edit… modal', 20_000)).body.view as {
      callback_id: string;
      private_metadata: string;
      blocks: Array<{ type: string; block_id?: string }>;
    };
    expect(JSON.parse(modal.private_metadata)).toMatchObject({ h: (await read(key)).asks[0].argsHash });
    const current = (await read(key, 'alice')).asks[0].argsHash;
    const again = { decision: 'edit', args: { orderId: 'order-42', amount: 31 }, argsHash: current };
    expect(await decide('alice', key, again)).toMatchObject({ status: 409, body: { code: 'already_voted' } });
    expect(await decide('cyd', key, again)).toMatchObject({ status: 202 });
    const beforeModal = await state(key);
    const submitted = await submit(modal, { args: JSON.stringify({ orderId: 'order-42', amount: 32 }) }, 'U0BOB0002');
    expect(submitted).toMatchObject({ status: 200, body: { response_action: 'errors' } });
    expect(JSON.stringify(submitted.body)).toMatch(/changed since they were shown/);
    expect(await state(key)).toEqual(beforeModal);
    // A reject is a veto whatever the arguments.
    expect(await decide('bob', key, { decision: 'reject', argsHash: shown })).toMatchObject({ status: 200 });
  });

  it.each([
    [
      'an scp claim (Okta) scoped to the agent is an agent',
      { sub: 'c-okta', scp: ['handback/agent'] },
      403,
      'forbidden',
    ],
    [
      'an email that is not verified matches no approver',
      { sub: 'u-x', email: 'alice@example.com', email_verified: false, scope: BOTH },
      403,
      'not_an_approver',
    ],
    [
      'a groups string is split on spaces only: CN=finance,OU=x is not OU=x',
      { sub: 'u-y', 'cognito:groups': 'CN=finance,OU=x', scope: BOTH },
      403,
      'not_an_approver',
    ],
    [
      'the Kelvin sign does not match k',
      { sub: 'u-z', email: '\u212Aim@example.com', email_verified: true, scope: BOTH },
      403,
      'not_an_approver',
    ],
    ['a token without sub is 401, never the shared subject anonymous', { scope: BOTH }, 401, 'unauthorized'],
  ])('case 6: %s', async (_what, claims, status, code) => {
    const key = await pause('agent', {
      approvers: { emails: ['alice@example.com', 'kim@example.com'], groups: ['OU=x'] },
    });
    const before = await state(key);
    const answer = await request(
      `${service.url}/runs/${key.runId}/resume`,
      'POST',
      { interruptId: key.interruptId, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] },
      await as(claims),
    );
    expect(answer).toMatchObject({ status, body: { code } });
    expect(await state(key)).toEqual(before);
  });

  it('case 6: an issuer token without exp, or for another audience, is 401', async () => {
    const noExp = await new SignJWT({ iss: issuer, aud: AUDIENCE, tenant: 'acme', sub: 'u-alice', scope: BOTH })
      .setProtectedHeader({ alg: 'RS256', kid: 'rsa' })
      .sign(rsa);
    const otherAudience = await token({ ...PEOPLE.alice, aud: 'another-api' });
    for (const bearer of [noExp, otherAudience]) {
      const answer = await request(`${service.url}/pauses`, 'GET', undefined, { authorization: `Bearer ${bearer}` });
      expect(answer).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    }
  });

  it('counts one vote when one person votes through two doors at once (HTTP and her delivered link)', async () => {
    for (let round = 0; round < 5; round++) {
      const key = await pause('agent', { approvals: 2 }, { notify: [{ channel: 'email', to: 'alice@example.com' }] });
      const mailed = await mailedLink('alice@example.com', key.runId);
      const answers = await Promise.all([
        decide('alice', key, { decision: 'approve' }),
        throughLink(mailed, { decision: 'approve' }),
      ]);
      // Whichever comes first, the link is an address, which a quorum does not count (§20).
      expect(answers.map((answer) => answer.status).sort()).toEqual([202, 403]);
      expect(answers.find((answer) => answer.status === 403)?.body.code).toBe('unknown_person');
      const view = await read(key);
      expect(view.asks[0].votes).toHaveLength(1);
      expect(view.asks[0].tally).toEqual({ have: 1, need: 2 });
    }
  });

  it('never counts an approve for arguments it did not see when an edit races it', async () => {
    for (let round = 0; round < 5; round++) {
      const key = await pause('agent', { approvals: 2 });
      const shown = (await read(key)).asks[0].argsHash;
      const [edited, approved] = await Promise.all([
        decide('alice', key, { decision: 'edit', args: { orderId: 'order-42', amount: 9999 }, argsHash: shown }),
        decide('bob', key, { decision: 'approve', argsHash: shown }),
      ]);
      expect(edited.status).toBe(202);
      const view = await read(key);
      expect(view.status).toBe('paused');
      expect(view.asks[0].tally).toEqual({ have: 1, need: 2 });
      if (approved.status === 409) {
        expect(approved.body.code).toBe('args_changed');
        expect(view.asks[0].votes.map((vote: { by: { subject: string } }) => vote.by.subject)).toEqual(['u-alice']);
      } else {
        expect(approved.status).toBe(202);
        expect(view.asks[0].votes.map((vote: { decision: string }) => vote.decision)).toEqual(['approve', 'edit']);
      }
    }
  });
});

describe('an address is not a person, without a directory (§20, issue 38)', () => {
  it('case 1: keeps four eyes against links delivered to Alice’s aliases: 403 unknown_person, nothing changed', async () => {
    const key = await pause(
      'alice',
      {},
      { fourEyes: true, notify: [{ channel: 'email', to: 'alice+fe@example.com' }] },
    );
    const before = await state(key);
    // Her own notify to an alias, a link delivered to her private address, and one to another alias.
    const links = [await mailedLink('alice+fe@example.com', key.runId)];
    for (const email of ['alice.private@example.org', 'alice+1@example.com']) {
      expect(await makeLink('alice', key, { email, deliver: true })).toMatchObject({ status: 202 });
      links.push(await mailedLink(email, key.runId));
    }
    for (const link of links) {
      expect(await throughLink(link, { decision: 'approve' })).toMatchObject({
        status: 403,
        body: { code: 'unknown_person', toolCallId: 'call_refund' },
      });
    }
    expect(await state(key)).toEqual(before);
    // The control: another person, signed in.
    expect(await decide('bob', key, { decision: 'approve' })).toMatchObject({ status: 200 });
  });

  it('case 1: keeps four eyes when the pauser’s token email is unverified and a link goes to that exact address', async () => {
    const unverified = { ...PEOPLE.alice, sub: 'u-alice-unverified', email_verified: false };
    const runId = `one-person-unverified-${Date.now()}`;
    const created = await request(
      `${service.url}/runs/${runId}/pauses`,
      'POST',
      {
        format: 'openai-chat',
        messages: transcript(),
        asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
        fourEyes: true,
      },
      await as(unverified),
    );
    expect(created.status).toBe(201);
    const key = {
      runId,
      interruptId: created.body.interruptId,
      path: `${service.url}/runs/${runId}/pauses/${created.body.interruptId}`,
    };
    expect(await makeLink('bob', key, { email: 'alice@example.com', deliver: true })).toMatchObject({ status: 202 });
    const before = await state(key);
    const link = await mailedLink('alice@example.com', runId);
    expect(await throughLink(link, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'unknown_person' },
    });
    expect(await state(key)).toEqual(before);
    expect(await decide('cyd', key, { decision: 'approve' })).toMatchObject({ status: 200 });
  });

  it('case 2: never counts Ann’s aliases towards a quorum of three; Bob and Cyd complete it', async () => {
    const key = await pause(
      'agent',
      { approvals: 3 },
      {
        notify: [
          { channel: 'email', to: 'alice+2@example.com' },
          { channel: 'email', to: 'alice+3@example.com' },
        ],
      },
    );
    expect(await decide('alice', key, { decision: 'approve' })).toMatchObject({ status: 202 });
    const before = await state(key);
    for (const alias of ['alice+2@example.com', 'alice+3@example.com']) {
      const link = await mailedLink(alias, key.runId);
      expect(await throughLink(link, { decision: 'approve' })).toMatchObject({
        status: 403,
        body: { code: 'unknown_person' },
      });
    }
    expect(await state(key)).toEqual(before);
    expect(before.tally).toEqual({ have: 1, need: 3 });
    expect(await decide('bob', key, { decision: 'approve' })).toMatchObject({ status: 202 });
    expect(await decide('cyd', key, { decision: 'approve' })).toMatchObject({ status: 200 });
  });

  it('lets a delivered link decide an ask with neither four eyes nor a quorum', async () => {
    const key = await pause('alice', {}, { notify: [{ channel: 'email', to: 'alice+plain@example.com' }] });
    const link = await mailedLink('alice+plain@example.com', key.runId);
    expect(await throughLink(link, { decision: 'approve' })).toMatchObject({ status: 200 });
  });
});

describe('an agent on behalf of a person (§20, issue 38)', () => {
  it('case 3: keeps four eyes against the person an act token’s agent paused for; the agent decides nothing', async () => {
    const actingForAlice = { ...PEOPLE.alice, act: { sub: 'agent-9' } };
    const runId = `one-person-act-${Date.now()}`;
    const created = await request(
      `${service.url}/runs/${runId}/pauses`,
      'POST',
      {
        format: 'openai-chat',
        messages: transcript(),
        asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
        fourEyes: true,
      },
      await as(actingForAlice),
    );
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('answerUrl');
    const path = `${service.url}/runs/${runId}/pauses/${created.body.interruptId}`;
    const key = { runId, interruptId: created.body.interruptId, path };
    expect((await read(key)).pausedBy).toEqual({
      kind: 'agent',
      groups: [],
      subject: 'agent-9',
      via: 'api',
      onBehalfOf: {
        kind: 'person',
        subject: 'u-alice',
        email: 'alice@example.com',
        emailVerified: true,
        name: 'Alice',
        via: 'api',
      },
    });
    const before = await state(key);
    expect(await decide('alice', key, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'self_decision' },
    });
    expect(await decide(actingForAlice, key, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'forbidden' },
    });
    expect(await state(key)).toEqual(before);
    expect(await decide('bob', key, { decision: 'approve' })).toMatchObject({ status: 200 });
  });
});

describe('persons known to a directory (§20, issue 38)', () => {
  let plain: LocalService;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'handback-directory-'));
    const file = join(dir, 'people.json');
    const person = (id: string, more: object) => ({ id, name: id, groups: [], tenant: 'acme', ...more });
    await writeFile(
      file,
      JSON.stringify({
        people: [
          person('alice', {
            subjects: ['u-alice'],
            emails: ['alice@example.com', 'alice.private@example.org'],
            slack: [{ team: TEAM, user: 'U0ALICE01' }],
          }),
          // Bob's Slack user (bob@example.com in users.info) is not his in the directory: there it is no one.
          person('bob', { subjects: ['u-bob'], emails: ['bob@corp.example'] }),
          // Cyd hands her approvals to Bob for the week (by his id), as a directory entry may (§20).
          person('cyd', {
            subjects: ['u-cyd'],
            emails: ['cyd@example.com'],
            groups: ['finance'],
            delegation: { to: 'bob', until: new Date(Date.now() + 7 * 86_400_000).toISOString(), reason: 'on leave' },
          }),
          person('mallory', { subjects: ['u-mallory'], emails: ['mallory@example.com'], active: false }),
        ],
      }),
    );
    plain = service;
    service = await startLocalService(serviceEnv({ HANDBACK_DIRECTORY: file }));
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    service = plain;
    await rm(dir, { recursive: true, force: true });
  });

  it('case 1: keeps four eyes against every identity the directory says is Alice’s, and against those it does not know', async () => {
    const key = await pause('alice', {}, { fourEyes: true, ...SLACK_AND_MAIL('alice.private@example.org') });
    const before = await state(key);
    const privateLink = await mailedLink('alice.private@example.org', key.runId);
    expect(await throughLink(privateLink, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'self_decision' },
    });
    expect(await makeLink('alice', key, { email: 'alice+1@example.com', deliver: true })).toMatchObject({
      status: 202,
    });
    const aliasLink = await mailedLink('alice+1@example.com', key.runId);
    expect(await throughLink(aliasLink, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'unknown_person' },
    });
    const message = await slackMessage(key.runId);
    const seen = ephemerals('U0ALICE01');
    expect(await click(message.ts, 'handback.approve', message.approve, 'U0ALICE01')).toBe(200);
    expect((await ephemeralFor('U0ALICE01', message.ts, seen)).body.text).toMatch(/^Not recorded: .*four eyes/);
    // A Slack user the directory does not know is no one: told so in Slack.
    const bobSeen = ephemerals('U0BOB0002');
    expect(await click(message.ts, 'handback.approve', message.approve, 'U0BOB0002')).toBe(200);
    expect((await ephemeralFor('U0BOB0002', message.ts, bobSeen)).body.text).toMatch(
      /directory does not list your Slack user/,
    );
    expect(await state(key)).toEqual(before);
    expect((await read(key, 'bob')).asks[0]).toMatchObject({ mayDecide: true });
    expect(await decide('bob', key, { decision: 'approve' })).toMatchObject({ status: 200 });
  });

  it('case 2: counts Alice once on a quorum whatever address she comes with, and records person:<id>', async () => {
    const key = await pause(
      'cyd',
      { approvals: 2 },
      { notify: [{ channel: 'email', to: 'alice.private@example.org' }] },
    );
    expect(await decide('alice', key, { decision: 'approve' })).toMatchObject({ status: 202 });
    const before = await state(key);
    expect(before.votes[0].by).toMatchObject({ subject: 'u-alice', person: 'alice' });
    const link = await mailedLink('alice.private@example.org', key.runId);
    expect(await throughLink(link, { decision: 'approve' })).toMatchObject({
      status: 409,
      body: { code: 'already_voted' },
    });
    expect(await state(key)).toEqual(before);
    expect(await decide('bob', key, { decision: 'approve' })).toMatchObject({ status: 200 });
  });

  it('case 4: lets a delegate vote for the person on leave, once, and records by and for', async () => {
    const finance = { approvers: { groups: ['finance'] }, approvals: 2 };
    const key = await pause('alice', finance);
    const before = await state(key);
    // The control: Alice is no one's delegate and not in finance.
    expect(await decide('alice', key, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'not_an_approver' },
    });
    expect(await state(key)).toEqual(before);
    expect((await read(key, 'bob')).asks[0]).toMatchObject({ mayDecide: true });
    expect(await decide('bob', key, { decision: 'approve' })).toMatchObject({ status: 202 });
    const voted = await state(key);
    expect(voted.votes[0]).toMatchObject({ by: { subject: 'u-bob', person: 'bob' }, for: { person: 'cyd' } });
    // Cyd's voice is spent: her own vote is already_voted.
    expect(await decide('cyd', key, { decision: 'approve' })).toMatchObject({
      status: 409,
      body: { code: 'already_voted' },
    });
    expect(await state(key)).toEqual(voted);
  });

  it('case 4: counts one vote when the delegate and the delegator vote at once', async () => {
    for (let round = 0; round < 5; round++) {
      const key = await pause('alice', { approvers: { groups: ['finance'] }, approvals: 2 });
      const answers = await Promise.all([
        decide('bob', key, { decision: 'approve' }),
        decide('cyd', key, { decision: 'approve' }),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
      expect(answers.find((answer) => answer.status === 409)?.body.code).toBe('already_voted');
      const view = await read(key);
      expect(view.asks[0].votes).toHaveLength(1);
      expect(view.asks[0].tally).toEqual({ have: 1, need: 2 });
    }
  });

  it('refuses a person the directory says is not active on any ask, and shows why', async () => {
    const key = await pause('agent');
    const before = await state(key);
    expect(await decide('mallory', key, { decision: 'approve' })).toMatchObject({
      status: 403,
      body: { code: 'unknown_person' },
    });
    expect((await read(key, 'mallory')).asks[0]).toMatchObject({ mayDecide: false, refusal: 'unknown_person' });
    expect(await state(key)).toEqual(before);
    expect(await decide('cyd', key, { decision: 'approve' })).toMatchObject({ status: 200 });
  });
});

describe('tokens on the HS256 path (§16)', () => {
  const SECRET = 'a-jwt-secret-of-at-least-thirty-two-bytes';
  let local: LocalService;
  beforeAll(async () => {
    local = await startLocalService({
      PORT: '0',
      LOG_LEVEL: 'ERROR',
      HANDBACK_SWEEP_INTERVAL_MS: '60000',
      HANDBACK_JWT_SECRET: SECRET,
      HANDBACK_JWT_AUDIENCE: AUDIENCE,
    });
  }, 60_000);
  afterAll(() => local?.close());
  const hs = (claims: Record<string, unknown>, exp = true) => {
    const jwt = new SignJWT({ tenant: 'acme', sub: 'u-ann', ...claims }).setProtectedHeader({ alg: 'HS256' });
    return (exp ? jwt.setExpirationTime('10m') : jwt).sign(new TextEncoder().encode(SECRET));
  };

  it.each([
    ['without exp, which would never expire', 401, () => hs({ aud: AUDIENCE }, false)],
    ['without a listed aud', 401, () => hs({ aud: 'another-api' })],
    ['without aud at all', 401, () => hs({})],
    ['with exp and a listed aud', 200, () => hs({ aud: AUDIENCE })],
  ])('answers an HS256 token %s with %d', async (_what, status, make) => {
    const answer = await request(`${local.url}/pauses`, 'GET', undefined, { authorization: `Bearer ${await make()}` });
    expect(answer.status).toBe(status);
  });
});

describe('case 7: auth off (§16)', () => {
  let open: LocalService;
  beforeAll(async () => {
    open = await startLocalService({ PORT: '0', LOG_LEVEL: 'ERROR', HANDBACK_SWEEP_INTERVAL_MS: '60000' });
  }, 60_000);
  afterAll(() => open?.close());

  it.each([
    ['fourEyes', {}, { fourEyes: true }, '/fourEyes'],
    ['approvals above 1', { approvals: 2 }, {}, '/asks/0/approvals'],
    ['approvers', { approvers: { subjects: ['u-ann'] } }, {}, '/asks/0/approvers'],
  ])('refuses a pause with %s that no one could ever decide, and records nothing', async (_what, ask, extra, path) => {
    const runId = `auth-off-${Date.now()}-${++runs}`;
    const answer = await request(`${open.url}/runs/${runId}/pauses`, 'POST', {
      format: 'openai-chat',
      messages: transcript(),
      asks: [{ toolCallId: 'call_refund', kind: 'approval', ...ask }],
      ...extra,
    });
    expect(answer).toMatchObject({ status: 400, body: { code: 'bad_request', failures: [{ path }] } });
    const listed = await request(`${open.url}/pauses?limit=100`, 'GET');
    expect(listed.body.items.filter((item: { runId: string }) => item.runId === runId)).toEqual([]);
  });
});
