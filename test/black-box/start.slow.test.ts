import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, request, startFailing, startService, stopAll } from './service.ts';

/** How `npm start` starts, and how it refuses to: one line a person can act on, and exit code 1. */

afterAll(stopAll);

const lines = (output: string) =>
  output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

describe('npm start', () => {
  it('says in one line that the port is in use, and exits 1', async () => {
    const port = await freePort();
    const other: Server = createServer();
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', () => resolve()));
    try {
      const { code, output } = await startFailing({ PORT: String(port) });
      expect(code).toBe(1);
      expect(lines(output)).toEqual([
        `Port ${port} is in use: stop the other process or set PORT=<another port> (e.g. PORT=${port + 1} npm start).`,
      ]);
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('refuses a HANDBACK_JWT_SECRET shorter than 32 bytes in one line that does not repeat it, and exits 1', async () => {
    const secret = 'a-secret-of-thirty-one-bytes-xx';
    expect(Buffer.byteLength(secret)).toBe(31);
    const { code, output } = await startFailing({ HANDBACK_JWT_SECRET: secret });
    expect(code).toBe(1);
    expect(lines(output)).toEqual([
      'HANDBACK_JWT_SECRET is 31 bytes; an HS256 key needs at least 32 (256 bits): e.g. HANDBACK_JWT_SECRET=$(openssl rand -base64 32)',
    ]);
  });

  it('says in one line that PORT is not a port number, and exits 1', async () => {
    const { code, output } = await startFailing({ PORT: 'three-thousand' });
    expect(code).toBe(1);
    expect(lines(output)).toEqual([
      'PORT=three-thousand is not a port number: set PORT to one from 0 to 65535 (0 picks a free one).',
    ]);
  });

  it('refuses a HANDBACK_DIRECTORY file two persons share an email in, in one line naming the entry, and exits 1', async () => {
    const { code, output } = await startFailing({ HANDBACK_DIRECTORY: 'test/fixtures/directory/shared-email.json' });
    expect(code).toBe(1);
    expect(lines(output)).toEqual([
      'The directory file test/fixtures/directory/shared-email.json at /people/1: the email "ANN@example.com" is already "ann"\'s.',
    ]);
  });

  it('listens on HOST and prints its URL with it', async () => {
    const service = await startService({ HOST: 'localhost' });
    expect(service.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect(await request(`${service.url}/health`, 'GET')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await service.stop()).toBe(0);
  });

  it('prints its URLs (the embedded S3 server’s, its own) and nothing else: no AWS SDK notice about Node versions, even when the environment has no say', async () => {
    const service = await startService({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined });
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await request(`${service.url}/pauses`, 'GET')).toMatchObject({ status: 200 });
    expect(await service.stop()).toBe(0);
    expect(lines(service.output())).toEqual([
      expect.stringMatching(/^S3 on http:\/\/127\.0\.0\.1:\d+$/),
      `Handback listening on ${service.url}`,
      'Handback stopping (SIGTERM)',
    ]);
  });
});
