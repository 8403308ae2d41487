import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HANDBACK_BIN } from '../claude-code/claude.ts';

/**
 * `npx --no-install handback policies check` (§19), the built bin: a policy file loaded as the service loads it, each
 * call of a calls file judged and printed with its outcome, its policies and what it requires; exit 1 on a file that
 * does not load (file:line:column), 2 on a usage error.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const POLICIES = 'test/fixtures/policies/edits.cedar';
const SCHEMA = 'test/fixtures/policies/edits.cedarschema';
const CALLS = 'test/fixtures/policies/calls.json';

async function handback(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [HANDBACK_BIN, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('handback policies check', () => {
  it('prints each call’s outcome, the policies that decided it and what it requires of people', async () => {
    const { code, stdout, stderr } = await handback([
      'policies',
      'check',
      POLICIES,
      '--schema',
      SCHEMA,
      '--calls',
      CALLS,
    ]);
    expect([code, stderr]).toEqual([0, '']);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^test\/fixtures\/policies\/edits\.cedar: 3 policies, version [0-9a-f]{16}, mode enforce, default ask, time zone UTC$/,
    );
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        /^1\. refund_order by agent agent at \S+: ask by finance-over-100; requires group:finance; 2 approvals$/,
      ),
      expect.stringMatching(
        /^2\. refund_order by agent agent at \S+: reject by never-over-10000: Refunds over 10,000 go through the bank$/,
      ),
      expect.stringMatching(
        /^3\. delete_invoice by agent agent at \S+: reject by no-deletes: Nothing is deleted by an agent$/,
      ),
      expect.stringMatching(/^4\. refund_order by agent agent at \S+: reject by \(error\): .*does not fit a Long/),
      '5. refund_order by person ann at 2026-03-02T20:00:00.000Z: ask by (default)',
    ]);
  });

  it('answers JSON with --json, each call’s policy view and the set’s version', async () => {
    const { code, stdout } = await handback([
      'policies',
      'check',
      POLICIES,
      '--schema',
      SCHEMA,
      '--calls',
      CALLS,
      '--json',
    ]);
    expect(code).toBe(0);
    const body = JSON.parse(stdout);
    expect(body).toMatchObject({ version: expect.stringMatching(/^[0-9a-f]{16}$/), mode: 'enforce', default: 'ask' });
    expect(body.calls[1].policy).toMatchObject({
      outcome: 'reject',
      policyIds: ['never-over-10000'],
      version: body.version,
    });
    expect(body.calls).toHaveLength(5);
  });

  it('judges business hours in the time zone it is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'handback-policies-'));
    const hours = join(dir, 'hours.cedar');
    writeFileSync(
      hours,
      `@id("in-hours")
permit(principal, action == Handback::Action::"callWithoutApproval", resource)
when { context.clock.hour >= 9 && context.clock.hour < 18 };`,
    );
    const calls = join(dir, 'calls.json');
    writeFileSync(calls, JSON.stringify([{ tool: 'send_email', at: '2026-03-02T20:00:00Z' }]));
    const paris = await handback(['policies', 'check', hours, '--calls', calls, '--time-zone', 'Europe/Paris']);
    expect(paris.stdout).toContain('1. send_email by agent agent at 2026-03-02T20:00:00.000Z: ask by (default)');
    const tokyo = await handback(['policies', 'check', hours, '--calls', calls, '--time-zone', 'America/Los_Angeles']);
    expect(tokyo.stdout).toContain('1. send_email by agent agent at 2026-03-02T20:00:00.000Z: approve by in-hours');
  });

  it('exits 1 on a policy file that does not load, naming its file, line and column, and prints no call', async () => {
    const { code, stdout, stderr } = await handback([
      'policies',
      'check',
      'test/fixtures/policies/bad.cedar',
      '--calls',
      CALLS,
    ]);
    expect([code, stdout]).toEqual([1, '']);
    expect(stderr).toContain('test/fixtures/policies/bad.cedar:3:58: failed to parse policies from string');
  });

  it('exits 1 on a calls file that is not a list of calls, naming what is wrong', async () => {
    const { code, stderr } = await handback(['policies', 'check', POLICIES, '--schema', SCHEMA, '--calls', POLICIES]);
    expect(code).toBe(1);
    expect(stderr).toContain(`handback policies: ${POLICIES}:`);
    const dir = mkdtempSync(join(tmpdir(), 'handback-policies-'));
    const calls = join(dir, 'calls.json');
    writeFileSync(calls, JSON.stringify([{ args: {} }]));
    const missing = await handback(['policies', 'check', POLICIES, '--schema', SCHEMA, '--calls', calls]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('0/tool is required');
  });

  it.each([
    [['policies', 'check', POLICIES], 'check needs --calls <calls.json>'],
    [['policies', 'lint', POLICIES, '--calls', CALLS], 'Unknown subcommand "lint"'],
    [['policies', 'check', POLICIES, '--calls', CALLS, '--mode', 'loud'], '--mode must be enforce or shadow'],
    [['policies', 'check', POLICIES, '--calls', CALLS, '--time-zone', 'Mars/Olympus'], '--time-zone must be an IANA'],
  ])('exits 2 on a usage error: %j', async (args, words) => {
    const { code, stderr } = await handback(args);
    expect(code).toBe(2);
    expect(stderr).toContain(words);
  });
});
