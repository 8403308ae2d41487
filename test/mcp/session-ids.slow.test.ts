import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferredDir } from '../../functions/mcp/claude-deferred.ts';
import { request, stopAll } from '../black-box/service.ts';
import { HANDBACK_BIN } from '../claude-code/claude.ts';
import { type Handback, startHandback } from './support.ts';

/**
 * A Claude Code session id is a UUID before it reaches anything (§22): the service refuses a `claude-` run that is not
 * `claude-<uuid>`, the hook denies a session id that is not one, and `claude-resume` refuses one — whether named on
 * its command line or read from a deferred record — before any `claude` process starts. A fake `claude` first on
 * `PATH` writes down every start: what it never writes, never ran.
 */

let handback: Handback;
let bin: string;
let starts: string;

beforeAll(async () => {
  handback = await startHandback();
  bin = mkdtempSync(join(tmpdir(), 'handback-fake-claude-'));
  starts = join(bin, 'starts.log');
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${starts}'\n`);
  chmodSync(join(bin, 'claude'), 0o755);
});

afterAll(async () => {
  await stopAll();
});

/** The bin with the fake claude first on PATH; its exit code and output. */
function handbackBin(args: string[], env: NodeJS.ProcessEnv = {}, stdin?: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [HANDBACK_BIN, ...args],
      { env: { PATH: `${bin}:${process.env.PATH}`, HOME: bin, ...env }, cwd: bin },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
    child.stdin?.end(stdin ?? '');
  });
}

const started = () => (existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean) : []);

const pauseBody = (id: string) => ({
  format: 'anthropic',
  messages: [
    { role: 'user', content: 'Write it' },
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Write', input: {} }] },
  ],
  asks: [{ toolCallId: id, kind: 'approval' }],
});

describe('a Claude Code run id at the service', () => {
  it.each([['claude---dangerously-skip-permissions'], ['claude-abc'], [`claude-${randomUUID()}x`]])(
    'refuses a pause in run %s, 400 naming the run id',
    async (runId) => {
      const refused = await request(`${handback.url}/runs/${runId}/pauses`, 'POST', pauseBody('toolu_1'), {
        authorization: `Bearer ${handback.agentToken}`,
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'bad_request' });
      expect(JSON.stringify(refused.body)).toContain('claude-<session id, a UUID>');
    },
  );

  it('takes a pause in run claude-<uuid>', async () => {
    const made = await request(`${handback.url}/runs/claude-${randomUUID()}/pauses`, 'POST', pauseBody('toolu_2'), {
      authorization: `Bearer ${handback.agentToken}`,
    });
    expect(made.status).toBe(201);
  });
});

describe('handback claude-hook', () => {
  it('denies a call whose session id is not a UUID, saying so', async () => {
    const input = {
      session_id: '--dangerously-skip-permissions',
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { file_path: 'a.txt', content: 'hi' },
      tool_use_id: 'toolu_01A',
    };
    const run = await handbackBin(
      ['claude-hook'],
      { HANDBACK_URL: handback.url, HANDBACK_TOKEN: handback.agentToken },
      JSON.stringify(input),
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining('must be a Claude Code session id (a UUID)'),
      },
    });
  });
});

describe('handback claude-resume', () => {
  it.each([
    [['--run', 'claude---dangerously-skip-permissions']],
    [['--run', 'mcp-toolu_01A']],
    [['--session=--dangerously-skip-permissions']],
    [['--session', `${randomUUID()} --print`]],
  ])('refuses %j with exit 2, starting no claude', async (args) => {
    const before = started().length;
    const run = await handbackBin(['claude-resume', ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('not a Claude Code session');
    expect(started()).toHaveLength(before);
  });

  it('starts claude -p --resume <session> for a run claude-<uuid>', async () => {
    const session = randomUUID();
    const run = await handbackBin(['claude-resume', '--run', `claude-${session}`]);
    expect(run.code, run.stderr).toBe(0);
    expect(started().at(-1)).toBe(`-p --resume ${session}`);
  });

  it('refuses and forgets a deferred record whose session is not a UUID, starting no claude', async () => {
    const state = mkdtempSync(join(tmpdir(), 'handback-state-'));
    const env = { HANDBACK_STATE_DIR: state, HANDBACK_URL: handback.url, HANDBACK_TOKEN: handback.agentToken };
    const dir = deferredDir(env);
    mkdirSync(dir, { recursive: true });
    const forged = {
      sessionId: '--dangerously-skip-permissions',
      runId: 'claude---dangerously-skip-permissions',
      interruptId: 'forged',
      toolUseId: 'toolu_01A',
      toolName: 'Bash',
      cwd: bin,
      deferredAt: new Date().toISOString(),
    };
    writeFileSync(join(dir, 'forged.json'), JSON.stringify(forged));
    const before = started().length;
    const run = await handbackBin(['claude-resume'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not a Claude Code session (a UUID); nothing was started');
    expect(started()).toHaveLength(before);
    expect(readdirSync(dir)).toEqual([]);
  });
});
