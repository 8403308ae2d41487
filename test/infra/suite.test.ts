import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoPath } from '../../infra/paths.ts';

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
