import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoPath } from '../../infra/paths.ts';
import { OWN_PROCESS } from '../../vitest.config.ts';

/**
 * Where the stack is synthesized in the tests: only in the `slow` project (`*.slow.test.ts`), and only through
 * `test/infra/synth.ts`, which synthesizes each set of props and context once for every file that asks for it.
 */

/** Every test module under `test/`, by its path from the root. */
const TESTS = (readdirSync(repoPath('test'), { recursive: true }) as string[])
  .filter((name) => name.endsWith('.ts'))
  .map((name) => join('test', name));

/** Whether a module's source synthesizes, or asks `synth.ts` to. */
const synthesizes = (source: string) =>
  /\bnew HandbackStack\(|\.synth\(\)|from '(\.\.\/infra|\.)\/synth\.ts'|\bTemplate\.fromStack\(/.test(source);

describe('synthesis in the tests', () => {
  it('runs in no unit or store test file', () => {
    const fast = TESTS.filter((path) => /\.test\.ts$/.test(path) && !path.endsWith('.slow.test.ts'));
    expect(fast.filter((path) => synthesizes(readFileSync(repoPath(path), 'utf8')))).toEqual([]);
  });

  it('makes a HandbackStack only in synth.ts and the tests of settings that cannot synthesize', () => {
    const making = TESTS.filter((path) => /\bnew HandbackStack\(/.test(readFileSync(repoPath(path), 'utf8')));
    expect(making.sort()).toEqual(['test/infra/settings.slow.test.ts', 'test/infra/synth.ts']);
  });
});

/**
 * Whether a test module changes what its process holds for the files after it: a module mocked, a global stubbed, the
 * environment or the working directory changed.
 */
const changesItsProcess = (source: string) =>
  /\bvi\.(mock|doMock|stubEnv|stubGlobal)\(|\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]|\bdelete process\.env\b|Object\.assign\(process\.env\b|\bprocess\.chdir\(/.test(
    source,
  );

describe('the store and slow files that run in a process of their own', () => {
  it('are exactly those that change what their process holds (vitest.config.ts, OWN_PROCESS)', () => {
    const sharing = TESTS.filter((path) => path.endsWith('.store.test.ts') || path.endsWith('.slow.test.ts'));
    expect(sharing.filter((path) => changesItsProcess(readFileSync(repoPath(path), 'utf8'))).sort()).toEqual(
      [...OWN_PROCESS].sort(),
    );
  });

  it('sees a mock, a stubbed variable and a set one, and not a read', () => {
    expect(changesItsProcess("vi.mock('./x.ts')")).toBe(true);
    expect(changesItsProcess("vi.stubEnv('A', 'b')")).toBe(true);
    expect(changesItsProcess("process.env.HANDBACK_X = 'y'")).toBe(true);
    expect(changesItsProcess("process.env['A'] = 'b'")).toBe(true);
    expect(changesItsProcess('delete process.env.A')).toBe(true);
    expect(changesItsProcess("if (process.env.A === 'b') {}")).toBe(false);
    expect(changesItsProcess('const a = process.env.A;')).toBe(false);
  });
});
