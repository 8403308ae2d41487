import { describe, expect, it } from 'vitest';
import { exists, readPage } from './markdown.ts';

/** Every path docs/architecture.md names in backticks: a file or folder of the repository. */
function namedPaths(): string[] {
  const text = readPage('docs/architecture.md');
  const paths = [...text.matchAll(/`((?:functions|infra|test|scripts|bench)\/[^`\s]*)`/g)].map((match) => match[1]);
  return [...new Set(paths as string[])];
}

describe('docs/architecture.md', () => {
  it('names only modules and folders that exist', () => {
    const named = namedPaths();
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((path) => !exists(path.replace(/\/$/, '')))).toEqual([]);
  });
});
