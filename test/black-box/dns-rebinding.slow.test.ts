import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/handlers/routes.ts';
import { type Handback, startHandback } from '../mcp/support.ts';
import { type RunningService, startService, stopAll } from './service.ts';

/**
 * The local service on a loopback address cannot be reached from a web page (§22): a page of another site that points
 * its own name at 127.0.0.1 (DNS rebinding) sends its own name as `Host`, and a page's request carries its `Origin`;
 * every route answers such a request 403 and changes nothing, with a token or without. Requests must be made with
 * `node:http` here: `fetch` sets `Host` itself.
 */

let handback: Handback;

beforeAll(async () => {
  handback = await startHandback();
});

afterAll(async () => {
  await stopAll();
});

/** One request to the service's port with the given headers; the status and the parsed problem, if any. */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
  const url = new URL(base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Record<string, unknown> | undefined;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

/** Every route of the table, its parameters filled in, and a route that is in no table. */
const paths = [
  ...ROUTES.map((route) => ({
    method: route.method,
    path: route.path
      .replace('{runId}', 'run-1')
      .replace('{interruptId}', 'pause-1')
      .replace('{continuationId}', 'continuation-1')
      .replace('{file}', 'index.html'),
  })),
  { method: 'GET', path: '/no/such/route' },
];

const pauseBody = {
  format: 'anthropic',
  messages: [
    { role: 'user', content: 'Write it' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Write', input: {} }] },
  ],
  asks: [{ toolCallId: 'toolu_1', kind: 'approval' }],
};

describe('the local service on 127.0.0.1', () => {
  const port = () => new URL(handback.url).port;

  it.each(paths)(
    'refuses $method $path addressed to another host, 403 forbidden naming the hosts it answers',
    async ({ method, path }) => {
      for (const token of [handback.agentToken, handback.personToken]) {
        const refused = await raw(handback.url, method, path, {
          host: `attacker.example:${port()}`,
          authorization: `Bearer ${token}`,
        });
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ status: 403, code: 'forbidden' });
        expect(refused.body?.detail).toContain('localhost, 127.0.0.1, [::1]');
      }
    },
  );

  it.each(paths)(
    'refuses $method $path from a page of another origin, even addressed to 127.0.0.1',
    async ({ method, path }) => {
      const refused = await raw(handback.url, method, path, {
        host: `127.0.0.1:${port()}`,
        origin: 'http://attacker.example',
        authorization: `Bearer ${handback.agentToken}`,
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'forbidden' });
    },
  );

  it('changes nothing for a refused request: a pause and an MCP call addressed to another host make no pause', async () => {
    const auth = { authorization: `Bearer ${handback.agentToken}` };
    const pause = await raw(
      handback.url,
      'POST',
      '/runs/rebound-run/pauses',
      { ...auth, host: 'rebind.example' },
      pauseBody,
    );
    expect(pause.status).toBe(403);
    const mcp = await raw(
      handback.url,
      'POST',
      '/mcp',
      { ...auth, host: 'rebind.example', accept: 'application/json, text/event-stream' },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask_person', arguments: { question: 'Hi?', ask_id: 'rebound' } },
      },
    );
    expect(mcp.status).toBe(403);
    const listed = await raw(handback.url, 'GET', '/pauses?limit=100', {
      authorization: `Bearer ${handback.personToken}`,
      host: `localhost:${port()}`,
    });
    expect(listed.status).toBe(200);
    const runs = ((listed.body?.items ?? []) as Array<{ runId: string }>).map((item) => item.runId);
    expect(runs).not.toContain('rebound-run');
    expect(runs).not.toContain('mcp-ask-rebound');
  });

  it.each([['localhost'], ['127.0.0.1'], ['[::1]'], ['LocalHost']])(
    'answers Host %s on its port, and on any other port',
    async (name) => {
      for (const host of [`${name}:${port()}`, `${name}:8080`, name]) {
        const health = await raw(handback.url, 'GET', '/health', { host, origin: `http://${name.toLowerCase()}:5173` });
        expect(health.status).toBe(200);
      }
    },
  );
});

describe('HANDBACK_ALLOWED_HOSTS', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService({ HANDBACK_ALLOWED_HOSTS: 'devbox.internal' });
  });

  it('adds the names it lists, and only those', async () => {
    expect((await raw(service.url, 'GET', '/health', { host: 'devbox.internal:3000' })).status).toBe(200);
    expect((await raw(service.url, 'GET', '/health', { host: 'localhost' })).status).toBe(200);
    const other = await raw(service.url, 'GET', '/health', { host: 'otherbox.internal' });
    expect(other.status).toBe(403);
    expect(other.body?.detail).toContain('devbox.internal');
  });
});
