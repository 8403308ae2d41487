import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import { StorageUnavailableError } from '../../functions/errors.ts';
import { type ApiEvent, createApiHandler } from '../../functions/handlers/http-api.ts';
import { INBOX_ROUTES } from '../../functions/handlers/inbox-http.ts';
import openapi from '../../functions/handlers/openapi.json' with { type: 'json' };
import { isBearer, ROUTES } from '../../functions/handlers/routes.ts';
import { createHandoff, type Handoff } from '../../functions/handoff/handoff.ts';
import * as target from '../../functions/handoff/target.ts';
import { type AnswerLinks, createAnswerLinks } from '../../functions/links/answer-links.ts';
import type { PolicyEngine } from '../../functions/policies/engine.ts';
import { NOT_DISPATCHED } from '../../functions/rehydrate/rehydrate.ts';
import { SCOPES } from '../../functions/vocabulary.ts';
import { engineOf } from '../policies/support.ts';
import { httpEvent, lambdaContext, pauseBody, pausedTurn } from './events.ts';
import { useStoreTable } from './store.ts';
import { testTelemetry } from './telemetry.ts';

const table = useStoreTable();
const sqsMock = mockClient(SQSClient);
const sqs = new SQSClient({ region: 'eu-west-1' });
/** (method path-template) → statuses seen, to hold the OpenAPI document to exactly what the handler answers. */
const seen = new Map<string, Set<number>>();
const templates = Object.keys(openapi.paths).map((template) => ({
  template,
  regexp: new RegExp(`^${template.replace(/\{[^/]+\}/g, '[^/]+')}$`),
}));

beforeEach(() => {
  sqsMock.reset();
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm' });
});

function api(
  options: {
    store?: CheckpointStore;
    handoff?: Handoff;
    tenantClaim?: string;
    links?: AnswerLinks;
    requireScopes?: boolean;
    policies?: () => Promise<PolicyEngine>;
  } = {},
) {
  const telemetry = testTelemetry();
  const handoff =
    options.handoff ??
    createHandoff({ target: 'sqs', queueUrl: 'https://sqs/next' }, { sqs, targetModule: target }, telemetry.logger);
  const handler = createApiHandler({
    store: options.store ?? table.store(),
    handoff,
    claims: table.claims(),
    ...telemetry,
    ...(options.tenantClaim ? { tenantClaim: options.tenantClaim } : {}),
    ...(options.links ? { links: options.links } : {}),
    ...(options.requireScopes ? { requireScopes: true } : {}),
    ...(options.policies ? { policies: options.policies } : {}),
  });
  return {
    telemetry,
    async call(event: ApiEvent) {
      const result = await handler(event, lambdaContext());
      const method = event.requestContext.http.method;
      const template = templates.find((t) => t.regexp.test(event.requestContext.http.path));
      const key = template ? `${method} ${template.template}` : 'unrouted';
      seen.set(key, (seen.get(key) ?? new Set()).add(result.statusCode ?? 0));
      const contentType = result.headers?.['Content-Type'];
      return {
        status: result.statusCode,
        headers: result.headers ?? {},
        contentType,
        // biome-ignore lint/suspicious/noExplicitAny: responses are read as loose JSON in the tests
        body: JSON.parse(String(result.body)) as Record<string, any>,
      };
    },
  };
}

let runSeq = 0;
const newRun = () => `run.${Date.now()}:${++runSeq}`;

async function paused(
  call: ReturnType<typeof api>['call'],
  overrides: Record<string, unknown> = {},
  claims?: Record<string, string>,
) {
  const runId = newRun();
  const response = await call(
    httpEvent('POST', `/runs/${runId}/pauses`, { body: pauseBody(overrides), ...(claims ? { claims } : {}) }),
  );
  expect(response.status).toBe(201);
  return { runId, interruptId: response.body.interruptId as string, response };
}

describe('the HTTP API handler', () => {
  it('answers GET /health without a token', async () => {
    const { call } = api();
    const response = await call(httpEvent('GET', '/health', { claims: null }));
    expect(response).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('serves its OpenAPI document without a token', async () => {
    const { call } = api();
    const response = await call(httpEvent('GET', '/openapi.json', { claims: null }));
    expect(response.status).toBe(200);
    expect(response.body).toEqual(openapi);
  });

  it('records a pause: 201 with the body of §5 and a Location header', async () => {
    const { call, telemetry } = api();
    const { runId, interruptId, response } = await paused(call, { metadata: { ticket: 'SUP-7' } });
    expect(response.body).toEqual({
      runId,
      interruptId,
      toolCallId: 'call_ask',
      asks: ['call_ask'],
      status: 'paused',
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(interruptId).toMatch(/^[A-Za-z0-9._-]{22,}$/);
    expect(response.headers.Location).toBe(`/runs/${runId}/pauses/${interruptId}`);
    expect(telemetry.metricNames()).toEqual(expect.arrayContaining(['Pauses', 'PauseBytes']));
  });

  it('refuses a second open pause on the run with 409 open_pause_exists', async () => {
    const { call } = api();
    const { runId } = await paused(call);
    const response = await call(httpEvent('POST', `/runs/${runId}/pauses`, { body: pauseBody() }));
    expect(response).toMatchObject({
      status: 409,
      contentType: 'application/problem+json',
      body: { code: 'open_pause_exists', status: 409 },
    });
  });

  it.each([
    ['a bad runId', '/runs/bad$run/pauses', pauseBody(), 'runId'],
    ['a missing toolCallId', '/runs/r1/pauses', { format: 'openai-chat', messages: pausedTurn() }, 'toolCallId'],
    ['an unknown format', '/runs/r1/pauses', pauseBody({ format: 'cohere' }), 'format'],
    ['expiresInSeconds out of range', '/runs/r1/pauses', pauseBody({ expiresInSeconds: 0 }), 'expiresInSeconds'],
    ['metadata over 4 KB', '/runs/r1/pauses', pauseBody({ metadata: { note: 'x'.repeat(5000) } }), 'metadata'],
    [
      'an answerSchema that is not JSON Schema',
      `/runs/${newRun()}/pauses`,
      pauseBody({ answerSchema: { type: 'nope' } }),
      'answerSchema',
    ],
  ])('answers 400 bad_request naming the field for %s', async (_case, path, body, field) => {
    const { call } = api();
    const response = await call(httpEvent('POST', path, { body }));
    expect(response).toMatchObject({
      status: 400,
      contentType: 'application/problem+json',
      body: { code: 'bad_request' },
    });
    expect(response.body.detail).toContain(field);
    expect(response.body).toMatchObject({ type: expect.any(String), title: 'Bad request', status: 400 });
  });

  it('answers 400 bad_request for malformed JSON', async () => {
    const { call } = api();
    const response = await call(httpEvent('POST', '/runs/r1/pauses', { rawBody: '{"format": ' }));
    expect(response).toMatchObject({ status: 400, body: { code: 'bad_request', title: 'Bad request' } });
  });

  it('answers 415 unsupported_media_type for a body that is not JSON', async () => {
    const { call } = api();
    const response = await call(
      httpEvent('POST', '/runs/r1/pauses', { rawBody: 'format=openai-chat', contentType: 'text/plain' }),
    );
    expect(response).toMatchObject({
      status: 415,
      contentType: 'application/problem+json',
      body: { code: 'unsupported_media_type' },
    });
  });

  it.each(['APPLICATION/JSON', 'application/json ; charset=utf-8', 'application/json;', 'application/vnd.api+json'])(
    'takes a JSON body sent as %s (media types are case-insensitive)',
    async (contentType) => {
      const { call } = api();
      const response = await call(
        httpEvent('POST', `/runs/ct-${randomUUID()}/pauses`, { body: pauseBody(), contentType }),
      );
      expect(response.status).toBe(201);
    },
  );

  it('answers 400 bad_request, not a 500, for JSON nested deeper than 256 levels', async () => {
    const { call } = api();
    const deep = `${'['.repeat(8000)}${']'.repeat(8000)}`;
    const response = await call(
      httpEvent('POST', '/runs/r1/resume', { rawBody: `{"interruptId":"1.abc","answer":${deep}}` }),
    );
    expect(response).toMatchObject({
      status: 400,
      body: { code: 'bad_request', detail: expect.stringMatching(/256 levels/) },
    });
  });

  it('returns metadata as given, an own "__proto__" key included', async () => {
    const { call } = api();
    const runId = `proto-${randomUUID()}`;
    const rawBody = JSON.stringify(pauseBody()).replace(/}$/, ',"metadata":{"__proto__":{"x":1},"a":1}}');
    const created = await call(httpEvent('POST', `/runs/${runId}/pauses`, { rawBody }));
    const shown = await call(httpEvent('GET', `/runs/${runId}/pauses/${created.body.interruptId}`));
    expect(JSON.stringify(shown.body.metadata)).toBe('{"__proto__":{"x":1},"a":1}');
  });

  it('answers 413 payload_too_large for a pause body over 6 MB', async () => {
    const { call } = api();
    const body = pauseBody({ messages: [{ role: 'user', content: 'x'.repeat(6 * 1024 * 1024) }, ...pausedTurn()] });
    const response = await call(httpEvent('POST', '/runs/r1/pauses', { body }));
    expect(response).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
  });

  it('answers 400 invalid_transcript naming the rule when toolCallId is not a reserved call', async () => {
    const { call } = api();
    const response = await call(
      httpEvent('POST', `/runs/${newRun()}/pauses`, { body: pauseBody({ toolCallId: 'call_nope' }) }),
    );
    expect(response).toMatchObject({ status: 400, body: { code: 'invalid_transcript' } });
    expect(response.body.detail).toContain('call_nope');
  });

  it('answers 401 unauthorized when the authorizer has no tenant claim', async () => {
    const { call } = api();
    for (const claims of [null, { sub: 'user-1' }]) {
      const response = await call(httpEvent('POST', '/runs/r1/pauses', { body: pauseBody(), claims }));
      expect(response).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
      expect(response.headers['WWW-Authenticate']).toBe('Bearer');
    }
  });

  it('reads the tenant from the configured claim', async () => {
    const { call } = api({ tenantClaim: 'custom:org' });
    const runId = newRun();
    const created = await call(
      httpEvent('POST', `/runs/${runId}/pauses`, {
        body: pauseBody(),
        claims: { 'custom:org': 'org-9', sub: 'user-1' },
      }),
    );
    expect(created.status).toBe(201);
    const other = await call(
      httpEvent('GET', `/runs/${runId}/pauses/${created.body.interruptId}`, {
        claims: { 'custom:org': 'org-8', sub: 'user-1' },
      }),
    );
    expect(other).toMatchObject({ status: 404, body: { code: 'pause_not_found' } });
  });

  it('shows a pause without its messages, and with them on ?include=messages', async () => {
    const { call } = api();
    const { runId, interruptId } = await paused(call, {
      answerSchema: { type: 'string' },
      metadata: { ticket: 'SUP-7' },
    });
    const shown = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`));
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      runId,
      interruptId,
      status: 'paused',
      toolCall: { id: 'call_ask', name: 'ask_human' },
      prompt: 'Refund A-1042?',
      answerSchema: { type: 'string' },
      metadata: { ticket: 'SUP-7' },
    });
    expect(shown.body).not.toHaveProperty('messages');
    const full = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}?include=messages`));
    expect(full.body.messages).toEqual(pausedTurn());
    const slice = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}?include=messages&from=1&limit=1`));
    expect(slice.body).toMatchObject({ messages: [pausedTurn()[1]], from: 1, total: 3, next: 2 });
  });

  it("answers 404 pause_not_found for another tenant's pause, as for an unknown one", async () => {
    const { call } = api();
    const { runId, interruptId } = await paused(call);
    const theirs = await call(
      httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`, { claims: { tenant: 'globex', sub: 'user-2' } }),
    );
    const unknown = await call(httpEvent('GET', `/runs/${runId}/pauses/AAAAAAAAAAAAAAAAAAAAAA`));
    expect(theirs).toMatchObject({ status: 404, body: { code: 'pause_not_found' } });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'pause_not_found' } });
    expect(Object.keys(theirs.body).sort()).toEqual(Object.keys(unknown.body).sort());
    const resumeTheirs = await call(
      httpEvent('POST', `/runs/${runId}/resume`, {
        body: { interruptId, answer: 'x' },
        claims: { tenant: 'globex', sub: 'user-2' },
      }),
    );
    expect(resumeTheirs).toMatchObject({ status: 404, body: { code: 'pause_not_found' } });
  });

  it('resumes once, replays the same answer, refuses another with 409 carrying the continuationId, and hands off each success', async () => {
    const { call, telemetry } = api();
    const { runId, interruptId } = await paused(call);
    const first = await call(
      httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: { approve: true, note: 'ok' } } }),
    );
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      runId,
      interruptId,
      continuationId: expect.any(String),
      format: 'openai-chat',
      outcome: 'resumed',
      dispatch: [],
      messages: [
        ...pausedTurn(),
        { role: 'tool', tool_call_id: 'call_lookup', content: NOT_DISPATCHED },
        { role: 'tool', tool_call_id: 'call_ask', content: '{"approve":true,"note":"ok"}' },
        { role: 'tool', tool_call_id: 'call_notify', content: NOT_DISPATCHED },
      ],
      resumedAt: expect.any(String),
    });
    const again = await call(
      httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: { note: 'ok', approve: true } } }),
    );
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const other = await call(
      httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: { approve: false } } }),
    );
    expect(other).toMatchObject({
      status: 409,
      body: { code: 'already_resumed', continuationId: first.body.continuationId },
    });

    const pointer = JSON.stringify({
      runId,
      interruptId,
      continuationId: first.body.continuationId,
      format: 'openai-chat',
      outcome: 'resumed',
      dispatch: [],
      messages: first.body.messages,
    });
    expect(sqsMock.commandCalls(SendMessageCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: 'https://sqs/next', MessageBody: pointer },
      { QueueUrl: 'https://sqs/next', MessageBody: pointer },
    ]);
    expect(telemetry.metricNames()).toEqual(
      expect.arrayContaining(['ResumeLatency', 'Resumes', 'ResumesReplayed', 'ResumeConflicts']),
    );
    const shown = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`));
    expect(shown.body).toMatchObject({
      status: 'resumed',
      continuationId: first.body.continuationId,
      resumedAt: first.body.resumedAt,
    });
  });

  it('never logs the answer or the transcript', async () => {
    const { call, telemetry } = api();
    const { runId, interruptId } = await paused(call);
    await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'the secret answer' } }));
    const lines = JSON.stringify([
      ...telemetry.logged.info.mock.calls,
      ...telemetry.logged.warn.mock.calls,
      ...telemetry.logged.error.mock.calls,
    ]);
    expect(lines).toContain(interruptId);
    expect(lines).not.toContain('the secret answer');
    expect(lines).not.toContain('refund order A-1042');
  });

  it('answers 422 invalid_answer listing the failures when the answer fails the schema', async () => {
    const { call } = api();
    const { runId, interruptId } = await paused(call, { answerSchema: { type: 'object', required: ['approve'] } });
    const response = await call(
      httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: { nope: 1 } } }),
    );
    expect(response).toMatchObject({ status: 422, body: { code: 'invalid_answer', failures: expect.any(Array) } });
    expect(response.body.failures.length).toBeGreaterThan(0);
  });

  it('answers 410 pause_expired for a pause unanswered past expiresAt', async () => {
    let now = Date.now();
    const store = table.store(() => new Date(now));
    const { call } = api({ store });
    const { runId, interruptId } = await paused(call, { expiresInSeconds: 60 });
    now += 61_000;
    const response = await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'late' } }));
    expect(response).toMatchObject({ status: 410, body: { code: 'pause_expired' } });
    const shown = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`));
    expect(shown.body.status).toBe('expired');
  });

  it.each([
    ['a missing answer', { interruptId: 'AAAAAAAAAAAAAAAAAAAAAA' }, 'answer'],
    ['a missing interruptId', { answer: 1 }, 'interruptId'],
  ])('answers 400 bad_request for %s in a resume', async (_case, body, field) => {
    const { call } = api();
    const response = await call(httpEvent('POST', '/runs/r1/resume', { body }));
    expect(response).toMatchObject({ status: 400, body: { code: 'bad_request' } });
    expect(response.body.detail).toContain(field);
  });

  it('answers 413 payload_too_large for an answer over 256 KB, and 415 for a resume that is not JSON', async () => {
    const { call } = api();
    const big = await call(
      httpEvent('POST', '/runs/r1/resume', {
        body: { interruptId: 'AAAAAAAAAAAAAAAAAAAAAA', answer: 'x'.repeat(256 * 1024) },
      }),
    );
    expect(big).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
    const text = await call(httpEvent('POST', '/runs/r1/resume', { rawBody: 'yes', contentType: 'text/plain' }));
    expect(text).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
  });

  it('reads a continuation, whole or in slices with total, and 404s an unknown one', async () => {
    const { call } = api();
    const { runId, interruptId } = await paused(call);
    const resumed = await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'yes' } }));
    const path = `/runs/${runId}/continuations/${resumed.body.continuationId}`;
    const whole = await call(httpEvent('GET', path));
    expect(whole).toMatchObject({ status: 200, body: resumed.body });
    const slice = await call(httpEvent('GET', `${path}?from=4&limit=10`));
    expect(slice.body).toMatchObject({ from: 4, total: 6, messages: resumed.body.messages.slice(4) });
    expect(slice.body).not.toHaveProperty('next');
    const unknown = await call(httpEvent('GET', `/runs/${runId}/continuations/nope`));
    expect(unknown).toMatchObject({ status: 404, body: { code: 'continuation_not_found' } });
    const badQuery = await call(httpEvent('GET', `${path}?from=-1`));
    expect(badQuery).toMatchObject({ status: 400, body: { code: 'bad_request' } });
  });

  it('leaves messages out past 5 MB and serves them in slices that fit', async () => {
    const { call } = api();
    const chunk = 'y'.repeat(1024 * 1024);
    const messages = [
      ...Array.from({ length: 5 }, (_, i) => ({ role: 'user', content: `${i}${chunk}` })),
      ...pausedTurn(),
    ];
    const { runId, interruptId } = await paused(call, { messages });
    const full = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}?include=messages`));
    expect(full.body).toMatchObject({ messagesOmitted: true, total: messages.length });
    expect(full.body).not.toHaveProperty('messages');
    const resumed = await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'yes' } }));
    expect(resumed).toMatchObject({ status: 200, body: { messagesOmitted: true, continuationId: expect.any(String) } });
    expect(resumed.body).not.toHaveProperty('messages');
    const path = `/runs/${runId}/continuations/${resumed.body.continuationId}`;
    const collected: unknown[] = [];
    let from = 0;
    for (let page = 0; page < 10 && from !== undefined; page++) {
      const slice = await call(httpEvent('GET', `${path}?from=${from}&limit=100`));
      expect(slice.body.total).toBe(11);
      collected.push(...slice.body.messages);
      from = slice.body.next;
    }
    expect(collected).toHaveLength(11);
    expect(collected[0]).toEqual(messages[0]);
    // The SQS pointer carries no messages when they do not fit 256 KB.
    const body = JSON.parse(String(sqsMock.commandCalls(SendMessageCommand)[0]?.args[0].input.MessageBody));
    expect(body).toEqual({
      runId,
      interruptId,
      continuationId: resumed.body.continuationId,
      format: 'openai-chat',
      outcome: 'resumed',
      dispatch: [],
    });
  });

  it('serves one message too big for a 5 MB slice alone, within what a Lambda response can carry', async () => {
    const { call } = api();
    const messages = [{ role: 'user', content: 'z'.repeat(5.5 * 1024 * 1024) }, ...pausedTurn()];
    const { runId, interruptId } = await paused(call, { messages });
    const slice = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}?include=messages&from=0&limit=5`));
    expect(slice.body).toMatchObject({ from: 0, total: messages.length, next: 1, messages: [messages[0]] });
    expect(Buffer.byteLength(JSON.stringify(slice.body))).toBeLessThan(6 * 1024 * 1024);
  });

  it("lists the tenant's pauses newest first, by status, paginated", async () => {
    const { call } = api();
    const tenant = { tenant: `lister-${Date.now()}`, sub: 'user-1' };
    const a = await paused(call, {}, tenant);
    const b = await paused(call, {}, tenant);
    await call(
      httpEvent('POST', `/runs/${a.runId}/resume`, {
        body: { interruptId: a.interruptId, answer: 'ok' },
        claims: tenant,
      }),
    );
    const all = await call(httpEvent('GET', '/pauses', { claims: tenant }));
    expect(all.status).toBe(200);
    expect(all.body.items.map((item: { interruptId: string }) => item.interruptId)).toEqual([
      b.interruptId,
      a.interruptId,
    ]);
    const open = await call(httpEvent('GET', '/pauses?status=paused', { claims: tenant }));
    expect(open.body.items.map((item: { runId: string }) => item.runId)).toEqual([b.runId]);
    const first = await call(httpEvent('GET', '/pauses?limit=1', { claims: tenant }));
    expect(first.body.items).toHaveLength(1);
    const second = await call(
      httpEvent('GET', `/pauses?limit=1&cursor=${encodeURIComponent(first.body.cursor)}`, { claims: tenant }),
    );
    expect(second.body.items[0].interruptId).toBe(a.interruptId);
    for (const query of ['limit=101', 'limit=0', 'status=open']) {
      const bad = await call(httpEvent('GET', `/pauses?${query}`, { claims: tenant }));
      expect(bad).toMatchObject({ status: 400, body: { code: 'bad_request' } });
    }
  });

  it("answers GET /stats with the tenant's asks of the window, and 400 naming the field of a bad window", async () => {
    const { call } = api();
    const tenant = { tenant: `stats-${Date.now()}`, sub: 'user-1' };
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const a = await paused(call, {}, tenant);
    await paused(call, {}, tenant);
    await call(
      httpEvent('POST', `/runs/${a.runId}/resume`, {
        body: { interruptId: a.interruptId, answer: 'ok' },
        claims: tenant,
      }),
    );
    const window = `since=${encodeURIComponent(since)}&until=${encodeURIComponent(until)}`;
    const stats = await call(httpEvent('GET', `/stats?${window}`, { claims: tenant }));
    expect(stats).toMatchObject({ status: 200, body: { since, until } });
    expect(stats.body.tools).toHaveLength(1);
    expect(stats.body.tools[0]).toMatchObject({
      outcomes: { approve: 1, edit: 0, reject: 0, expired: 0, cancelled: 0, policy: 0 },
      pending: 1,
      oldestPendingSeconds: expect.any(Number),
    });
    const other = await call(
      httpEvent('GET', `/stats?${window}`, { claims: { tenant: `${tenant.tenant}-b`, sub: 'u' } }),
    );
    expect(other).toMatchObject({ status: 200, body: { tools: [] } });
    const longer = new Date(Date.parse(since) + 32 * 86_400_000).toISOString();
    for (const [query, pointer] of [
      [`since=${encodeURIComponent(since)}&until=${encodeURIComponent(longer)}`, '/until'],
      [`since=${encodeURIComponent(until)}&until=${encodeURIComponent(since)}`, '/since'],
      [`until=${encodeURIComponent(until)}`, '/since'],
      [`since=yesterday&until=${encodeURIComponent(until)}`, '/since'],
    ] as const) {
      const bad = await call(httpEvent('GET', `/stats?${query}`, { claims: tenant }));
      expect(bad).toMatchObject({ status: 400, body: { code: 'bad_request' } });
      expect(JSON.stringify(bad.body)).toContain(pointer);
    }
  });

  it('answers 404 not_found for an unknown route and 405 method_not_allowed with Allow for a known one, without claims too (the $default route)', async () => {
    const { call } = api();
    const unknown = await call(httpEvent('GET', '/nope', { claims: null }));
    expect(unknown).toMatchObject({
      status: 404,
      contentType: 'application/problem+json',
      body: { code: 'not_found' },
    });
    const wrong = await call(httpEvent('DELETE', '/runs/r1/pauses', { claims: null }));
    expect(wrong).toMatchObject({ status: 405, body: { code: 'method_not_allowed' } });
    expect(wrong.headers.Allow).toBe('POST');
    const wrongGet = await call(httpEvent('PUT', '/runs/r1/pauses/abc'));
    expect(wrongGet.headers.Allow).toBe('GET');
  });

  it('answers a generic 500 with a request id that reveals nothing of an unexpected error', async () => {
    const broken: CheckpointStore = {
      ...table.store(),
      getPause: async () => {
        throw new Error('ECONNRESET at 10.0.0.7 secret-table');
      },
    };
    const { call } = api({ store: broken });
    const event = httpEvent('GET', '/runs/r1/pauses/abc');
    const response = await call(event);
    expect(response).toMatchObject({
      status: 500,
      contentType: 'application/problem+json',
      body: { code: 'internal_error', requestId: event.requestContext.requestId },
    });
    expect(JSON.stringify(response.body)).not.toMatch(/ECONNRESET|secret-table|10\.0\.0\.7/);
  });

  const everyTenantRoute: Array<[string, string, unknown]> = [
    ['POST', '/runs/r1/pauses', pauseBody()],
    ['GET', '/runs/r1/pauses/1.1.AAAAAAAAAAAAAAAAAAAAAA', undefined],
    ['POST', '/runs/r1/pauses/1.1.AAAAAAAAAAAAAAAAAAAAAA/cancel', {}],
    ['POST', '/runs/r1/resume', { interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA', answer: 'yes' }],
    ['GET', '/runs/r1/continuations/1.1.AAAAAAAAAAAAAAAAAAAAAA', undefined],
    ['GET', '/pauses', undefined],
    ['POST', '/runs/r1/pauses/1.1.AAAAAAAAAAAAAAAAAAAAAA/claim', { claimant: 'run-a' }],
    ['POST', '/runs/r1/continuations/1.1.AAAAAAAAAAAAAAAAAAAAAA/executions', { toolCallId: 'call_1' }],
    ['PUT', '/runs/r1/continuations/1.1.AAAAAAAAAAAAAAAAAAAAAA/executions/call_1', { status: 'succeeded' }],
    ['GET', '/stats?since=2026-03-01T00:00:00Z&until=2026-03-02T00:00:00Z', undefined],
  ];

  /** A store whose every method fails with `error`. */
  const brokenStore = (error: () => Error): CheckpointStore => {
    const failing = async () => {
      throw error();
    };
    return {
      pause: failing,
      resume: failing,
      decide: failing,
      cancel: failing,
      getPause: failing,
      getContinuation: failing,
      listPauses: failing,
      closeDue: failing,
      acknowledgeHandoff: failing,
      claimExecution: failing,
      finishExecution: failing,
      stats: failing,
      countPending: failing,
    };
  };

  it.each(everyTenantRoute)(
    'answers %s %s with 401 without a token, a generic 500 when the store fails, a 503 when it does not answer',
    async (method, path, body) => {
      const { call } = api({ store: brokenStore(() => new Error('socket hang up')) });
      const anonymous = await call(httpEvent(method, path, { body, claims: null }));
      expect(anonymous).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
      const failed = await call(httpEvent(method, path, { body }));
      expect(failed).toMatchObject({ status: 500, body: { code: 'internal_error', requestId: expect.any(String) } });
      expect(failed.body.detail).not.toContain('socket');
      const slow = api({ store: brokenStore(() => new StorageUnavailableError()) });
      const unavailable = await slow.call(httpEvent(method, path, { body }));
      expect(unavailable).toMatchObject({ status: 503, body: { code: 'storage_unavailable' } });
      expect(unavailable.headers['Retry-After']).toBe('1');
    },
  );

  it.each([
    ['GET', '/links/pause', undefined],
    ['POST', '/links/resume', { answer: 'yes' }],
  ])(
    'answers %s %s with a generic 500 when the store fails, a 503 when it does not answer',
    async (method, path, body) => {
      const links = createAnswerLinks(new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!'));
      const url = await links.linkFor(
        {
          tenant: 'acme',
          runId: 'r1',
          interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA',
          expiresAt: '2099-01-01T00:00:00.000Z',
        },
        'https://x/inbox',
      );
      const headers = { 'x-handback-link': url.slice(url.indexOf('#') + 1) };
      for (const [error, status] of [
        [() => new Error('socket hang up'), 500],
        [() => new StorageUnavailableError(), 503],
      ] as const) {
        const { call } = api({ store: brokenStore(error), links });
        const response = await call(httpEvent(method, path, { body, claims: null, headers }));
        expect(response.status).toBe(status);
      }
    },
  );

  it('answers every refusal of an answer link’s decision in words, each with its status', async () => {
    const links = createAnswerLinks(new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!'));
    const { call } = api({ links });
    const asks = [
      { toolCallId: 'call_ask', kind: 'answer', answerSchema: { type: 'boolean' } },
      { toolCallId: 'call_notify', kind: 'approval' },
    ];
    const { response } = await paused(call, { toolCallId: undefined, prompt: undefined, asks });
    const link = { 'x-handback-link': String(response.body.answerUrl).split('#')[1] as string };
    const send = (body: unknown, options: { rawBody?: string; contentType?: string } = {}) =>
      call(httpEvent('POST', '/links/resume', { claims: null, headers: link, body, ...options }));
    expect(await send({ decisions: [{ toolCallId: 'call_notify', decision: 'approve' }] })).toMatchObject({
      status: 202,
      body: { pending: ['call_ask'] },
    });
    expect(await send({ decisions: [{ toolCallId: 'call_notify', decision: 'reject' }] })).toMatchObject({
      status: 409,
      body: { code: 'already_decided' },
    });
    expect(await send({ decisions: [{ toolCallId: 'call_ask', answer: 'maybe' }] })).toMatchObject({
      status: 422,
      body: { code: 'invalid_answer' },
    });
    expect(await send({ answer: true, decisions: [] })).toMatchObject({ status: 400, body: { code: 'bad_request' } });
    expect(await send(undefined, { rawBody: 'yes', contentType: 'text/plain' })).toMatchObject({ status: 415 });
    expect(await send({ answer: 'x'.repeat(1024 * 1024 + 1) })).toMatchObject({ status: 413 });
    expect(await call(httpEvent('POST', '/links/resume', { claims: null, body: { answer: true } }))).toMatchObject({
      status: 401,
    });
    expect(await send({ decisions: [{ toolCallId: 'call_ask', answer: true }] })).toMatchObject({ status: 200 });
    expect(await send({ decisions: [{ toolCallId: 'call_ask', answer: true }] })).toMatchObject({
      status: 410,
      body: { code: 'link_closed' },
    });
    const unlinked = api();
    const none = await unlinked.call(
      httpEvent('POST', '/links/resume', { claims: null, headers: link, body: { answer: 1 } }),
    );
    expect(none).toMatchObject({ status: 404 });
    const badSlice = await call(
      httpEvent('GET', '/links/pause?include=messages&from=-1', { claims: null, headers: link }),
    );
    expect(badSlice.status).toBe(410);
  });

  it('answers a cancel of an expired pause with 410, of a body too large with 413, of a text body with 415', async () => {
    let now = Date.now();
    const store = table.store(() => new Date(now));
    const { call } = api({ store });
    const { runId, interruptId } = await paused(call, { expiresInSeconds: 60 });
    const path = `/runs/${runId}/pauses/${interruptId}/cancel`;
    expect(await call(httpEvent('POST', path, { rawBody: 'no', contentType: 'text/plain' }))).toMatchObject({
      status: 415,
    });
    expect(await call(httpEvent('POST', path, { body: { reason: 'x'.repeat(1024 * 1024) } }))).toMatchObject({
      status: 413,
    });
    now += 61_000;
    expect(await call(httpEvent('POST', path, { body: {} }))).toMatchObject({
      status: 410,
      body: { code: 'pause_expired' },
    });
  });

  it('answers 400 on the answer-link route for a bad slice of an open pause', async () => {
    const links = createAnswerLinks(new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!'));
    const { call } = api({ links });
    const { response } = await paused(call);
    const link = { 'x-handback-link': String(response.body.answerUrl).split('#')[1] as string };
    const bad = await call(httpEvent('GET', '/links/pause?include=messages&from=-1', { claims: null, headers: link }));
    expect(bad).toMatchObject({ status: 400, body: { code: 'bad_request' } });
  });

  it('answers 400 bad_request for a bad slice of a pause', async () => {
    const { call } = api();
    const response = await call(httpEvent('GET', '/runs/r1/pauses/abc?include=messages&limit=0'));
    expect(response).toMatchObject({ status: 400, body: { code: 'bad_request' } });
    expect(response.body.detail).toContain('limit');
  });

  it('answers 503 handoff_failed with the continuationId when the hand-off fails, and a retry delivers', async () => {
    const { call } = api();
    const { runId, interruptId } = await paused(call);
    sqsMock.on(SendMessageCommand).rejectsOnce(new Error('ThrottlingException')).resolves({});
    const failed = await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'yes' } }));
    expect(failed).toMatchObject({ status: 503, body: { code: 'handoff_failed', continuationId: expect.any(String) } });
    const retried = await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'yes' } }));
    expect(retried).toMatchObject({ status: 200, body: { continuationId: failed.body.continuationId } });
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(2);
  });

  describe('asks and decisions (§9)', () => {
    const asks = [
      { toolCallId: 'call_ask', kind: 'answer', prompt: 'Refund?', answerSchema: { type: 'boolean' } },
      {
        toolCallId: 'call_lookup',
        kind: 'approval',
        argsSchema: { type: 'object', properties: { orderId: { type: 'string', pattern: '^A-' } } },
      },
      { toolCallId: 'call_notify', kind: 'approval', editable: false },
    ];
    const withAsks = (call: ReturnType<typeof api>['call']) =>
      paused(call, { toolCallId: undefined, prompt: undefined, asks });

    it('answers 202 with what is decided and pending, then 200 with the continuation and its dispatch', async () => {
      const { call } = api();
      const { runId, interruptId, response } = await withAsks(call);
      expect(response.body.asks).toEqual(['call_ask', 'call_lookup', 'call_notify']);
      const first = await call(
        httpEvent('POST', `/runs/${runId}/resume`, {
          body: { interruptId, decisions: [{ toolCallId: 'call_lookup', decision: 'edit', args: { orderId: 'A-7' } }] },
          claims: { tenant: 'acme', sub: 'person-1' },
        }),
      );
      expect(first).toMatchObject({
        status: 202,
        body: { runId, interruptId, status: 'paused', decided: ['call_lookup'], pending: ['call_ask', 'call_notify'] },
      });
      const last = await call(
        httpEvent('POST', `/runs/${runId}/resume`, {
          body: {
            interruptId,
            decisions: [
              { toolCallId: 'call_ask', answer: true },
              { toolCallId: 'call_notify', decision: 'reject', reason: 'Quiet.' },
            ],
          },
          claims: { tenant: 'acme', sub: 'person-2' },
        }),
      );
      expect(last.status).toBe(200);
      expect(last.body).toMatchObject({
        outcome: 'resumed',
        dispatch: [{ toolCallId: 'call_lookup', name: 'lookup_order', args: { orderId: 'A-7' } }],
      });
      const shown = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`));
      expect(shown.body.asks[1]).toMatchObject({
        args: { orderId: 'A-1042' },
        decision: { decision: 'edit', args: { orderId: 'A-7' } },
        decidedAt: expect.any(String),
      });
      expect(shown.body).toMatchObject({
        status: 'resumed',
        outcome: 'resumed',
        continuationId: last.body.continuationId,
      });
      expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(1);
    });

    it('answers 409 already_decided naming the ask for a different decision, and replays the same one', async () => {
      const { call } = api();
      const { runId, interruptId } = await withAsks(call);
      const decide = (decision: Record<string, unknown>) =>
        call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, decisions: [decision] } }));
      expect((await decide({ toolCallId: 'call_notify', decision: 'approve' })).status).toBe(202);
      expect(await decide({ toolCallId: 'call_notify', decision: 'approve' })).toMatchObject({
        status: 202,
        body: { decided: ['call_notify'] },
      });
      expect(await decide({ toolCallId: 'call_notify', decision: 'reject' })).toMatchObject({
        status: 409,
        body: { code: 'already_decided', toolCallId: 'call_notify' },
      });
    });

    it.each([
      ['a decision of the wrong kind', { toolCallId: 'call_ask', decision: 'approve' }, 400, 'bad_request'],
      [
        'a decision for a call that is not an ask',
        { toolCallId: 'call_nope', decision: 'approve' },
        400,
        'bad_request',
      ],
      ['an answer failing its answerSchema', { toolCallId: 'call_ask', answer: 'yes' }, 422, 'invalid_answer'],
      [
        'edited args failing their argsSchema',
        { toolCallId: 'call_lookup', decision: 'edit', args: { orderId: 'B-1' } },
        422,
        'invalid_answer',
      ],
      [
        'an edit of an ask that is not editable',
        { toolCallId: 'call_notify', decision: 'edit', args: {} },
        422,
        'invalid_answer',
      ],
      ['a decision with an unknown field', { toolCallId: 'call_ask', answer: true, extra: 1 }, 400, 'bad_request'],
    ])('answers %s with %i %s and records nothing', async (_, decision, status, code) => {
      const { call } = api();
      const { runId, interruptId } = await withAsks(call);
      const response = await call(
        httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, decisions: [decision] } }),
      );
      expect(response).toMatchObject({ status, body: { code } });
      const shown = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`));
      expect(shown.body.decided).toEqual([]);
    });

    it('answers 400 for a resume body with both an answer and decisions, or neither', async () => {
      const { call } = api();
      const { runId, interruptId } = await withAsks(call);
      for (const body of [{ interruptId, answer: 1, decisions: [] }, { interruptId }]) {
        const response = await call(httpEvent('POST', `/runs/${runId}/resume`, { body }));
        expect(response).toMatchObject({ status: 400, body: { code: 'bad_request' } });
      }
    });

    it('refuses a pause body with toolCallId and asks at once, with 400 naming the fields', async () => {
      const { call } = api();
      const response = await call(
        httpEvent('POST', `/runs/${newRun()}/pauses`, { body: pauseBody({ asks: [{ toolCallId: 'call_ask' }] }) }),
      );
      expect(response).toMatchObject({ status: 400, body: { code: 'bad_request' } });
      expect(response.body.detail).toContain('not both');
    });
  });

  describe('cancel (§10)', () => {
    it('cancels with a reason: 200, outcome cancelled, nothing dispatched; again 200; decisions after it 410', async () => {
      const { call } = api();
      const { runId, interruptId } = await paused(call);
      const path = `/runs/${runId}/pauses/${interruptId}/cancel`;
      const cancelled = await call(httpEvent('POST', path, { body: { reason: 'Withdrawn.' } }));
      expect(cancelled).toMatchObject({ status: 200, body: { outcome: 'cancelled', dispatch: [] } });
      const again = await call(httpEvent('POST', path));
      expect(again).toMatchObject({ status: 200, body: { continuationId: cancelled.body.continuationId } });
      const late = await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'yes' } }));
      expect(late).toMatchObject({
        status: 410,
        body: { code: 'pause_cancelled', continuationId: cancelled.body.continuationId },
      });
      const listed = await call(httpEvent('GET', '/pauses?status=cancelled'));
      expect(listed.body.items.map((item: { interruptId: string }) => item.interruptId)).toContain(interruptId);
    });

    it('answers 409 already_resumed for a cancel of a resumed pause, 404 for an unknown one, 400 for a bad reason', async () => {
      const { call } = api();
      const { runId, interruptId } = await paused(call);
      await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'yes' } }));
      const resumed = await call(httpEvent('POST', `/runs/${runId}/pauses/${interruptId}/cancel`));
      expect(resumed).toMatchObject({ status: 409, body: { code: 'already_resumed' } });
      const unknown = await call(httpEvent('POST', `/runs/${runId}/pauses/9.1.AAAAAAAAAAAAAAAAAAAAAA/cancel`));
      expect(unknown).toMatchObject({ status: 404, body: { code: 'pause_not_found' } });
      const other = await paused(call);
      const bad = await call(
        httpEvent('POST', `/runs/${other.runId}/pauses/${other.interruptId}/cancel`, { body: { reason: 7 } }),
      );
      expect(bad).toMatchObject({ status: 400, body: { code: 'bad_request' } });
    });
  });

  describe('hand-off claims (§18)', () => {
    it('gives a closed pause to its first claimant, again to a retry of that claim, and tells another who has it', async () => {
      const { call } = api();
      const { runId, interruptId } = await paused(call);
      await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'yes' } }));
      const path = `/runs/${runId}/pauses/${interruptId}/claim`;
      const first = await call(httpEvent('POST', path, { body: { claimant: 'run-a' } }));
      expect(first).toMatchObject({ status: 200, body: { runId, interruptId, claimed: true, claimant: 'run-a' } });
      const retried = await call(httpEvent('POST', path, { body: { claimant: 'run-a' } }));
      expect(retried.body).toEqual(first.body);
      const other = await call(httpEvent('POST', path, { body: { claimant: 'run-b' } }));
      expect(other).toMatchObject({
        status: 200,
        body: { claimed: false, claimant: 'run-a', claimedAt: first.body.claimedAt },
      });
    });

    it('gives a closed pause to exactly one of many claimants racing for it', async () => {
      const { call } = api();
      const { runId, interruptId } = await paused(call);
      await call(httpEvent('POST', `/runs/${runId}/pauses/${interruptId}/cancel`));
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          call(httpEvent('POST', `/runs/${runId}/pauses/${interruptId}/claim`, { body: { claimant: `run-${index}` } })),
        ),
      );
      expect(claims.filter((claim) => claim.body.claimed)).toHaveLength(1);
      expect(new Set(claims.map((claim) => claim.body.claimant)).size).toBe(1);
    });

    it('refuses a claim of an open pause with 409 pause_open and records nothing', async () => {
      const { call } = api();
      const { runId, interruptId } = await paused(call);
      const path = `/runs/${runId}/pauses/${interruptId}/claim`;
      const open = await call(httpEvent('POST', path, { body: { claimant: 'run-a' } }));
      expect(open).toMatchObject({ status: 409, body: { code: 'pause_open' } });
      await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'yes' } }));
      const later = await call(httpEvent('POST', path, { body: { claimant: 'run-b' } }));
      expect(later.body).toMatchObject({ claimed: true, claimant: 'run-b' });
    });

    it("answers 404 for an unknown or another tenant's pause, 400 for a bad claimant, 413 and 415 for bad bodies", async () => {
      const { call } = api();
      const { runId, interruptId } = await paused(call);
      await call(httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'yes' } }));
      const path = `/runs/${runId}/pauses/${interruptId}/claim`;
      const foreign = await call(
        httpEvent('POST', path, { body: { claimant: 'run-a' }, claims: { tenant: 'other', sub: 'x' } }),
      );
      expect(foreign).toMatchObject({ status: 404, body: { code: 'pause_not_found' } });
      const unknown = await call(
        httpEvent('POST', `/runs/${runId}/pauses/9.1.AAAAAAAAAAAAAAAAAAAAAA/claim`, { body: { claimant: 'run-a' } }),
      );
      expect(unknown).toMatchObject({ status: 404, body: { code: 'pause_not_found' } });
      for (const claimant of ['', 'has space', 'x'.repeat(129), 7]) {
        const bad = await call(httpEvent('POST', path, { body: { claimant } }));
        expect(bad).toMatchObject({ status: 400, body: { code: 'bad_request' } });
      }
      const big = await call(httpEvent('POST', path, { body: { claimant: 'a', pad: 'x'.repeat(1024 * 1024) } }));
      expect(big).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
      const text = await call(httpEvent('POST', path, { rawBody: 'run-a', contentType: 'text/plain' }));
      expect(text).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
      // None of these claimed it: the first real claimant gets it.
      const claimed = await call(httpEvent('POST', path, { body: { claimant: 'run-z' } }));
      expect(claimed.body).toMatchObject({ claimed: true, claimant: 'run-z' });
    });
  });

  describe('policy before people (§17)', () => {
    it('answers 200 with the continuation when the policies decide every ask, and the pause reads back closed', async () => {
      const engine = engineOf(
        `@id("notify-freely")
permit(principal, action == Handback::Action::"callWithoutApproval", resource == Handback::Tool::"notify");`,
        {},
        null,
      );
      const { call } = api({ store: table.store(undefined, async () => engine) });
      const runId = newRun();
      const body = pauseBody({
        toolCallId: undefined,
        prompt: undefined,
        asks: [{ toolCallId: 'call_notify', kind: 'approval' }],
      });
      const closed = await call(httpEvent('POST', `/runs/${runId}/pauses`, { body }));
      expect(closed).toMatchObject({
        status: 200,
        body: { status: 'resumed', outcome: 'resumed', asks: ['call_notify'] },
      });
      expect(closed.body.dispatch).toEqual([
        { toolCallId: 'call_notify', name: 'notify', args: { channel: '#support' } },
      ]);
      const interruptId = String(closed.body.interruptId);
      expect(closed.headers.Location).toBe(`/runs/${runId}/pauses/${interruptId}`);
      const shown = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`));
      expect(shown).toMatchObject({ status: 200, body: { status: 'resumed', pending: [] } });
      expect(shown.body.asks[0]).toMatchObject({
        decision: { decision: 'approve', by: { kind: 'service', subject: 'policy:notify-freely', via: 'policy' } },
        policy: { outcome: 'approve', policyIds: ['notify-freely'] },
      });
    });
  });

  // §19
  describe('the policies (§19): GET /policies and GET /policies/shadow', () => {
    const TEXT =
      '@id("allow-notify")\npermit (principal, action == Handback::Action::"call", resource == Handback::Tool::"notify");';
    const PERSON = { tenant: 'acme', sub: 'person-1' };
    const AGENT_ONLY = { tenant: 'acme', sub: 'agent-1', scope: SCOPES.agent };
    const SINCE = '/policies/shadow?since=2026-03-01T00:00:00Z';

    it('shows the set in force (200) to anyone who may decide, and 404 where none is configured', async () => {
      const withPolicies = api({ policies: async () => engineOf(TEXT, {}, null) });
      const shown = await withPolicies.call(httpEvent('GET', '/policies', { claims: PERSON }));
      expect(shown).toMatchObject({
        status: 200,
        body: { version: 'test-1', mode: 'enforce', policies: [{ id: 'allow-notify', effect: 'permit' }] },
      });
      const shadow = await withPolicies.call(httpEvent('GET', SINCE, { claims: PERSON }));
      expect(shadow).toMatchObject({ status: 200, body: { since: '2026-03-01T00:00:00Z', items: [], policies: [] } });
      const none = api();
      for (const path of ['/policies', SINCE]) {
        expect(await none.call(httpEvent('GET', path, { claims: PERSON }))).toMatchObject({
          status: 404,
          body: { code: 'not_found' },
        });
      }
    });

    it('refuses a bad since (400), no token (401) and an agent-only token (403)', async () => {
      const { call } = api({ policies: async () => engineOf(TEXT, {}, null), requireScopes: true });
      const decider = { ...PERSON, scope: SCOPES.decide };
      expect(await call(httpEvent('GET', '/policies/shadow?since=yesterday', { claims: decider }))).toMatchObject({
        status: 400,
      });
      for (const path of ['/policies', SINCE]) {
        expect(await call(httpEvent('GET', path, { claims: null }))).toMatchObject({ status: 401 });
        expect(await call(httpEvent('GET', path, { claims: AGENT_ONLY }))).toMatchObject({
          status: 403,
          body: { code: 'forbidden' },
        });
      }
    });

    it('answers a generic 500 when the policies or the store fail, and 503 when the store does not answer', async () => {
      const failing = api({
        store: brokenStore(() => new Error('socket hang up')),
        policies: async () => {
          throw new Error('the policy files could not be read');
        },
      });
      for (const path of ['/policies', SINCE]) {
        const failed = await failing.call(httpEvent('GET', path, { claims: PERSON }));
        expect(failed).toMatchObject({ status: 500, body: { code: 'internal_error' } });
      }
      const slow = api({
        store: brokenStore(() => new StorageUnavailableError()),
        policies: async () => {
          throw new StorageUnavailableError();
        },
      });
      for (const path of ['/policies', SINCE]) {
        expect(await slow.call(httpEvent('GET', path, { claims: PERSON }))).toMatchObject({
          status: 503,
          body: { code: 'storage_unavailable' },
        });
      }
    });
  });

  describe('execution claims (§19)', () => {
    const AGENT = { tenant: 'acme', sub: 'agent-1' };
    const PERSON = { tenant: 'acme', sub: 'person-1' };

    /** A pause of call_notify alone, approved by a person through `call`: where its execution is claimed. */
    async function approved(call: ReturnType<typeof api>['call']) {
      const runId = newRun();
      const body = pauseBody({
        toolCallId: undefined,
        prompt: undefined,
        asks: [{ toolCallId: 'call_notify', kind: 'approval' }],
      });
      const made = await call(httpEvent('POST', `/runs/${runId}/pauses`, { body, claims: AGENT }));
      expect(made.status).toBe(201);
      const interruptId = String(made.body.interruptId);
      const decided = await call(
        httpEvent('POST', `/runs/${runId}/resume`, {
          body: { interruptId, decisions: [{ toolCallId: 'call_notify', decision: 'approve' }] },
          claims: PERSON,
        }),
      );
      expect(decided.status).toBe(200);
      const base = `/runs/${runId}/continuations/${decided.body.continuationId}/executions`;
      const view = async () => (await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`))).body;
      return { base, view };
    }

    it('claims once (200, then 409), refuses a body it cannot read and a call not dispatched, changing nothing', async () => {
      const { call } = api();
      const { base, view } = await approved(call);
      const before = await view();
      const refusals = [
        [400, await call(httpEvent('POST', base, { body: {}, claims: AGENT }))],
        [413, await call(httpEvent('POST', base, { body: { toolCallId: 'x'.repeat(1024 * 1024) }, claims: AGENT }))],
        [
          415,
          await call(httpEvent('POST', base, { rawBody: 'call_notify', contentType: 'text/plain', claims: AGENT })),
        ],
        [404, await call(httpEvent('POST', base, { body: { toolCallId: 'call_lookup' }, claims: AGENT }))],
      ] as const;
      expect(refusals.map(([, response]) => response.status)).toEqual(refusals.map(([status]) => status));
      expect(refusals[3][1].body.code).toBe('not_dispatched');
      expect(await view()).toEqual(before);
      const claimed = await call(httpEvent('POST', base, { body: { toolCallId: 'call_notify' }, claims: AGENT }));
      expect(claimed).toMatchObject({
        status: 200,
        body: {
          toolCallId: 'call_notify',
          name: 'notify',
          args: { channel: '#support' },
          claimedAt: expect.any(String),
        },
      });
      const again = await call(httpEvent('POST', base, { body: { toolCallId: 'call_notify' }, claims: AGENT }));
      expect(again).toMatchObject({
        status: 409,
        body: { code: 'already_claimed', claimedAt: claimed.body.claimedAt },
      });
    });

    it('records how a claimed call ended, told by its claimant once; refuses every other telling, changing nothing', async () => {
      const { call } = api();
      const { base, view } = await approved(call);
      const end = (claims: Record<string, string>, body: unknown, toolCallId = 'call_notify') =>
        call(httpEvent('PUT', `${base}/${toolCallId}`, { body, claims }));
      const early = await end(AGENT, { status: 'succeeded' });
      expect(early).toMatchObject({ status: 409, body: { code: 'not_claimed' } });
      await call(httpEvent('POST', base, { body: { toolCallId: 'call_notify' }, claims: AGENT }));
      const claimedView = await view();
      const refusals = [
        [400, await end(AGENT, { status: 'maybe' })],
        [413, await end(AGENT, { status: 'succeeded', detail: 'x'.repeat(1024 * 1024) })],
        [
          415,
          await call(
            httpEvent('PUT', `${base}/call_notify`, { rawBody: 'ok', contentType: 'text/plain', claims: AGENT }),
          ),
        ],
        [404, await end(AGENT, { status: 'succeeded' }, 'call_lookup')],
        [403, await end(PERSON, { status: 'failed' })],
      ] as const;
      expect(refusals.map(([, response]) => response.status)).toEqual(refusals.map(([status]) => status));
      expect(await view()).toEqual(claimedView);
      const ended = await end(AGENT, { status: 'succeeded', detail: 'posted' });
      expect(ended).toMatchObject({ status: 200, body: { status: 'succeeded', detail: 'posted' } });
      expect((await view()).asks[0].execution).toMatchObject({ status: 'succeeded', detail: 'posted' });
    });

    it('answers a claim refused at run time with its code: 403 a forbid, 422 an evaluation error, 410 an approval past its time', async () => {
      const judged = (text: string, clock?: () => Date) =>
        api({ store: table.store(clock, async () => engineOf(text, {}, null)) }).call;
      const forbidding = await approved(api().call);
      const forbid = `@id("no-notify")
@reason("Quiet hours")
forbid(principal, action, resource == Handback::Tool::"notify");`;
      const forbidden = await judged(forbid)(
        httpEvent('POST', forbidding.base, { body: { toolCallId: 'call_notify' }, claims: AGENT }),
      );
      expect(forbidden).toMatchObject({ status: 403, body: { code: 'policy_forbids', policyIds: ['no-notify'] } });

      const erring = await approved(api().call);
      const broken = `@id("overflowing")
forbid(principal, action, resource == Handback::Tool::"notify") when { 9223372036854775807 + 1 > 0 };`;
      const failed = await judged(broken)(
        httpEvent('POST', erring.base, { body: { toolCallId: 'call_notify' }, claims: AGENT }),
      );
      expect(failed).toMatchObject({ status: 422, body: { code: 'policy_error' } });

      let now = Date.now();
      const clock = () => new Date(now);
      const valid = `@id("notify-for-a-minute")
@validFor("PT1M")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"notify");`;
      const late = await approved(judged(valid, clock));
      now += 61_000;
      const expired = await judged(
        valid,
        clock,
      )(httpEvent('POST', late.base, { body: { toolCallId: 'call_notify' }, claims: AGENT }));
      expect(expired).toMatchObject({ status: 410, body: { code: 'approval_expired' } });
      for (const { view } of [forbidding, erring, late]) {
        expect((await view()).asks[0].execution).toMatchObject({ status: 'refused' });
      }
    });
  });

  describe('Idempotency-Key', () => {
    it('returns the first 201 again for the same key and body, 422 for another body, 400 for a bad key', async () => {
      const { call } = api();
      const runId = newRun();
      const send = (body: Record<string, unknown>, key: string) =>
        call(httpEvent('POST', `/runs/${runId}/pauses`, { body, headers: { 'Idempotency-Key': key } }));
      const first = await send(pauseBody(), 'key-1');
      expect(first.status).toBe(201);
      const again = await send(pauseBody(), 'key-1');
      expect(again).toMatchObject({ status: 201, body: first.body });
      expect(again.headers.Location).toBe(first.headers.Location);
      const other = await send(pauseBody({ prompt: 'Another?' }), 'key-1');
      expect(other).toMatchObject({ status: 422, body: { code: 'idempotency_key_reused' } });
      const bad = await send(pauseBody(), 'has space');
      expect(bad).toMatchObject({ status: 400, body: { code: 'bad_request' } });
    });
  });

  describe('answer links (§11)', () => {
    const secret = new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!');
    const linked = () => api({ links: createAnswerLinks(secret) });
    const tokenOf = (url: string) => url.slice(url.indexOf('#') + 1);

    it('puts an answer link on the 201, with the token in the fragment of the inbox URL', async () => {
      const { call } = linked();
      const { response } = await paused(call);
      expect(response.body.answerUrl).toMatch(
        /^https:\/\/abc123\.execute-api\.eu-west-1\.amazonaws\.com\/inbox#[\w-]+\.[\w-]+\.[\w-]+$/,
      );
    });

    it('opens its one pause and decides it, without a bearer token', async () => {
      const { call } = linked();
      const { runId, interruptId, response } = await paused(call);
      const header = { 'x-handback-link': tokenOf(response.body.answerUrl) };
      const shown = await call(httpEvent('GET', '/links/pause', { claims: null, headers: header }));
      expect(shown).toMatchObject({ status: 200, body: { runId, interruptId, status: 'paused' } });
      const transcript = await call(
        httpEvent('GET', '/links/pause?include=messages&from=0&limit=2', { claims: null, headers: header }),
      );
      expect(transcript.body).toMatchObject({ from: 0, total: 3, next: 2 });
      const decided = await call(
        httpEvent('POST', '/links/resume', { claims: null, headers: header, body: { answer: 'approved' } }),
      );
      expect(decided).toMatchObject({ status: 200, body: { outcome: 'resumed', interruptId } });
      const closed = await call(httpEvent('GET', '/links/pause', { claims: null, headers: header }));
      expect(closed).toMatchObject({ status: 410, body: { code: 'link_closed' } });
    });

    it('refuses a tampered token, a token in the query string, no token, and a token of another key with 401', async () => {
      const { call } = linked();
      const { response } = await paused(call);
      const token = tokenOf(response.body.answerUrl);
      const flipped = `${token.slice(0, -3)}${token.at(-3) === 'A' ? 'B' : 'A'}${token.slice(-2)}`;
      const foreign = tokenOf(
        await createAnswerLinks(new TextEncoder().encode('another-secret-of-at-least-32-bytes!')).linkFor(
          {
            tenant: 'acme',
            runId: 'r',
            interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA',
            expiresAt: '2099-01-01T00:00:00.000Z',
          },
          'https://x/inbox',
        ),
      );
      const attempts = [
        httpEvent('GET', '/links/pause', { claims: null, headers: { 'x-handback-link': flipped } }),
        httpEvent('GET', `/links/pause?token=${token}`, { claims: null }),
        httpEvent('GET', '/links/pause', { claims: null }),
        httpEvent('GET', '/links/pause', { claims: null, headers: { 'x-handback-link': foreign } }),
      ];
      for (const event of attempts) {
        const refused = await call(event);
        expect(refused).toMatchObject({
          status: 401,
          body: { code: 'unauthorized', detail: 'This answer link is not valid.' },
        });
      }
    });

    it('grants nothing beyond its pause: another tenant’s same ids are not reached, and bearer routes refuse it', async () => {
      const { call } = linked();
      const mine = await paused(call);
      const header = { 'x-handback-link': tokenOf(mine.response.body.answerUrl) };
      const list = await call(httpEvent('GET', '/pauses', { claims: null, headers: header }));
      expect(list.status).toBe(401);
      const other = await call(
        httpEvent('GET', `/runs/${mine.runId}/pauses/${mine.interruptId}`, { claims: null, headers: header }),
      );
      expect(other.status).toBe(401);
    });

    it('answers 404 on the link routes when no link key is configured', async () => {
      const { call } = api();
      const response = await call(
        httpEvent('GET', '/links/pause', { claims: null, headers: { 'x-handback-link': 'a.b.c' } }),
      );
      expect(response).toMatchObject({ status: 404, body: { code: 'not_found' } });
    });
  });

  describe('time and storage', () => {
    it('answers 503 storage_unavailable with Retry-After when the table does not answer', async () => {
      const unavailable = async () => {
        throw new StorageUnavailableError();
      };
      const store = { ...table.store(), getPause: unavailable } as CheckpointStore;
      const { call } = api({ store });
      const response = await call(httpEvent('GET', '/runs/r1/pauses/1.1.AAAAAAAAAAAAAAAAAAAAAA'));
      expect(response).toMatchObject({ status: 503, body: { code: 'storage_unavailable' } });
      expect(response.headers['Retry-After']).toBe('1');
    });

    it('answers 503, not 500, when a request runs out of its time budget, since it may yet commit', async () => {
      const never = () => new Promise<never>(() => {});
      const store = { ...table.store(), getPause: never } as CheckpointStore;
      const telemetry = testTelemetry();
      const handler = createApiHandler({
        store,
        handoff: createHandoff({ target: 'none' }, {}, telemetry.logger),
        ...telemetry,
      });
      const context = { ...lambdaContext(), getRemainingTimeInMillis: () => 1_600 };
      const result = await handler(httpEvent('GET', '/runs/r1/pauses/1.1.AAAAAAAAAAAAAAAAAAAAAA'), context);
      expect(result.statusCode).toBe(503);
      expect(JSON.parse(String(result.body))).toMatchObject({ code: 'storage_unavailable' });
    });
  });

  describe('scopes (§13)', () => {
    const bearer = ROUTES.filter(isBearer);
    const concrete = (path: string) =>
      path
        .replace('{runId}', 'r1')
        .replace('{interruptId}', '1.1.AAAAAAAAAAAAAAAAAAAAAA')
        .replace('{continuationId}', '1.1.AAAAAAAAAAAAAAAAAAAAAA');

    it.each(bearer.map((route) => [`${route.method} ${route.path}`, route] as const))(
      'refuses %s with 403 forbidden naming its scopes to a token whose scopes open none of them, and changes nothing',
      async (_name, route) => {
        const { call } = api();
        const response = await call(
          httpEvent(route.method, concrete(route.path), {
            ...(route.method === 'POST' ? { body: {} } : {}),
            claims: { tenant: 'acme', sub: 'user-1', scope: 'openid email' },
          }),
        );
        expect(response).toMatchObject({
          status: 403,
          contentType: 'application/problem+json',
          body: { code: 'forbidden', scope: (route.scopes as readonly string[]).join(' or ') },
        });
      },
    );

    it.each(bearer.map((route) => [`${route.method} ${route.path}`, route] as const))(
      'refuses %s to a token without a scope claim only when scopes are required',
      async (_name, route) => {
        const { call } = api({ requireScopes: true });
        const response = await call(
          httpEvent(route.method, concrete(route.path), { ...(route.method === 'POST' ? { body: {} } : {}) }),
        );
        expect(response).toMatchObject({ status: 403, body: { code: 'forbidden' } });
      },
    );

    it('lets an agent-scoped token pause, read and cancel, and refuses it every decide route', async () => {
      const { call } = api();
      const agent = { tenant: 'acme', sub: 'agent-client', scope: SCOPES.agent };
      const { runId, interruptId } = await paused(call, {}, agent);
      const pause = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`, { claims: agent }));
      expect(pause.status).toBe(200);
      for (const [method, path, body] of [
        ['POST', `/runs/${runId}/resume`, { interruptId, answer: 'yes' }],
        ['GET', '/pauses', undefined],
        ['POST', `/runs/${runId}/pauses/${interruptId}/links`, { email: 'a@example.com' }],
      ] as const) {
        const refused = await call(httpEvent(method, path, { claims: agent, ...(body ? { body } : {}) }));
        expect(refused).toMatchObject({ status: 403, body: { code: 'forbidden', scope: SCOPES.decide } });
      }
      const unchanged = await call(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`, { claims: agent }));
      expect(unchanged.body).toEqual(pause.body);
      const cancelled = await call(
        httpEvent('POST', `/runs/${runId}/pauses/${interruptId}/cancel`, { claims: agent, body: {} }),
      );
      expect(cancelled).toMatchObject({ status: 200, body: { outcome: 'cancelled' } });
    });

    it('lets a decide-scoped token list and resume', async () => {
      const { call } = api();
      const person = { tenant: 'acme', sub: 'person-1', scope: `openid ${SCOPES.decide}` };
      const { runId, interruptId } = await paused(call);
      expect((await call(httpEvent('GET', '/pauses', { claims: person }))).status).toBe(200);
      const resumed = await call(
        httpEvent('POST', `/runs/${runId}/resume`, { claims: person, body: { interruptId, answer: 'yes' } }),
      );
      expect(resumed.status).toBe(200);
    });

    it.each([
      ['POST', '/runs/r1/pauses/1.1.AAAAAAAAAAAAAAAAAAAAAA/links', { email: 'a@example.com' }],
      ['POST', '/channels/slack/interactions', 'payload=%7B%7D'],
      ['POST', '/mcp', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
    ] as const)('answers %s %s 404 not_found until its handler is wired', async (method, path, body) => {
      const { call } = api();
      const response = await call(
        httpEvent(method, path, {
          ...(typeof body === 'string'
            ? { rawBody: body, contentType: path === '/mcp' ? 'application/json' : 'application/x-www-form-urlencoded' }
            : { body }),
        }),
      );
      expect(response).toMatchObject({ status: 404, body: { code: 'not_found' } });
      expect(response.body.detail).toMatch(/not configured/);
    });

    it('serves the inbox routes of the table with INBOX_ROUTES', () => {
      const inbox = ROUTES.filter((route) => 'served' in route && route.served === 'inbox').map(
        (route) => `${route.method} ${route.path}`,
      );
      expect(INBOX_ROUTES.map((route) => `${route.method} ${route.path}`)).toEqual(inbox);
    });
  });

  it('has an OpenAPI document listing exactly the routes and statuses the handler answered in these tests', () => {
    const documented = new Map<string, Set<number>>();
    for (const [path, item] of Object.entries(openapi.paths)) {
      for (const [method, operation] of Object.entries(
        item as Record<string, { responses: Record<string, unknown> }>,
      )) {
        documented.set(`${method.toUpperCase()} ${path}`, new Set(Object.keys(operation.responses).map(Number)));
      }
    }
    const unrouted = seen.get('unrouted');
    seen.delete('unrouted');
    // The routes whose handlers other modules provide document what those answer; their own tests hold them to it.
    for (const key of [
      'POST /runs/{runId}/pauses/{interruptId}/links',
      'POST /channels/slack/interactions',
      'POST /mcp',
      // §20 delegation: test/handlers/people-me.test.ts holds these to the document.
      'GET /people/me',
      'PUT /people/me/delegation',
      'DELETE /people/me/delegation',
    ]) {
      seen.delete(key);
      documented.delete(key);
    }
    // 404/405 for unknown routes and methods are described once, in the document's description.
    for (const [key, statuses] of seen) {
      if (!documented.has(key)) {
        expect([...statuses].every((status) => status === 405)).toBe(true);
        seen.delete(key);
      }
    }
    expect([...(unrouted ?? [])]).toEqual([404]);
    expect(openapi.info.description).toMatch(/404 `not_found`.*405 `method_not_allowed`/);
    const asObject = (map: Map<string, Set<number>>) =>
      Object.fromEntries([...map].map(([key, statuses]) => [key, [...statuses].sort()]));
    expect(asObject(seen)).toEqual(asObject(documented));
  });
});
