import { createRequire, syncBuiltinESMExports } from 'node:module';

/**
 * A setup file of the `unit` and `store` projects (`vitest.config.ts`): a test that starts a child process — `npm
 * start`, a bundle's child, esbuild (its service is a process), Chromium — fails at once, naming the project it belongs
 * in. The test projects, by file name: `*.test.ts` is `unit` (no store, no process; its one global setup builds the
 * inbox's module), `*.store.test.ts` is `store` (the embedded store, no process), `*.slow.test.ts` is `slow`
 * (anything). The README's "Develop" says which to run when.
 */

const processes = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  processes[name] = () => {
    throw new Error(
      `This test starts a child process (child_process.${name}): name its file *.slow.test.ts (the README's "Develop" says why).`,
    );
  };
}
// `import { spawn } from 'node:child_process'` sees the same functions.
syncBuiltinESMExports();
