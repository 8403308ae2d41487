import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { approvalTranscript } from '../../functions/testing/service-spec.ts';
import { LINK_HEADER } from '../../functions/vocabulary.ts';
import { recipientsOf, startSmtpCatcher, until } from '../channels/smtp-catcher.ts';
import { request, startFailing, startService, stopAll } from './service.ts';

/** §21's escalation ladders through `npm start`, with a fast sweep and levels of seconds. */

afterAll(stopAll);

const JWT_SECRET = 'a-jwt-secret-of-at-least-thirty-two-bytes';

async function token(claims: Record<string, unknown>): Promise<Record<string, string>> {
  const bearer = await new SignJWT({ tenant: 'acme', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  return { authorization: `Bearer ${bearer}` };
}

/** A webhook receiver on a free port: what it got, in order. */
async function webhook(): Promise<{ url: string; events: Array<Record<string, unknown>>; server: Server }> {
  const events: Array<Record<string, unknown>> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      events.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, events, server };
}

describe('npm start: the default escalation ladder (HANDBACK_ESCALATION)', () => {
  it('adds each level’s approvers when its time passes, once per level, a quorum counting votes across levels; the agent cannot set one', async () => {
    const hook = await webhook();
    const service = await startService({
      HANDBACK_JWT_SECRET: JWT_SECRET,
      HANDBACK_WEBHOOK_URL: hook.url,
      HANDBACK_SWEEP_INTERVAL_MS: '200',
      HANDBACK_ESCALATION: 'PT2S group:leads; PT6S sub:u-cyd',
    });
    const agent = await token({ sub: 'acme-agent' });
    const ann = await token({ sub: 'u-ann' });
    const bob = await token({ sub: 'u-bob', 'cognito:groups': ['leads'] });
    const cyd = await token({ sub: 'u-cyd' });
    const body = {
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { subjects: ['u-ann'] }, approvals: 3 }],
      expiresInSeconds: 60,
    };
    const url = (path: string) => `${service.url}/runs/esc-1${path}`;

    // The agent cannot set, shorten or remove a ladder: 400, and nothing was made (the run takes a pause after it).
    for (const named of [{ escalation: 'PT1H sub:acme-agent' }, { escalate: null }]) {
      const refused = await request(url('/pauses'), 'POST', { ...body, ...named }, agent);
      expect(refused).toMatchObject({ status: 400, body: { code: 'bad_request' } });
      expect(JSON.stringify(refused.body)).toContain("escalation is the deployment's");
    }
    const paused = await request(url('/pauses'), 'POST', body, agent);
    expect(paused.status).toBe(201);
    const { interruptId } = paused.body;
    const view = async () => (await request(url(`/pauses/${interruptId}`), 'GET', undefined, agent)).body;
    const approve = (who: Record<string, string>) =>
      request(
        url('/resume'),
        'POST',
        { interruptId, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] },
        who,
      );

    const first = await view();
    expect(first.asks[0].escalation).toEqual({
      level: 0,
      next: { at: new Date(Date.parse(first.createdAt) + 2000).toISOString(), approvers: { groups: ['leads'] } },
    });
    // Before level 1, bob (a lead) may not decide; ann votes.
    const early = await approve(bob);
    expect(early).toMatchObject({ status: 403, body: { code: 'not_an_approver' } });
    expect((await view()).asks[0].votes ?? []).toEqual([]);
    expect((await approve(ann)).status).toBe(202);

    await expect.poll(async () => (await view()).asks[0].escalation.level, { timeout: 15_000, interval: 100 }).toBe(1);
    const atOne = await view();
    expect(atOne.asks[0].approvers).toEqual({ subjects: ['u-ann'], groups: ['leads'] });
    expect(atOne.asks[0].escalation.next).toEqual({
      at: new Date(Date.parse(atOne.createdAt) + 6000).toISOString(),
      approvers: { subjects: ['u-cyd'] },
    });
    // Level 1 added bob; cyd is not yet an approver. Ann's vote still counts.
    expect(await approve(cyd)).toMatchObject({ status: 403, body: { code: 'not_an_approver' } });
    expect((await approve(bob)).status).toBe(202);
    expect((await view()).asks[0].votes.map((vote: { by: { subject: string } }) => vote.by.subject)).toEqual([
      'u-ann',
      'u-bob',
    ]);

    await expect.poll(async () => (await view()).asks[0].escalation.level, { timeout: 15_000, interval: 100 }).toBe(2);
    const atTwo = await view();
    expect(atTwo.asks[0].escalation).toEqual({
      level: 2,
      last: { at: expect.any(String), approvers: { subjects: ['u-cyd'] } },
    });
    expect(atTwo.asks[0].approvers).toEqual({ subjects: ['u-ann', 'u-cyd'], groups: ['leads'] });
    // The third distinct approval, from the level-2 approver, settles the ask.
    const settled = await approve(cyd);
    expect(settled.status).toBe(200);
    expect(settled.body.dispatch.map((call: { toolCallId: string }) => call.toolCallId)).toEqual(['call_refund']);

    await expect
      .poll(() => hook.events.map((event) => event['detail-type']), { timeout: 5_000 })
      .toEqual([
        'Pause Created',
        'Pause Decided',
        'Pause Escalated',
        'Pause Decided',
        // Level 1's approvers reminded halfway to level 2 (at 4 s).
        'Pause Reminder',
        'Pause Escalated',
        // The vote that settles it closes the pause: its one event is the closing's.
        'Pause Resumed',
      ]);
    const escalated = hook.events
      .filter((event) => event['detail-type'] === 'Pause Escalated')
      .map((event) => event.detail as Record<string, unknown>);
    expect(escalated.map(({ toolCallId, level, approvers }) => ({ toolCallId, level, approvers }))).toEqual([
      { toolCallId: 'call_refund', level: 1, approvers: { groups: ['leads'] } },
      { toolCallId: 'call_refund', level: 2, approvers: { subjects: ['u-cyd'] } },
    ]);
    expect(escalated[0]).toMatchObject({ tenant: 'acme', runId: 'esc-1', interruptId, status: 'paused' });
    await service.stop();
    hook.server.close();
  });

  it('refuses to start with a bad ladder, naming the variable and the column', async () => {
    const failed = await startFailing({ HANDBACK_ESCALATION: 'PT1M group:a; soon group:b' });
    expect(failed.code).not.toBe(0);
    expect(failed.output).toContain(
      'Environment variable HANDBACK_ESCALATION at column 15: "soon" is not an ISO 8601 duration',
    );
  });
});

describe('npm start: a ladder read from the directory of persons (HANDBACK_DIRECTORY, §20)', () => {
  it('mails a group level’s members and a manager level’s managers each a link of their own; the onBehalfOf person’s manager is skipped', async () => {
    const hook = await webhook();
    const smtp = await startSmtpCatcher();
    const dir = await mkdtemp(join(tmpdir(), 'handback-escalation-'));
    const file = join(dir, 'people.json');
    const person = (id: string, more: object) => ({ id, name: id, tenant: 'acme', subjects: [`u-${id}`], ...more });
    await writeFile(
      file,
      JSON.stringify({
        people: [
          // Ann's manager is Pat, for whom the agent pauses: skipped. Bob's is Mia, who is told.
          person('ann', { emails: ['ann@example.com'], manager: 'pat' }),
          person('bob', { emails: ['bob@example.com'], manager: 'mia' }),
          person('pat', { emails: ['pat@example.com'] }),
          person('mia', { emails: ['mia@example.com'] }),
          person('lee', { emails: ['lee@example.com'], groups: ['leads'], manager: 'mia' }),
          person('lou', { emails: ['lou@example.com'], groups: ['leads'], active: false }),
        ],
      }),
    );
    const service = await startService({
      HANDBACK_JWT_SECRET: JWT_SECRET,
      HANDBACK_WEBHOOK_URL: hook.url,
      HANDBACK_SWEEP_INTERVAL_MS: '200',
      HANDBACK_DIRECTORY: file,
      HANDBACK_LINK_SECRET: 'an-answer-link-secret-of-at-least-32-bytes',
      HANDBACK_SMTP_URL: smtp.url,
      HANDBACK_EMAIL_FROM: 'Handback <handback@example.com>',
      HANDBACK_EMAIL_TO: 'desk@example.com',
      HANDBACK_ESCALATION: 'PT1S group:leads; PT3S manager',
    });
    const forPat = await token({ sub: 'u-pat', act: { sub: 'acme-agent' } });
    const url = (path: string) => `${service.url}/runs/esc-dir${path}`;
    const paused = await request(
      url('/pauses'),
      'POST',
      {
        format: 'openai-chat',
        messages: approvalTranscript(),
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { subjects: ['u-ann', 'u-bob'] } }],
        expiresInSeconds: 60,
      },
      forPat,
    );
    expect(paused.status).toBe(201);
    const { interruptId } = paused.body;
    const view = async () => (await request(url(`/pauses/${interruptId}`), 'GET', undefined, forPat)).body;

    await expect.poll(async () => (await view()).asks[0].escalation.level, { timeout: 15_000, interval: 100 }).toBe(2);
    expect((await view()).asks[0].approvers).toEqual({
      subjects: ['u-ann', 'u-bob'],
      groups: ['leads'],
      emails: ['mia@example.com'],
    });
    // Lee (an active lead) at level 1; Mia (Bob's and Lee's manager) once at level 2; never Lou, Pat or Ann's manager.
    const forRun = () => smtp.mails.filter((mail) => (mail.text ?? '').includes('esc-dir'));
    const mails = await until(() => forRun().length >= 3 && forRun(), 'the first mail and one per level');
    expect(mails.map((mail) => recipientsOf(mail))).toEqual([
      ['desk@example.com'],
      ['lee@example.com'],
      ['mia@example.com'],
    ]);
    await expect
      .poll(() => hook.events.filter((event) => event['detail-type'] === 'Pause Escalated').length, { timeout: 5_000 })
      .toBe(2);
    expect(
      hook.events
        .filter((event) => event['detail-type'] === 'Pause Escalated')
        .map((event) => (event.detail as { approvers: unknown }).approvers),
    ).toEqual([{ groups: ['leads'] }, { emails: ['mia@example.com'] }]);

    // Mia decides with her own link, recorded as hers.
    const link = /Review and decide: \S+#(\S+)/.exec(mails[2]?.text ?? '')?.[1] as string;
    const decided = await request(
      `${service.url}/links/resume`,
      'POST',
      { decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] },
      { [LINK_HEADER]: link },
    );
    expect(decided.status).toBe(200);
    const settled = await request(url(`/pauses/${interruptId}`), 'GET', undefined, forPat);
    expect(settled.body.asks[0].decision.by).toMatchObject({ email: 'mia@example.com' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(forRun()).toHaveLength(3);
    await service.stop();
    hook.server.close();
    await smtp.close();
    await rm(dir, { recursive: true, force: true });
  });
});

describe('npm start: the reminder halfway through each level (§21)', () => {
  it('reminds the approvers a level added once, halfway to the next level and after the last halfway to expiresAt', async () => {
    const hook = await webhook();
    const smtp = await startSmtpCatcher();
    const service = await startService({
      HANDBACK_JWT_SECRET: JWT_SECRET,
      HANDBACK_WEBHOOK_URL: hook.url,
      HANDBACK_SWEEP_INTERVAL_MS: '200',
      HANDBACK_LINK_SECRET: 'an-answer-link-secret-of-at-least-32-bytes',
      HANDBACK_SMTP_URL: smtp.url,
      HANDBACK_EMAIL_FROM: 'Handback <handback@example.com>',
      HANDBACK_EMAIL_TO: 'desk@example.com',
      HANDBACK_ESCALATION: 'PT2S email:cfo@example.com; PT6S email:ceo@example.com',
    });
    const agent = await token({ sub: 'acme-agent' });
    const paused = await request(
      `${service.url}/runs/esc-remind/pauses`,
      'POST',
      {
        format: 'openai-chat',
        messages: approvalTranscript(),
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { subjects: ['u-ann'] } }],
        expiresInSeconds: 14,
      },
      agent,
    );
    expect(paused.status).toBe(201);
    const ours = () => hook.events.filter((event) => (event.detail as { runId: string }).runId === 'esc-remind');
    const reminders = () => ours().filter((event) => event['detail-type'] === 'Pause Reminder');
    await until(() => reminders().length >= 2 && true, 'both levels’ reminders', 20_000);
    const got = reminders().map((event) => event.detail as Record<string, unknown>);
    expect(got.map(({ toolCallId, level, approvers }) => ({ toolCallId, level, approvers }))).toEqual([
      { toolCallId: 'call_refund', level: 1, approvers: { emails: ['cfo@example.com'] } },
      { toolCallId: 'call_refund', level: 2, approvers: { emails: ['ceo@example.com'] } },
    ]);
    // Halfway: level 1 from 2 s to 6 s (at 4 s), level 2 from 6 s to expiresAt at 14 s (at 10 s); never before.
    const since = got.map((detail) => Date.parse(detail.at as string) - Date.parse(paused.body.expiresAt) + 14_000);
    expect(since[0]).toBeGreaterThanOrEqual(4_000);
    expect(since[0]).toBeLessThan(6_000);
    expect(since[1]).toBeGreaterThanOrEqual(10_000);
    expect(since[1]).toBeLessThan(14_000);
    expect(ours().map((event) => event['detail-type'])).toEqual([
      'Pause Created',
      'Pause Escalated',
      'Pause Reminder',
      'Pause Escalated',
      'Pause Reminder',
    ]);
    // Each level's approver mailed twice: the level, then its reminder; the pause's recipient once.
    const mails = await until(() => {
      const found = smtp.mails.filter((mail) => mail.subject?.endsWith('esc-remind'));
      return found.length >= 5 && found;
    }, 'the mails');
    expect(mails.map((mail) => [recipientsOf(mail)[0], mail.subject?.startsWith('Reminder: ') ?? false])).toEqual([
      ['desk@example.com', false],
      ['cfo@example.com', false],
      ['cfo@example.com', true],
      ['ceo@example.com', false],
      ['ceo@example.com', true],
    ]);
    await service.stop();
    hook.server.close();
    await smtp.close();
  });
});
