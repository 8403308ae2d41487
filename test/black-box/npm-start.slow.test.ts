import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './service.ts';

/**
 * `npm start` itself, as an operator runs it (npm, its shell, then node): a SIGTERM to npm stops the service and frees
 * its port, and a setting that cannot work is refused in a line that names it. `--ignore-scripts` skips `prestart`
 * (the inbox build, which the global setup has done), not the start script.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const children = new Set<ChildProcess>();

// Each npm in a process group of its own: whatever it leaves behind (a node holding the port, when a SIGTERM does not
// reach it) is killed with the group.
afterAll(() => {
  for (const child of children) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is gone: nothing was left behind.
    }
  }
});

function npmStart(env: Record<string, string>) {
  const child = spawn('npm', ['start', '--ignore-scripts', '--silent'], {
    cwd: root,
    env: { ...process.env, DYNAMODB_ENDPOINT: '', LOG_LEVEL: 'WARN', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return { child, exited, output: () => output };
}

async function until(probe: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether something listens on `port` (a listen there fails with EADDRINUSE). */
async function held(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

describe('npm start', () => {
  it('stops on a SIGTERM to npm and frees its port', async () => {
    const port = await freePort();
    const service = npmStart({ PORT: String(port) });
    await until(() => service.output().includes(`Handback listening on http://127.0.0.1:${port}`), 'the service');
    expect(await held(port)).toBe(true);
    service.child.kill('SIGTERM');
    await service.exited;
    await until(() => service.output().includes('Handback stopping (SIGTERM)'), 'the service to stop', 10_000);
    let free = false;
    const end = Date.now() + 10_000;
    while (!free && Date.now() < end) {
      free = !(await held(port));
      if (!free) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(free).toBe(true);
  });

  it.each([
    [
      'HANDBACK_SMTP_URL without a scheme',
      { HANDBACK_SMTP_URL: '127.0.0.1:2525', HANDBACK_EMAIL_FROM: 'handback@example.com' },
      'HANDBACK_SMTP_URL must be an smtp:// or smtps:// URL, such as smtp://127.0.0.1:1025 or smtps://user:password@host:465, not "127.0.0.1:2525".',
    ],
    [
      'a HANDBACK_EMAIL_FROM that is no address',
      { HANDBACK_SMTP_URL: 'smtp://127.0.0.1:2525', HANDBACK_EMAIL_FROM: 'Handback' },
      'HANDBACK_EMAIL_FROM must be an email address, or Name <address> (a verified SES identity, or an address of a verified domain, on AWS), not "Handback".',
    ],
  ])('refuses %s in one line naming it, and exits 1', async (_what, env, line) => {
    const service = npmStart({
      PORT: String(await freePort()),
      HANDBACK_LINK_SECRET: 'a-link-secret-of-at-least-thirty-two-bytes',
      ...env,
    });
    expect(await service.exited).toBe(1);
    expect(
      service
        .output()
        .split('\n')
        .map((text) => text.trim()),
    ).toContain(line);
  });
});
