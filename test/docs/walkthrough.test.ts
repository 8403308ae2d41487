import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningService, startService, stopAll } from '../black-box/service.ts';
import { type Block, docPages, fencedBlocks, ROOT, readPage } from './markdown.ts';

/**
 * The shell commands of the README and the docs run as written. Every ```bash block is run, in order, in one bash
 * per session (a page's blocks share one unless a block names another with `session=<name>`), against a fresh local
 * service started as `npm start` runs it, with the session's `env.<VAR>=<value>` words as its environment. The
 * commands say `127.0.0.1:3000`; the test points them at the service's own port. Ids travel between blocks as the
 * reader's do, in shell variables. Each `curl` reports its status, and each block's statuses must be those its
 * comments state (`# 201 …`), in order. (```sh blocks are shown, not run: installing, starting, deploying.)
 */

interface Session {
  page: string;
  name: string;
  env: Record<string, string>;
  blocks: Block[];
}

function sessions(): Session[] {
  const found: Session[] = [];
  for (const page of docPages()) {
    const byName = new Map<string, Session>();
    for (const block of fencedBlocks(readPage(page))) {
      if (block.lang !== 'bash') continue;
      const name = block.attributes.session ?? 'main';
      let session = byName.get(name);
      if (session === undefined) {
        session = { page, name, env: {}, blocks: [] };
        byName.set(name, session);
        found.push(session);
      }
      for (const [key, value] of Object.entries(block.attributes)) {
        if (key.startsWith('env.')) session.env[key.slice(4)] = value;
      }
      session.blocks.push(block);
    }
  }
  return found;
}

/** The statuses a block's comments state, in order: `# 201 …` after a command, or on a line of its own. */
function expectedStatuses(block: Block): string[] {
  return block.code.split('\n').flatMap((line) => {
    const status = /(?:^|\s)#\s*(\d{3})\b/.exec(line)?.[1];
    return status === undefined ? [] : [status];
  });
}

/** Runs `script` in bash from the root; resolves with its exit code, stdout and stderr. */
function bash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A `curl` that also writes its status to stderr, where the test reads it and the commands' own output is not. */
const PREAMBLE = `curl() { command curl --max-time 30 -w '%{stderr}@@status %{http_code}\\n' "$@"; }\n`;

afterAll(stopAll);

describe.each(sessions().map((session) => [`${session.page} (${session.name})`, session] as const))(
  'the shell commands of %s',
  (_, session) => {
    it('run as written, each curl answering the status its comment states', async () => {
      let service: RunningService | undefined;
      try {
        service = await startService(session.env);
        const port = new URL(service.url).port;
        const script =
          PREAMBLE +
          session.blocks
            .map(
              (block, index) =>
                `printf '@@block ${index}\\n' >&2\n${block.code.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`)}\n`,
            )
            .join('');
        const run = await bash(script);
        const ran = run.stderr.split('@@block ').slice(1);
        const failures = session.blocks.flatMap((block, index) => {
          const statuses = [...(ran[index] ?? '').matchAll(/@@status (\d{3})/g)].map((match) => match[1]);
          const expected = expectedStatuses(block);
          return JSON.stringify(statuses) === JSON.stringify(expected)
            ? []
            : [
                `block at line ${block.line}: statuses ${statuses.join(', ') || 'none'}, comments say ${expected.join(', ')}`,
              ];
        });
        expect({ failures, code: run.code }, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toEqual({
          failures: [],
          code: 0,
        });
        expect(session.blocks.flatMap(expectedStatuses).length).toBeGreaterThan(0);
      } finally {
        await service?.stop();
      }
    });
  },
);
