import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { SCOPES } from '../../functions/vocabulary.ts';
import { type SlackStandIn, startSlackStandIn } from '../channels/slack-stand-in.ts';
import { type SmtpCatcher, startSmtpCatcher, recipientsOf as to, until } from '../channels/smtp-catcher.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { request } from './service.ts';

/**
 * A person's own delegation (§20, issue 38 case 4), black-box against the local service (what `npm start` runs) with a
 * directory file: Cyd hands her approvals to Bob with `PUT /people/me/delegation`, Bob decides for her — choosing with
 * `for` where he may decide in his own right too — one voice between them, even at once, and `DELETE` takes it back.
 * Each refusal sits beside its control and reads the pause back to prove nothing changed.
 */

const SECRET = 'a-jwt-secret-of-at-least-thirty-two-bytes';
const AUDIENCE = 'handback-api';
const table = useTestTable();
let service: LocalService;
let dir: string;
let smtp: SmtpCatcher;
let slack: SlackStandIn;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handback-delegation-'));
  const file = join(dir, 'people.json');
  const person = (id: string, more: object = {}) => ({
    id,
    name: id[0]?.toUpperCase() + id.slice(1),
    subjects: [`u-${id}`],
    emails: [`${id}@example.com`],
    tenant: 'acme',
    ...more,
  });
  await writeFile(
    file,
    JSON.stringify({
      people: [
        person('alice'),
        person('bob', { groups: ['ops'], slack: [{ team: 'T0TEAM0001', user: 'U0BOB0001' }] }),
        person('cyd', { groups: ['finance'] }),
        person('dan', { groups: ['finance'] }),
        person('eve', { active: false }),
      ],
    }),
  );
  smtp = await startSmtpCatcher();
  slack = await startSlackStandIn('T0TEAM0001');
  service = await startLocalService({
    PORT: '0',
    LOG_LEVEL: 'ERROR',
    DYNAMODB_ENDPOINT: table.endpoint,
    TABLE_NAME: table.tableName,
    HANDBACK_SWEEP_INTERVAL_MS: '60000',
    HANDBACK_JWT_SECRET: SECRET,
    HANDBACK_JWT_AUDIENCE: AUDIENCE,
    HANDBACK_DIRECTORY: file,
    HANDBACK_LINK_SECRET: 'an-answer-link-secret-of-at-least-32-bytes',
    HANDBACK_SMTP_URL: smtp.url,
    HANDBACK_EMAIL_FROM: 'Handback <handback@example.com>',
    HANDBACK_SLACK_BOT_TOKEN: 'xoxb-test-token',
    HANDBACK_SLACK_SIGNING_SECRET: 'slack-signing-secret-for-delegation',
    HANDBACK_SLACK_API_URL: slack.url,
  });
}, 60_000);

afterAll(async () => {
  await service?.close();
  await smtp?.close();
  await slack?.close();
  await rm(dir, { recursive: true, force: true });
});

const token = (sub: string, extra: Record<string, unknown> = {}) =>
  new SignJWT({ tenant: 'acme', sub, aud: AUDIENCE, scope: `${SCOPES.agent} ${SCOPES.decide}`, ...extra })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));
const as = async (who: string) => ({ authorization: `Bearer ${await token(`u-${who}`)}` });
const me = async (who: string) => request(`${service.url}/people/me`, 'GET', undefined, await as(who));
const delegate = async (who: string, body: object) =>
  request(`${service.url}/people/me/delegation`, 'PUT', body, await as(who));
const undelegate = async (who: string) =>
  request(`${service.url}/people/me/delegation`, 'DELETE', undefined, await as(who));
const week = () => new Date(Date.now() + 7 * 86_400_000).toISOString();

let runs = 0;
interface Paused {
  runId: string;
  interruptId: string;
  path: string;
}

/** Alice pauses a refund; `ask` goes into its one ask. */
async function pause(ask: object, extra: object = {}): Promise<Paused> {
  const runId = `delegation-${Date.now()}-${++runs}`;
  const created = await request(
    `${service.url}/runs/${runId}/pauses`,
    'POST',
    {
      format: 'openai-chat',
      messages: [
        { role: 'user', content: 'Refund order-42.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_refund', type: 'function', function: { name: 'refund', arguments: '{}' } }],
        },
      ],
      asks: [{ toolCallId: 'call_refund', kind: 'approval', ...ask }],
      ...extra,
    },
    await as('alice'),
  );
  expect(created.status).toBe(201);
  const { interruptId } = created.body as { interruptId: string };
  return { runId, interruptId, path: `${service.url}/runs/${runId}/pauses/${interruptId}` };
}

const decide = async (who: string, key: Paused, extra: object = {}) =>
  request(
    `${service.url}/runs/${key.runId}/resume`,
    'POST',
    { interruptId: key.interruptId, decisions: [{ toolCallId: 'call_refund', decision: 'approve', ...extra }] },
    await as(who),
  );
/** What a refusal must leave as it was. */
const state = async (key: Paused) => {
  const view = (await request(key.path, 'GET', undefined, await as('alice'))).body;
  return { status: view.status, decided: view.decided, votes: view.asks[0].votes, tally: view.asks[0].tally };
};
const finance = { approvers: { groups: ['finance'] }, approvals: 2 };

/** The link in the mail `address` got about `runId`. */
async function mailedLink(address: string, runId: string): Promise<string> {
  const mail = await until(
    () => smtp.mails.find((m) => to(m).includes(address) && (m.text ?? '').includes(runId)),
    `the mail to ${address} about ${runId}`,
    20_000,
  );
  return /Review and decide: (\S+)/.exec(mail.text ?? '')?.[1] as string;
}

describe('a person’s own delegation against the local service (§20)', () => {
  it('shows the caller’s person, sets a delegation by the delegate’s email, and refuses bad ones changing nothing', async () => {
    expect(await me('cyd')).toMatchObject({
      status: 200,
      body: { id: 'cyd', name: 'Cyd', emails: ['cyd@example.com'], groups: ['finance'] },
    });
    expect((await me('cyd')).body).not.toHaveProperty('delegation');
    for (const [body, path] of [
      [{ to: 'cyd', until: week() }, '/to'],
      [{ to: 'eve', until: week() }, '/to'],
      [{ to: 'zed@example.com', until: week() }, '/to'],
      [{ to: 'bob', until: new Date(Date.now() - 1000).toISOString() }, '/until'],
    ] as const) {
      const refused = await delegate('cyd', body);
      expect(refused).toMatchObject({ status: 400, body: { code: 'bad_request', failures: [{ path }] } });
    }
    expect((await me('cyd')).body).not.toHaveProperty('delegation');
    const until = week();
    const set = await delegate('cyd', { to: 'BOB@example.com', until, reason: 'on leave' });
    expect(set).toMatchObject({
      status: 200,
      body: { id: 'cyd', delegation: { to: 'bob', toName: 'Bob', until, reason: 'on leave', holds: true } },
    });
    expect((await me('cyd')).body).toEqual(set.body);
  });

  it('lets Bob vote for Cyd on an ask he may not decide himself, records by and for, and Cyd’s own vote is then already_voted', async () => {
    const key = await pause(finance);
    expect(await decide('alice', key)).toMatchObject({ status: 403, body: { code: 'not_an_approver' } });
    expect(await decide('bob', key)).toMatchObject({ status: 202 });
    const voted = await state(key);
    expect(voted.votes[0]).toMatchObject({ by: { subject: 'u-bob', person: 'bob' }, for: { person: 'cyd' } });
    expect(await decide('cyd', key)).toMatchObject({ status: 409, body: { code: 'already_voted' } });
    expect(await state(key)).toEqual(voted);
    expect(await decide('dan', key)).toMatchObject({ status: 200 });
  });

  it('lets Bob choose with for where he may decide in his own right: for Cyd, and then not for himself', async () => {
    const key = await pause({ approvers: { groups: ['finance', 'ops'] }, approvals: 2 });
    expect(await decide('bob', key, { for: 'dan' })).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(await state(key)).toMatchObject({ votes: undefined });
    expect(await decide('bob', key, { for: 'cyd' })).toMatchObject({ status: 202 });
    const voted = await state(key);
    expect(voted.votes[0]).toMatchObject({ by: { person: 'bob' }, for: { person: 'cyd' } });
    expect(await decide('bob', key)).toMatchObject({ status: 409, body: { code: 'already_voted' } });
    expect(await decide('bob', key, { for: 'bob' })).toMatchObject({ status: 409, body: { code: 'already_voted' } });
    expect(await state(key)).toEqual(voted);
    // Without for, where he may decide himself, he votes for himself.
    const own = await pause({ approvers: { groups: ['finance', 'ops'] }, approvals: 2 });
    expect(await decide('bob', own)).toMatchObject({ status: 202 });
    expect((await state(own)).votes[0]).not.toHaveProperty('for');
  });

  it('mails the delegate of a mailed approver a link of their own, which votes for her; no one else', async () => {
    const mailCyd = { notify: [{ channel: 'email', to: 'cyd@example.com' }] };
    // The control: an ask Cyd is not an approver of tells Bob nothing, though Cyd is mailed (its events go first).
    const other = await pause({ approvers: { groups: ['ops'] } }, mailCyd);
    const key = await pause(finance, mailCyd);
    const link = await mailedLink('bob@example.com', key.runId);
    await mailedLink('cyd@example.com', key.runId);
    expect(smtp.mails.filter((mail) => (mail.text ?? '').includes(other.runId)).flatMap(to)).toEqual([
      'cyd@example.com',
    ]);
    expect(
      smtp.mails
        .filter((mail) => (mail.text ?? '').includes(key.runId))
        .flatMap(to)
        .sort(),
    ).toEqual(['bob@example.com', 'cyd@example.com']);
    const voted = await request(
      `${service.url}/links/resume`,
      'POST',
      { decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] },
      { 'x-handback-link': link.slice(link.indexOf('#') + 1) },
    );
    expect(voted.status).toBe(202);
    expect((await state(key)).votes[0]).toMatchObject({ by: { person: 'bob' }, for: { person: 'cyd' } });
  });

  it('tells the delegate in the Slack message’s thread, once, by a mention; not on an ask the delegator does not approve', async () => {
    const inSlack = { notify: [{ channel: 'slack', to: 'C0APPROVE1' }] };
    const other = await pause({ approvers: { groups: ['ops'] } }, inSlack);
    const key = await pause(finance, inSlack);
    const replies = async (runId: string) => {
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
      // The stand-in's nth post is at 1700000000+n.
      const ts = `${1_700_000_000 + n}.000100`;
      return () => slack.of('chat.postMessage').filter((call) => call.body.thread_ts === ts);
    };
    const ofKey = await replies(key.runId);
    const told = await until(() => ofKey().length > 0 && ofKey(), 'the delegate told in the thread', 20_000);
    expect(told.map((call) => call.body.text)).toEqual([
      expect.stringMatching(/^<@U0BOB0001> decides here for Cyd, whose approvals are handed to them until /),
    ]);
    expect(await decide('bob', key)).toMatchObject({ status: 202 });
    expect(ofKey()).toHaveLength(1);
    expect((await replies(other.runId))()).toEqual([]);
  });

  it('counts one vote when the delegate and the delegator vote at once', async () => {
    for (let round = 0; round < 5; round++) {
      const key = await pause(finance);
      const answers = await Promise.all([decide('bob', key), decide('cyd', key)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
      expect(answers.find((answer) => answer.status === 409)?.body.code).toBe('already_voted');
      expect(await state(key)).toMatchObject({ tally: { have: 1, need: 2 } });
      expect((await state(key)).votes).toHaveLength(1);
    }
  });

  it('takes the delegation back with DELETE: Bob then decides nothing for Cyd', async () => {
    const ended = await undelegate('cyd');
    expect(ended.status).toBe(200);
    expect(ended.body).not.toHaveProperty('delegation');
    const key = await pause(finance);
    const before = await state(key);
    expect(await decide('bob', key)).toMatchObject({ status: 403, body: { code: 'not_an_approver' } });
    expect(await decide('bob', key, { for: 'cyd' })).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(await state(key)).toEqual(before);
    expect(await decide('cyd', key)).toMatchObject({ status: 202 });
    const mailed = await pause(finance, { notify: [{ channel: 'email', to: 'cyd@example.com' }] });
    // A later pause's mail: the events of the one before are delivered by then.
    const marker = await pause(finance, { notify: [{ channel: 'email', to: 'dan@example.com' }] });
    await mailedLink('dan@example.com', marker.runId);
    await mailedLink('cyd@example.com', mailed.runId);
    expect(smtp.mails.filter((mail) => (mail.text ?? '').includes(mailed.runId)).flatMap(to)).toEqual([
      'cyd@example.com',
    ]);
  });
});
