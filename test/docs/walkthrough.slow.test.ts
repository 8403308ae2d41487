import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningService, startService, stopAll } from '../black-box/service.ts';
import { type Block, docPages, fencedBlocks, ROOT, readPage } from './markdown.ts';

/**
 * The shell commands of the README and the docs run as written. Every ```bash block is run, in order, in one bash
 * per session (a page's blocks share one unless a block names another with `session=<name>`), against a fresh local
 * service started as `npm start` runs it, with the session's `env.<VAR>=<value>` words as its environment. The
 * commands say `127.0.0.1:${PORT:-3000}`, as a reader's do; the test's bash has `PORT` set to the service's own
 * port, so a block naming a fixed port reaches nothing and fails. Ids travel between blocks as the reader's do, in
 * shell variables. Each `curl` reports its status and body, and each block's statuses must be those its comments state
 * (`# 201 …`), in order; where a comment shows a body after its status (`# 202 {"status":"paused",…}`), that curl's
 * body must read as shown, each `…` standing for any text. (```sh blocks are shown, not run: installing,
 * starting, deploying.)
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

/** A response a comment states: its status, and the body it shows, if it shows one. */
interface Shown {
  status: string;
  body?: string;
}

/** The responses a block's comments state, in order: `# 201 …` after a command, or on a line of its own. */
function expectedResponses(block: Block): Shown[] {
  return block.code.split('\n').flatMap((line) => {
    const match = /(?:^|\s)#\s*(\d{3})\b(.*)$/.exec(line);
    if (match === null) return [];
    const body = shownBody((match[2] as string).trim());
    return [{ status: match[1] as string, ...(body === undefined ? {} : { body }) }];
  });
}

/** The JSON a comment shows after its status (up to its closing bracket, so prose may follow), if it starts with one. */
function shownBody(text: string): string | undefined {
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  let depth = 0;
  let quoted = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (quoted) {
      if (char === '\\') at++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === '{' || char === '[') depth++;
    else if ((char === '}' || char === ']') && --depth === 0) return text.slice(0, at + 1);
  }
  return text;
}

/** Whether `body` reads as `shown`: the same text, each `…` of `shown` standing for any text. */
function readsAs(body: string, shown: string): boolean {
  const pattern = shown
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(body.trim());
}

/** Runs `script` in bash from the root with `env` added; resolves with its exit code, stdout and stderr. */
function bash(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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

/**
 * A `curl` that also writes its status and its body (base64, one line) to stderr, where the test reads them and the
 * commands' own output is not; the body still goes to stdout, as the reader's curl writes it.
 */
const PREAMBLE = `curl() {
  local body code
  body=$(mktemp)
  command curl --max-time 30 -o "$body" -w '%{stderr}@@status %{http_code}\\n' "$@"
  code=$?
  printf '@@body %s\\n' "$(base64 -w0 <"$body")" >&2
  cat "$body"
  rm -f "$body"
  return $code
}
`;

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
          PREAMBLE + session.blocks.map((block, index) => `printf '@@block ${index}\\n' >&2\n${block.code}\n`).join('');
        const run = await bash(script, { PORT: port });
        const ran = run.stderr.split('@@block ').slice(1);
        const failures = session.blocks.flatMap((block, index) => {
          const statuses = [...(ran[index] ?? '').matchAll(/@@status (\d{3})/g)].map((match) => match[1]);
          const bodies = [...(ran[index] ?? '').matchAll(/@@body (\S*)/g)].map((match) =>
            Buffer.from(match[1] as string, 'base64').toString('utf8'),
          );
          const expected = expectedResponses(block);
          if (JSON.stringify(statuses) !== JSON.stringify(expected.map((shown) => shown.status))) {
            return [
              `block at line ${block.line}: statuses ${statuses.join(', ') || 'none'}, comments say ${expected.map((shown) => shown.status).join(', ')}`,
            ];
          }
          return expected.flatMap((shown, at) =>
            shown.body === undefined ||
            readsAs(bodies[at] ?? '', shown.body.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`))
              ? []
              : [`block at line ${block.line}, response ${at + 1}: ${bodies[at]} does not read as ${shown.body}`],
          );
        });
        expect({ failures, code: run.code }, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toEqual({
          failures: [],
          code: 0,
        });
        expect(session.blocks.flatMap(expectedResponses).length).toBeGreaterThan(0);
      } finally {
        await service?.stop();
      }
    });
  },
);

describe('reading a shown response', () => {
  it.each([
    ['{"a":1,"b":2}', '{"a":1,…}', true],
    ['{"a":1,"b":2}', '{…,"b":2}', true],
    ['{"a":1,"b":2}', '{"b":2,…}', false],
    ['{"id":"1.1.xyz","n":[1,2]}', '{"id":"1.1.…","n":[…]}', true],
    ['{"a":"x.y"}', '{"a":"x…z"}', false],
  ])('reads %s as %s: %s', (body, shown, reads) => {
    expect(readsAs(body, shown)).toBe(reads);
  });

  it.each([
    ['{"code":"x",…}: each ask is decided once', '{"code":"x",…}'],
    ['{"a":"}"} and prose', '{"a":"}"}'],
    ['that one pause, and nothing else', undefined],
  ])('takes the body shown in “%s” as %s', (text, body) => {
    expect(shownBody(text)).toBe(body);
  });
});
