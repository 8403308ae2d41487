import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLambdaBundle } from '../../infra/lambda-bundle.ts';
import { ENTRY } from '../../infra/paths.ts';
import { API_EVENT_SOURCE, lambdaContextSource, runBundledDriver } from '../support/bundled-child.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * The API function as the stack bundles it, run in a child Node with its environment pointing at stand-ins: the
 * table on the embedded server, Secrets Manager (`AWS_ENDPOINT_URL_SECRETS_MANAGER`) on a local endpoint that never
 * answers, or on one that does. The link key is read on first use: with no key to be had, every route but the link
 * routes keeps serving and a pause's 201 goes without its link; with one, links work and the key is read once.
 */

const table = useTestTable();
const dir = mkdtempSync(join(tmpdir(), 'handback-bundled-link-key-'));
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:handback-link-key';
const KEY = 'a-link-key-of-sixty-four-characters-in-all-as-the-stack-makes-it';
let bundle: string;
const servers: Array<Server | HttpServer> = [];

beforeAll(async () => {
  bundle = buildLambdaBundle(ENTRY.api, join(dir, 'api'), 'none').entry;
  writeFileSync(join(dir, 'drive.mjs'), DRIVER);
});

afterAll(async () => {
  for (const server of servers) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    server.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A TCP endpoint that accepts connections and never answers; counts them. */
async function silentEndpoint(): Promise<{ url: string; connections: () => number }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, connections: () => sockets.length };
}

/** A Secrets Manager stand-in answering `GetSecretValue`; records the targets and inputs it was sent. */
async function secretsManager(): Promise<{ url: string; calls: Array<{ target: string; input: unknown }> }> {
  const calls: Array<{ target: string; input: unknown }> = [];
  const server = createHttpServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      calls.push({ target: String(request.headers['x-amz-target']), input: JSON.parse(body) });
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ ARN: SECRET_ARN, Name: 'handback-link-key', SecretString: KEY, VersionId: 'v1' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, calls };
}

/**
 * The child: imports the bundle (timing its init), then sends payload v2 events in turn — health, a pause, GET that
 * pause, the link routes with the pause's link (or a made-up token when it has none) — and prints what each answered.
 */
const DRIVER = `
import { randomUUID } from 'node:crypto';
const started = performance.now();
const { handler } = await import(process.argv[2]);
const initMs = performance.now() - started;
${lambdaContextSource('api')}${API_EVENT_SOURCE}const results = { initMs };
const call = async (name, e) => {
  const at = performance.now();
  const r = await handler(e, context());
  results[name] = { ms: performance.now() - at, status: r.statusCode, headers: r.headers, body: JSON.parse(r.body) };
  return results[name];
};
await call('health', event('GET', '/health'));
const messages = [
  { role: 'user', content: 'Refund order A-1042?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_ask', type: 'function', function: { name: 'ask_human', arguments: '{}' } }] },
];
const runId = process.argv[3];
const created = await call('pause', event('POST', '/runs/' + runId + '/pauses', { format: 'openai-chat', messages, toolCallId: 'call_ask' }));
await call('get', event('GET', '/runs/' + runId + '/pauses/' + created.body.interruptId));
const token = created.body.answerUrl?.split('#')[1] ?? 'eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl';
await call('linkPause', event('GET', '/links/pause', undefined, { 'x-handback-link': token }));
await call('linkPauseAgain', event('GET', '/links/pause', undefined, { 'x-handback-link': token }));
console.log('RESULT ' + JSON.stringify(results));
`;

// biome-ignore lint/suspicious/noExplicitAny: the child's answers are read as loose JSON
async function drive(secretsEndpoint: string, runId: string): Promise<{ results: Record<string, any>; logs: string }> {
  const { result, logs } = await runBundledDriver(join(dir, 'drive.mjs'), [pathToFileURL(bundle).href, runId], {
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    HANDOFF_TARGET: 'none',
    LINK_SECRET_ARN: SECRET_ARN,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsEndpoint,
    HANDBACK_INBOX_URL: 'https://inbox.example/inbox',
  });
  return { results: result, logs };
}

describe('the bundled API function with a link key in Secrets Manager', () => {
  it('keeps serving when Secrets Manager never answers: only the link routes are 503 link_key_unavailable', async () => {
    const silent = await silentEndpoint();
    const { results, logs } = await drive(silent.url, 'run-silent');
    // Init reads no key (a read at init would wait for an endpoint that never answers, and fail the whole function).
    expect(results.health).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(results.health.ms).toBeLessThan(1_000);
    expect(results.pause).toMatchObject({ status: 201, body: { status: 'paused' } });
    // The first use waits for the key read's deadline (one second), not for the function's timeout.
    expect(results.pause.ms).toBeLessThan(4_000);
    expect(results.pause.body).not.toHaveProperty('answerUrl');
    expect(logs).toContain('Pause created without its answer link: the link key is unavailable');
    expect(results.get).toMatchObject({
      status: 200,
      body: { status: 'paused', interruptId: results.pause.body.interruptId },
    });
    expect(results.linkPause).toMatchObject({
      status: 503,
      headers: { 'Content-Type': 'application/problem+json', 'Retry-After': expect.stringMatching(/^[1-5]$/) },
      body: { code: 'link_key_unavailable' },
    });
    // The failure is remembered a few seconds: the next link request fails fast, without another wait.
    expect(results.linkPauseAgain).toMatchObject({ status: 503, body: { code: 'link_key_unavailable' } });
    expect(results.linkPauseAgain.ms).toBeLessThan(500);
    // It was Secrets Manager that did not answer (the SDK went to the stand-in), not a request never sent.
    expect(silent.connections()).toBeGreaterThanOrEqual(1);
  });

  it('signs and opens links once Secrets Manager answers, reading the key once for every request', async () => {
    const stand = await secretsManager();
    const { results } = await drive(stand.url, 'run-answered');
    expect(results.pause.body.answerUrl).toMatch(/^https:\/\/inbox\.example\/inbox#/);
    expect(results.linkPause).toMatchObject({ status: 200, body: { interruptId: results.pause.body.interruptId } });
    expect(results.linkPauseAgain.status).toBe(200);
    expect(stand.calls).toEqual([{ target: 'secretsmanager.GetSecretValue', input: { SecretId: SECRET_ARN } }]);
  });
});
