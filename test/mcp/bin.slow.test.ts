import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HANDBACK_BIN } from '../claude-code/claude.ts';

/** The built `handback` bin (`dist/cli/main.js`, what `npx --no-install handback` runs): the coding-agent commands of §18 and §22. */

const run = promisify(execFile);

/** Runs the bin; resolves with its exit code and output, whatever the code. */
async function handback(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [HANDBACK_BIN, ...args], {
      env: { PATH: process.env.PATH, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the handback bin', () => {
  it('lists mcp, channel, claude-hook, claude-resume and claude-pending in --help, each with its summary', async () => {
    const { code, stdout } = await handback(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}mcp +MCP server over stdio/m);
    expect(stdout).toMatch(/^ {2}channel +Claude Code channel/m);
    expect(stdout).toMatch(/^ {2}claude-hook +Claude Code PreToolUse hook/m);
    expect(stdout).toMatch(/^ {2}claude-resume +Resumes each deferred Claude Code session/m);
    expect(stdout).toMatch(/^ {2}claude-pending +Lists the Claude Code calls the hook deferred/m);
  });

  it.each([
    ['mcp', /Usage: handback mcp\n[\s\S]*HANDBACK_MCP_WAIT_SECONDS/],
    ['channel', /Usage: handback channel[\s\S]*claude\/channel\/permission[\s\S]*answered at the terminal or closed/],
    ['claude-hook', /Usage: handback claude-hook[\s\S]*"defer"[\s\S]*fail closed/],
    ['claude-resume', /Usage: handback claude-resume[\s\S]*--watch[\s\S]*claude -p --resume <session>/],
    ['claude-pending', /Usage: handback claude-pending \[--json\][\s\S]*tool_deferred/],
  ])('prints the help of %s', async (command, help) => {
    const { code, stdout } = await handback([command, '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(help);
  });

  it.each([
    [['mcp', 'extra'], /takes no arguments/],
    [['claude-hook', 'extra'], /takes no arguments/],
    [['channel', 'extra'], /takes no arguments/],
    [['claude-resume', '--interval', 'soon'], /--interval soon must be a number/],
    [['claude-resume', '--nope'], /Unknown option/],
    [['claude-pending', '--nope'], /Unknown option/],
  ])('refuses %j with exit 2, saying why', async (args, why) => {
    const { code, stderr } = await handback(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(why);
  });

  it('tells handback mcp and claude-resume with nothing configured what to set, exit 1', async () => {
    for (const command of ['mcp', 'claude-resume']) {
      const { code, stderr } = await handback([command]);
      expect(code).toBe(1);
      expect(stderr).toMatch(/set HANDBACK_URL \(and HANDBACK_TOKEN\)/);
    }
  });

  it('refuses to start handback channel without a Claude Code session id (a UUID), exit 1', async () => {
    const missing = await handback(['channel']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/CLAUDE_CODE_SESSION_ID is not set/);
    const forged = await handback(['channel'], { CLAUDE_CODE_SESSION_ID: '--resume' });
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/not a Claude Code session id \(a UUID\): --resume/);
  });
});
