import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHandbackClient, HandbackHttpError, StorageUnavailableError } from '../../functions/client/index.ts';
import { aiSdkRound, reply, standIn, useLocalService } from './support.ts';

const service = useLocalService();

/**
 * A proxy in front of the local service that passes every request on, but for the first `failures` requests throws
 * the service's answer away: it answers 503 instead, or drops the connection (a network failure). So the first
 * attempt did make the pause, and only its answer was lost.
 */
async function lossyProxy(failures: number, how: '503' | 'drop') {
  const keys: Array<string | undefined> = [];
  let seen = 0;
  const server = createServer((req, res) => {
    keys.push(req.headers['idempotency-key'] as string | undefined);
    const target = new URL(service.url);
    const upstream = forward(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        if (seen++ < failures) {
          answer.resume();
          if (how === 'drop') return res.socket?.destroy();
          return reply(res, 503, { code: 'storage_unavailable', status: 503, detail: 'lost' }, { 'retry-after': '0' });
        }
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url, keys, close };
}

const pauseOn = (baseUrl: string, runId: string) =>
  createHandbackClient({ baseUrl, retryDelayMs: 1 }).pause({
    runId,
    format: 'ai-sdk',
    messages: aiSdkRound(),
    toolCallId: 'call_ask',
  });

describe('retries', () => {
  it.each(['503', 'drop'] as const)(
    'retries a pause whose answer was lost (%s) under one Idempotency-Key, and one pause is made',
    async (how) => {
      const proxy = await lossyProxy(2, how);
      try {
        const runId = `retried-${how}-${Date.now()}`;
        const paused = await pauseOn(proxy.url, runId);
        expect(proxy.keys).toHaveLength(3);
        expect(new Set(proxy.keys).size).toBe(1);
        expect(proxy.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
        const listed = await createHandbackClient({ baseUrl: service.url }).listPauses({ limit: 100 });
        const ofRun = listed.items.filter((item) => item.runId === runId);
        expect(ofRun.map((item) => item.interruptId)).toEqual([paused.interruptId]);
      } finally {
        await proxy.close();
      }
    },
  );

  it('gives each pause a key of its own', async () => {
    const proxy = await lossyProxy(0, '503');
    try {
      await pauseOn(proxy.url, `own-key-a-${Date.now()}`);
      await pauseOn(proxy.url, `own-key-b-${Date.now()}`);
      expect(new Set(proxy.keys).size).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('gives up after maxAttempts on a service that stays at 503, throwing StorageUnavailableError', async () => {
    const down = await standIn((_, res) =>
      reply(res, 503, { code: 'storage_unavailable', status: 503, detail: 'down' }, { 'retry-after': '0' }),
    );
    try {
      const client = createHandbackClient({ baseUrl: down.url, maxAttempts: 4, retryDelayMs: 1 });
      await expect(client.getPause({ runId: 'r', interruptId: 'i' })).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(down.received).toHaveLength(4);
    } finally {
      await down.close();
    }
  });

  it('waits as long as Retry-After says before the next attempt', async () => {
    const times: number[] = [];
    const slow = await standIn((_, res, index) => {
      times.push(Date.now());
      if (index === 0) return reply(res, 503, { code: 'storage_unavailable', status: 503 }, { 'retry-after': '1' });
      return reply(res, 200, { items: [] });
    });
    try {
      await createHandbackClient({ baseUrl: slow.url, retryDelayMs: 1 }).listPauses();
      expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(950);
    } finally {
      await slow.close();
    }
  });

  it('does not repeat createLink: a second request would mint a second link', async () => {
    const down = await standIn((_, res) => reply(res, 503, { code: 'storage_unavailable', status: 503 }));
    try {
      const client = createHandbackClient({ baseUrl: down.url, retryDelayMs: 1 });
      await expect(
        client.createLink({ runId: 'r', interruptId: 'i', email: 'ada@example.com' }),
      ).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(down.received).toHaveLength(1);
    } finally {
      await down.close();
    }
  });
});

describe('timeouts', () => {
  it('abandons an attempt after timeoutMs, retries it, then throws HandbackHttpError with code timeout', async () => {
    const silent = await standIn(() => {});
    try {
      const client = createHandbackClient({ baseUrl: silent.url, timeoutMs: 150, maxAttempts: 2, retryDelayMs: 1 });
      const started = Date.now();
      const error = await client.getPause({ runId: 'r', interruptId: 'i' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HandbackHttpError);
      expect(error).toMatchObject({ code: 'timeout', status: undefined });
      expect((error as Error).message).toMatch(/timed out after 150 ms on each of 2 attempts/);
      expect(silent.received).toHaveLength(2);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await silent.close();
    }
  });

  it('throws HandbackHttpError with code network_error where nothing listens', async () => {
    const gone = await standIn(() => {});
    const url = gone.url;
    await gone.close();
    const error = await createHandbackClient({ baseUrl: url, maxAttempts: 2, retryDelayMs: 1 })
      .listPauses()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'HandbackHttpError', code: 'network_error', status: undefined });
  });
});

describe('createLink', () => {
  it('posts {email, name} to the pause’s links route and returns the 201 body', async () => {
    const links = await standIn((_, res) =>
      reply(res, 201, { answerUrl: 'http://x/inbox#t', recipient: { email: 'ada@example.com', name: 'Ada' } }),
    );
    try {
      const link = await createHandbackClient({ baseUrl: `${links.url}/prod/`, token: 'tok' }).createLink({
        runId: 'run 1',
        interruptId: 'int_1',
        email: 'ada@example.com',
        name: 'Ada',
      });
      expect(link).toEqual({ answerUrl: 'http://x/inbox#t', recipient: { email: 'ada@example.com', name: 'Ada' } });
      expect(links.received[0]).toMatchObject({
        method: 'POST',
        url: '/prod/runs/run%201/pauses/int_1/links',
        body: JSON.stringify({ email: 'ada@example.com', name: 'Ada' }),
      });
      expect(links.received[0]?.headers).toMatchObject({
        authorization: 'Bearer tok',
        'content-type': 'application/json',
      });
    } finally {
      await links.close();
    }
  });

  it('asks for a delivered link with deliver: true and returns the 202 body, without a URL (§16)', async () => {
    const links = await standIn((_, res) =>
      reply(res, 202, { recipient: { email: 'ada@example.com' }, delivered: true }),
    );
    try {
      const delivered = await createHandbackClient({ baseUrl: links.url, token: 'tok' }).createLink({
        runId: 'run-1',
        interruptId: 'int_1',
        email: 'ada@example.com',
        deliver: true,
      });
      expect(delivered).toEqual({ recipient: { email: 'ada@example.com' }, delivered: true });
      expect(links.received[0]?.body).toBe(JSON.stringify({ email: 'ada@example.com', deliver: true }));
    } finally {
      await links.close();
    }
  });
});
