import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import openapi from '../../functions/handlers/openapi.json' with { type: 'json' };
import { pauseBody, pausedTurn } from '../handlers/events.ts';
import { type RunningService, request, startService, stopAll } from './service.ts';

afterAll(stopAll);

let seq = 0;
const newRun = () => `bb-${Date.now()}-${++seq}`;

describe('npm start, driven over HTTP', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startService();
  });

  it('is healthy and serves its OpenAPI document', async () => {
    expect(await request(`${service.url}/health`, 'GET')).toMatchObject({ status: 200, body: { status: 'ok' } });
    const doc = await request(`${service.url}/openapi.json`, 'GET');
    expect(doc.body).toEqual(openapi);
  });

  it('pauses, shows, lists, resumes, replays and reads a continuation', async () => {
    const runId = newRun();
    const paused = await request(
      `${service.url}/runs/${runId}/pauses`,
      'POST',
      pauseBody({ metadata: { ticket: 'SUP-7' } }),
    );
    expect(paused).toMatchObject({ status: 201, body: { runId, status: 'paused', toolCallId: 'call_ask' } });
    const { interruptId } = paused.body;
    expect(paused.headers.get('location')).toBe(`/runs/${runId}/pauses/${interruptId}`);

    const shown = await request(`${service.url}${paused.headers.get('location')}`, 'GET');
    expect(shown.body).toMatchObject({
      status: 'paused',
      toolCall: { id: 'call_ask', name: 'ask_human' },
      metadata: { ticket: 'SUP-7' },
    });
    expect(shown.body).not.toHaveProperty('messages');
    const withMessages = await request(`${service.url}/runs/${runId}/pauses/${interruptId}?include=messages`, 'GET');
    expect(withMessages.body.messages).toEqual(pausedTurn());
    const listed = await request(`${service.url}/pauses?status=paused&limit=100`, 'GET');
    expect(listed.body.items.map((item: { runId: string }) => item.runId)).toContain(runId);

    const resumed = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId,
      answer: { approve: true },
    });
    expect(resumed).toMatchObject({
      status: 200,
      body: { runId, interruptId, format: 'openai-chat', continuationId: expect.any(String) },
    });
    expect(resumed.body.messages).toHaveLength(6);
    const repeated = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId,
      answer: { approve: true },
    });
    expect(repeated).toMatchObject({ status: 200, body: resumed.body });
    const different = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId,
      answer: { approve: false },
    });
    expect(different).toMatchObject({
      status: 409,
      body: { code: 'already_resumed', continuationId: resumed.body.continuationId },
    });
    expect(different.headers.get('content-type')).toBe('application/problem+json');

    const continuation = await request(
      `${service.url}/runs/${runId}/continuations/${resumed.body.continuationId}`,
      'GET',
    );
    expect(continuation).toMatchObject({ status: 200, body: resumed.body });
    const slice = await request(
      `${service.url}/runs/${runId}/continuations/${resumed.body.continuationId}?from=3&limit=2`,
      'GET',
    );
    expect(slice.body).toMatchObject({ from: 3, total: 6, next: 5, messages: resumed.body.messages.slice(3, 5) });
  });

  it('answers every error of §5 as a problem with its code', async () => {
    const runId = newRun();
    const base = `${service.url}/runs/${runId}`;
    const paused = await request(
      `${base}/pauses`,
      'POST',
      pauseBody({ answerSchema: { type: 'object', required: ['approve'] } }),
    );
    const { interruptId } = paused.body;
    // biome-ignore lint/suspicious/noExplicitAny: responses are read as loose JSON in the tests
    const cases: Array<[string, Promise<{ status: number; body: any; headers: Headers }>, number, string]> = [
      ['malformed JSON', request(`${base}/pauses`, 'POST', '{"format":'), 400, 'bad_request'],
      ['a bad runId', request(`${service.url}/runs/no%20spaces/pauses`, 'POST', pauseBody()), 400, 'bad_request'],
      ['a missing field', request(`${base}/resume`, 'POST', { answer: 1 }), 400, 'bad_request'],
      [
        'a bad transcript',
        request(`${service.url}/runs/${newRun()}/pauses`, 'POST', pauseBody({ toolCallId: 'nope' })),
        400,
        'invalid_transcript',
      ],
      ['an unknown pause', request(`${base}/pauses/AAAAAAAAAAAAAAAAAAAAAA`, 'GET'), 404, 'pause_not_found'],
      [
        'an unknown continuation',
        request(`${base}/continuations/AAAAAAAAAAAAAAAAAAAAAA`, 'GET'),
        404,
        'continuation_not_found',
      ],
      ['a second open pause', request(`${base}/pauses`, 'POST', pauseBody()), 409, 'open_pause_exists'],
      [
        'an answer over 256 KB',
        request(`${base}/resume`, 'POST', { interruptId, answer: 'x'.repeat(262_145) }),
        413,
        'payload_too_large',
      ],
      [
        'a body that is not JSON',
        request(`${base}/resume`, 'POST', 'yes', { 'content-type': 'text/plain' }),
        415,
        'unsupported_media_type',
      ],
      [
        'an answer failing the schema',
        request(`${base}/resume`, 'POST', { interruptId, answer: 'yes' }),
        422,
        'invalid_answer',
      ],
      ['an unknown route', request(`${service.url}/nope`, 'GET'), 404, 'not_found'],
      ['another method', request(`${base}/resume`, 'GET'), 405, 'method_not_allowed'],
    ];
    for (const [name, response, status, code] of cases) {
      const { status: got, body, headers } = await response;
      expect({ name, status: got, code: body?.code }).toEqual({ name, status, code });
      expect(headers.get('content-type')).toBe('application/problem+json');
      expect(body).toMatchObject({
        type: expect.any(String),
        title: expect.any(String),
        status,
        detail: expect.any(String),
      });
    }
  });

  it('answers 410 pause_expired after expiresAt and shows the pause expired', async () => {
    const runId = newRun();
    const paused = await request(`${service.url}/runs/${runId}/pauses`, 'POST', pauseBody({ expiresInSeconds: 1 }));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const late = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId: paused.body.interruptId,
      answer: 'yes',
    });
    expect(late).toMatchObject({ status: 410, body: { code: 'pause_expired' } });
    const shown = await request(`${service.url}/runs/${runId}/pauses/${paused.body.interruptId}`, 'GET');
    expect(shown.body.status).toBe('expired');
  });

  it('lets exactly one of 40 racing resumes win', async () => {
    const runId = newRun();
    const paused = await request(`${service.url}/runs/${runId}/pauses`, 'POST', pauseBody());
    const answers = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 'same' : `other-${i}`));
    const responses = await Promise.all(
      answers.map((answer) =>
        request(`${service.url}/runs/${runId}/resume`, 'POST', { interruptId: paused.body.interruptId, answer }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    const continuations = new Set(responses.map((r) => r.body.continuationId));
    expect(continuations.size).toBe(1);
    const winners = responses.filter((r) => r.status === 200);
    expect(winners.length === 1 || winners.length === 20).toBe(true);
    expect(new Set(winners.map((r) => JSON.stringify(r.body.messages))).size).toBe(1);
  });

  it('stores a 5 MB pause and serves its continuation in slices', async () => {
    const runId = newRun();
    const big = Array.from({ length: 5 }, (_, i) => ({ role: 'user', content: `${i}`.padEnd(1_000_000, 'q') }));
    const paused = await request(
      `${service.url}/runs/${runId}/pauses`,
      'POST',
      pauseBody({ messages: [...big, ...pausedTurn()] }),
    );
    expect(paused.status).toBe(201);
    const resumed = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId: paused.body.interruptId,
      answer: 'yes',
    });
    expect(resumed.status).toBe(200);
    const path = `${service.url}/runs/${runId}/continuations/${resumed.body.continuationId}`;
    const first = await request(`${path}?from=0&limit=4`, 'GET');
    expect(first.body).toMatchObject({ total: 11, from: 0, next: 4 });
    expect(first.body.messages[0]).toEqual(big[0]);
    const rest = await request(`${path}?from=4&limit=100`, 'GET');
    expect(rest.body.messages).toHaveLength(7);
    expect(rest.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_notify' });
  });

  it('answers a body over 16 MiB with a 413 problem and closes the connection, never a reset', async () => {
    const body = JSON.stringify({ padding: 'x'.repeat(17 * 1024 * 1024) });
    // Three in a row: a reset was a race the client lost about one time in three.
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await request(`${service.url}/runs/${newRun()}/pauses`, 'POST', body);
      expect(response).toMatchObject({ status: 413, body: { code: 'payload_too_large', status: 413 } });
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.headers.get('connection')).toBe('close');
    }
    expect((await request(`${service.url}/health`, 'GET')).status).toBe(200);
  });
});

describe('npm start with HANDBACK_JWT_SECRET', () => {
  const secret = 'test-secret-that-is-long-enough-for-hs256';
  let service: RunningService;
  const token = (claims: Record<string, unknown>, key = secret) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(key));

  beforeAll(async () => {
    service = await startService({ HANDBACK_JWT_SECRET: secret });
  });

  it('scopes data to the token tenant and answers 401 without a valid token', async () => {
    const acme = { authorization: `Bearer ${await token({ sub: 'acme-agent', tenant: 'acme' })}` };
    const globex = { authorization: `Bearer ${await token({ sub: 'globex-agent', tenant: 'globex' })}` };
    const runId = newRun();
    const paused = await request(`${service.url}/runs/${runId}/pauses`, 'POST', pauseBody(), acme);
    expect(paused.status).toBe(201);
    const path = `${service.url}/runs/${runId}/pauses/${paused.body.interruptId}`;
    expect((await request(path, 'GET', undefined, acme)).status).toBe(200);
    expect(await request(path, 'GET', undefined, globex)).toMatchObject({
      status: 404,
      body: { code: 'pause_not_found' },
    });
    const theirs = await request(`${service.url}/pauses`, 'GET', undefined, globex);
    expect(theirs.body.items.map((item: { runId: string }) => item.runId)).not.toContain(runId);

    const bad: Array<Record<string, string>> = [
      {},
      {
        authorization: `Bearer ${await token({ sub: 'acme-agent', tenant: 'acme' }, 'another-secret-that-is-long-enough')}`,
      },
      { authorization: `Bearer ${await token({ sub: 'no-tenant' })}` },
      { authorization: 'Bearer not.a.jwt' },
    ];
    for (const headers of bad) {
      const response = await request(path, 'GET', undefined, headers);
      expect(response).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
    expect((await request(`${service.url}/health`, 'GET')).status).toBe(200);
  });

  const expired = () =>
    new SignJWT({ tenant: 'acme' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
      .sign(new TextEncoder().encode(secret));
  const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"tenant":"acme"}').toString('base64url')}.`;
  it.each([
    [
      'no Authorization header',
      async () => undefined,
      'A bearer token is required: send Authorization: Bearer <JWT>.',
      'Bearer',
    ],
    [
      'another scheme',
      async () => 'Basic YWNtZTpzZWNyZXQ=',
      'The Authorization header is malformed: it must be Bearer followed by one token.',
      'Bearer error="invalid_request", error_description="The Authorization header is malformed: it must be Bearer followed by one token."',
    ],
    [
      'a token that is not a JWT',
      async () => 'Bearer not.a.jwt',
      'The bearer token is malformed: it is not a JWT.',
      'Bearer error="invalid_token", error_description="The bearer token is malformed: it is not a JWT."',
    ],
    [
      'a token signed with another secret',
      async () => `Bearer ${await token({ sub: 'acme-agent', tenant: 'acme' }, 'another-secret-that-is-long-enough')}`,
      "The bearer token's signature does not verify: it must be signed HS256 with this server's secret.",
      `Bearer error="invalid_token", error_description="The bearer token's signature does not verify: it must be signed HS256 with this server's secret."`,
    ],
    [
      'an unsigned token (alg none)',
      async () => `Bearer ${unsigned}`,
      "The bearer token's signature does not verify: it must be signed HS256 with this server's secret.",
      `Bearer error="invalid_token", error_description="The bearer token's signature does not verify: it must be signed HS256 with this server's secret."`,
    ],
    [
      'an expired token',
      async () => `Bearer ${await expired()}`,
      'The bearer token has expired.',
      'Bearer error="invalid_token", error_description="The bearer token has expired."',
    ],
  ])('answers %s with a 401 that says so, without echoing the token', async (_, authorization, detail, challenge) => {
    const header = await authorization();
    const response = await request(
      `${service.url}/pauses`,
      'GET',
      undefined,
      header === undefined ? {} : { authorization: header },
    );
    expect(response).toMatchObject({ status: 401, body: { code: 'unauthorized', status: 401, detail } });
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('www-authenticate')).toBe(challenge);
    const token = header?.split(' ')[1];
    if (token !== undefined) expect(JSON.stringify(response.body)).not.toContain(token);
  });

  it('lets the handler answer a verified token without the tenant claim', async () => {
    const response = await request(`${service.url}/pauses`, 'GET', undefined, {
      authorization: `Bearer ${await token({ sub: 'no-tenant' })}`,
    });
    expect(response).toMatchObject({
      status: 401,
      body: { code: 'unauthorized', detail: 'A token with a "tenant" claim is required.' },
    });
  });

  it.each(['/health', '/openapi.json', '/inbox', '/inbox/app.js', '/links/some-token'])(
    'asks no token for %s, and refuses none there',
    async (path) => {
      const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer not.a.jwt' }];
      for (const headers of attempts) {
        // Not through `request`: the inbox page, when there is one, is not JSON.
        const response = await fetch(`${service.url}${path}`, { headers });
        await response.arrayBuffer();
        expect(response.status).not.toBe(401);
      }
    },
  );
});

describe('npm start with HANDBACK_DATA_DIR', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'handback-data-'));
  });
  afterAll(async () => {
    await stopAll();
    await rm(dir, { recursive: true, force: true });
  });

  it('loses nothing after kill -9', async () => {
    const first = await startService({ HANDBACK_DATA_DIR: dir });
    const runId = newRun();
    const paused = await request(`${first.url}/runs/${runId}/pauses`, 'POST', pauseBody());
    const open = await request(`${first.url}/runs/${runId}-2/pauses`, 'POST', pauseBody());
    const resumed = await request(`${first.url}/runs/${runId}/resume`, 'POST', {
      interruptId: paused.body.interruptId,
      answer: 'yes',
    });
    expect([paused.status, open.status, resumed.status]).toEqual([201, 201, 200]);
    expect(await first.stop('SIGKILL')).toBe('SIGKILL');

    const second = await startService({ HANDBACK_DATA_DIR: dir });
    const continuation = await request(
      `${second.url}/runs/${runId}/continuations/${resumed.body.continuationId}`,
      'GET',
    );
    expect(continuation).toMatchObject({ status: 200, body: resumed.body });
    const stillOpen = await request(`${second.url}/runs/${runId}-2/pauses/${open.body.interruptId}`, 'GET');
    expect(stillOpen.body.status).toBe('paused');
    const replay = await request(`${second.url}/runs/${runId}/resume`, 'POST', {
      interruptId: paused.body.interruptId,
      answer: 'yes',
    });
    expect(replay.body.continuationId).toBe(resumed.body.continuationId);
    // And it stops cleanly on SIGTERM (exit 0), data dir and all.
    expect(await second.stop('SIGTERM')).toBe(0);
  });
});

describe('npm start with DYNAMODB_ENDPOINT', () => {
  it('serves on another DynamoDB-compatible endpoint with no AWS region or credentials configured', async () => {
    const service = await startService({
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      TABLE_NAME: `bb-endpoint-${Date.now()}`,
      AWS_REGION: '',
      AWS_DEFAULT_REGION: '',
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_PROFILE: '',
    });
    const runId = newRun();
    const paused = await request(`${service.url}/runs/${runId}/pauses`, 'POST', pauseBody());
    expect(paused.status).toBe(201);
    const resumed = await request(`${service.url}/runs/${runId}/resume`, 'POST', {
      interruptId: paused.body.interruptId,
      answer: 'yes',
    });
    expect(resumed).toMatchObject({ status: 200, body: { runId, interruptId: paused.body.interruptId } });
    expect(await service.stop('SIGTERM')).toBe(0);
  });
});
