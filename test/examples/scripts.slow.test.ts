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

describe.concurrent('the examples, run as scripts', () => {
  it.each(['ai-sdk.ts', 'langgraph.ts', 'openai.ts', 'openai-agents.ts', 'strands.ts'])(
    'npx tsx examples/%s exits 0 and prints its trace',
    async (file) => {
      const run = await runScript(file);
      expect(run, run.stderr).toMatchObject({ code: 0 });
      expect(run.stdout).toMatch(/paused ticket-1042/);
      expect(run.stdout).toMatch(/model: /);
    },
  );
});
