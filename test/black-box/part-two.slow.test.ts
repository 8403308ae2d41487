import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTranscript } from '../../functions/rehydrate/check-transcript.ts';
import { appendResults } from '../../functions/rehydrate/results.ts';
import { approvalTranscript } from '../../functions/testing/service-spec.ts';
import { type RunningService, request, startService, stopAll } from './service.ts';

/** Part two through `npm start`, as a person and an agent would drive it over HTTP (the README's walkthrough). */

afterAll(stopAll);

const LINK_SECRET = 'a-link-secret-of-at-least-32-bytes!!';
const ASKS = [
  { toolCallId: 'call_ask', kind: 'answer', prompt: 'Full or partial?', answerSchema: { enum: ['full', 'partial'] } },
  { toolCallId: 'call_refund', kind: 'approval', prompt: 'Refund EUR 120?' },
  { toolCallId: 'call_email', kind: 'approval', prompt: 'Send the email?' },
];

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

describe('npm start: asks, decisions by two people, and the agent going on', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startService();
  });

  it('pauses with asks, takes two people’s decisions (202, then 200 with dispatch), and the agent completes the round', async () => {
    const runId = 'order-1042';
    const paused = await request(`${service.url}/runs/${runId}/pauses`, 'POST', {
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: ASKS,
    });
    expect(paused).toMatchObject({ status: 201, body: { asks: ['call_ask', 'call_refund', 'call_email'] } });
    const { interruptId } = paused.body;
    // The first person answers the question and approves the refund with a smaller amount.
    const first = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId,
      decisions: [
        { toolCallId: 'call_ask', answer: 'partial' },
        { toolCallId: 'call_refund', decision: 'edit', args: { orderId: 'A-1042', amount: 60 } },
      ],
    });
    expect(first).toMatchObject({ status: 202, body: { pending: ['call_email'] } });
    // The second person rejects the email, with a reason.
    const second = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId,
      decisions: [{ toolCallId: 'call_email', decision: 'reject', reason: 'I will call the customer.' }],
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      outcome: 'resumed',
      dispatch: [{ toolCallId: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 60 } }],
    });
    // The agent runs what was approved, with the edited args, and appends the result without writing one by hand.
    const continuation = await request(
      `${service.url}/runs/${runId}/continuations/${second.body.continuationId}`,
      'GET',
    );
    const completed = appendResults(
      'openai-chat',
      continuation.body.messages,
      continuation.body.dispatch.map((call: { toolCallId: string; args: unknown }) => ({
        toolCallId: call.toolCallId,
        output: { refunded: (call.args as { amount: number }).amount },
      })),
    );
    expect(checkTranscript('openai-chat', completed)).toEqual([]);
    const shown = await request(`${service.url}/runs/${runId}/pauses/${interruptId}`, 'GET');
    // Each decision as recorded, with who made it (§13).
    expect(shown.body.asks.map((ask: { decision?: unknown }) => ask.decision)).toEqual([
      { answer: 'partial', by: expect.objectContaining({ kind: expect.any(String), subject: expect.any(String) }) },
      {
        decision: 'edit',
        args: { orderId: 'A-1042', amount: 60 },
        by: expect.objectContaining({ subject: expect.any(String) }),
      },
      {
        decision: 'reject',
        reason: 'I will call the customer.',
        by: expect.objectContaining({ subject: expect.any(String) }),
      },
    ]);
  });

  it('cancels a pause, and refuses a decision after it', async () => {
    const paused = await request(`${service.url}/runs/cancel-me/pauses`, 'POST', {
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: ASKS,
    });
    const { interruptId } = paused.body;
    const cancelled = await request(`${service.url}/runs/cancel-me/pauses/${interruptId}/cancel`, 'POST', {
      reason: 'The customer withdrew.',
    });
    expect(cancelled).toMatchObject({ status: 200, body: { outcome: 'cancelled', dispatch: [] } });
    const late = await request(`${service.url}/runs/cancel-me/resume`, 'POST', {
      interruptId,
      decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
    });
    expect(late).toMatchObject({ status: 410, body: { code: 'pause_cancelled' } });
  });
});

describe('npm start: expiry that acts, lifecycle events, answer links', () => {
  it('closes an onExpiry "reject" pause on its own at expiresAt, and POSTs each lifecycle event to the webhook', async () => {
    const hook = await webhook();
    const service = await startService({
      HANDBACK_WEBHOOK_URL: hook.url,
      HANDBACK_LINK_SECRET: LINK_SECRET,
      HANDBACK_SWEEP_INTERVAL_MS: '200',
    });
    const paused = await request(`${service.url}/runs/expiring/pauses`, 'POST', {
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: ASKS,
      expiresInSeconds: 4,
      remindBeforeSeconds: 2,
      onExpiry: 'reject',
    });
    expect(paused.body.answerUrl).toMatch(new RegExp(`^${service.url}/inbox#`));
    const { interruptId, expiresAt } = paused.body;
    const approved = await request(`${service.url}/runs/expiring/resume`, 'POST', {
      interruptId,
      decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
    });
    expect(approved.status).toBe(202);
    let shown: Awaited<ReturnType<typeof request>> | undefined;
    await expect
      .poll(
        async () => {
          shown = await request(`${service.url}/runs/expiring/pauses/${interruptId}`, 'GET');
          return shown.body.outcome;
        },
        { timeout: 15_000, interval: 100 },
      )
      .toBe('expired');
    const lagMs = Date.parse(shown?.body.resumedAt) - Date.parse(expiresAt);
    expect(lagMs).toBeGreaterThanOrEqual(0);
    // The local sweep runs every 200 ms here (every second by default); on a loaded machine it may take longer.
    expect(lagMs).toBeLessThan(3_000);
    const continuation = await request(
      `${service.url}/runs/expiring/continuations/${shown?.body.continuationId}`,
      'GET',
    );
    expect(continuation.body.dispatch.map((call: { toolCallId: string }) => call.toolCallId)).toEqual(['call_refund']);
    await expect
      .poll(() => hook.events.map((event) => event['detail-type']), { timeout: 5_000 })
      .toEqual(['Pause Created', 'Pause Decided', 'Pause Reminder', 'Pause Expired']);
    const created = hook.events[0]?.detail as Record<string, unknown>;
    expect(created).toMatchObject({ tenant: 'default', runId: 'expiring', interruptId, status: 'paused' });
    expect(String(created.answerUrl)).toMatch(new RegExp(`^${service.url}/inbox#`));
    await service.stop();
    hook.server.close();
  });

  it('records a pause though its webhook is down', async () => {
    const service = await startService({ HANDBACK_WEBHOOK_URL: 'http://127.0.0.1:9/down' });
    const started = Date.now();
    const paused = await request(`${service.url}/runs/no-hook/pauses`, 'POST', {
      format: 'openai-chat',
      messages: approvalTranscript(),
      toolCallId: 'call_ask',
    });
    expect(paused.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(2_000);
    await service.stop();
  });

  it('lets an answer link open and decide only its own pause, with bearer auth on and no bearer token', async () => {
    const jwtSecret = 'a-jwt-secret-of-at-least-thirty-two-bytes';
    const service = await startService({ HANDBACK_JWT_SECRET: jwtSecret, HANDBACK_LINK_SECRET: LINK_SECRET });
    const bearer = await new SignJWT({ sub: 'acme-agent', tenant: 'acme' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(jwtSecret));
    const auth = { authorization: `Bearer ${bearer}` };
    const pause = (runId: string) =>
      request(
        `${service.url}/runs/${runId}/pauses`,
        'POST',
        { format: 'openai-chat', messages: approvalTranscript(), toolCallId: 'call_ask' },
        auth,
      );
    const a = await pause('run-a');
    const b = await pause('run-b');
    const tokenA = String(a.body.answerUrl).split('#')[1] as string;
    const seen = await request(`${service.url}/links/pause`, 'GET', undefined, { 'x-handback-link': tokenA });
    expect(seen).toMatchObject({ status: 200, body: { runId: 'run-a', interruptId: a.body.interruptId } });
    const listed = await request(`${service.url}/pauses`, 'GET', undefined, { 'x-handback-link': tokenA });
    expect(listed.status).toBe(401);
    const other = await request(`${service.url}/runs/run-b/pauses/${b.body.interruptId}`, 'GET', undefined, {
      'x-handback-link': tokenA,
    });
    expect(other.status).toBe(401);
    const inQuery = await request(`${service.url}/links/pause?token=${tokenA}`, 'GET');
    expect(inQuery.status).toBe(401);
    const decided = await request(
      `${service.url}/links/resume`,
      'POST',
      { answer: 'yes' },
      { 'x-handback-link': tokenA },
    );
    expect(decided).toMatchObject({ status: 200, body: { runId: 'run-a', outcome: 'resumed' } });
    const closed = await request(`${service.url}/links/pause`, 'GET', undefined, { 'x-handback-link': tokenA });
    expect(closed).toMatchObject({ status: 410, body: { code: 'link_closed' } });
    const stillOpen = await request(`${service.url}/runs/run-b/pauses/${b.body.interruptId}`, 'GET', undefined, auth);
    expect(stillOpen.body.status).toBe('paused');
    await service.stop();
  });
});

describe('npm run demo', () => {
  it('shows two people deciding a round and the agent going on with the edited refund', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'functions/local/demo.ts'], {
      cwd: new URL('../..', import.meta.url),
      timeout: 60_000,
    });
    expect(stdout).toContain('alice  POST');
    expect(stdout).toMatch(/bob {4}POST \/runs\/demo-\d+\/resume → 200/);
    expect(stdout).toContain('#call_refund → refunded EUR 60 on order A-1042');
    expect(stdout).toContain('I did not email the customer: Bob will call the customer instead.');
  });
});
