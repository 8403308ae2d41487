import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `npx tsx examples/<file>` as a reader of the guide would, to its end. */
function runScript(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npx',
      ['--no-install', 'tsx', `examples/${file}`],
      { cwd: root, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      },
    );
  });
}

/**
 * One example run as a reader of the guide runs it, to its end: the entry lines every example ends with (run as a
 * script, `main()` prints its trace) and tsx resolving `handback` to the sources. What each example does is asserted
 * on its `main()` by its own test beside this one (`ai-sdk.slow.test.ts`, …; the others' traces too), so one script
 * stands for the five: `examples/openai.ts`, the one whose trace its own test does not read.
 */
describe('the examples, run as scripts', () => {
  it('npx tsx examples/openai.ts exits 0 and prints its trace', async () => {
    const run = await runScript('openai.ts');
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toMatch(/paused ticket-1042/);
    expect(run.stdout).toMatch(/model: /);
  });
});
