import { describe, expect, it } from 'vitest';
import { docPages, readPage, sourceFiles } from './markdown.ts';

/**
 * Every way the docs and the bin's help run Handback's commands is `npx --no-install handback` (§22): `npx handback`
 * asks the public registry for a package of that name, which is not this one, and a hook gating every call would run
 * whatever is published there.
 */

/** `npx handback …`, or `"npx"` with `"args": ["handback", …]`, without `--no-install` first. */
const FETCHED = /npx\s+(?!--no-install\b)(?:-\S+\s+)*handback\b|"args":\s*\[\s*"handback"/;

describe('npx in the docs, the examples and the help', () => {
  it('runs handback with --no-install wherever it runs it', () => {
    const files = [...docPages(), ...sourceFiles(['examples', 'functions/cli'])];
    const found = files.flatMap((file) =>
      readPage(file)
        .split('\n')
        .flatMap((line, index) => (FETCHED.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('finds what it forbids', () => {
    expect(FETCHED.test('npx handback claude-hook')).toBe(true);
    expect(FETCHED.test('"args": ["handback", "mcp"]')).toBe(true);
    expect(FETCHED.test('npx --no-install handback channel')).toBe(false);
    expect(FETCHED.test('"args": ["--no-install", "handback", "mcp"]')).toBe(false);
  });
});
