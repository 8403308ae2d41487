import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compatibilityTable, nodeMajor } from '../../scripts/compatibility.ts';
import { ROOT } from './markdown.ts';

/**
 * docs/compatibility.md's table is what `npm run compatibility` writes from what the tests run, cell for cell: the
 * frameworks' installed versions, their declared Node.js, the peer ranges, and the Node.js major the tests run on.
 */

/** A table's cells, row by row, whatever the padding; separator rows left out. */
function cells(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

describe('docs/compatibility.md', () => {
  const page = readFileSync(join(ROOT, 'docs', 'compatibility.md'), 'utf8');

  it('holds the table of the framework versions and the Node.js the tests run on', () => {
    const table = compatibilityTable();
    const stale = 'docs/compatibility.md is out of date: npm run compatibility';
    expect(cells(page), stale).toEqual(cells(table));
    expect(page, stale).toContain(`Tested on Node.js ${nodeMajor(process.version)}.x;`);
    // Every adapter the package exports (a subpath built from functions/adapters/) has its rows, and only those.
    const { exports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, { types?: string }>;
    };
    const adapters = Object.entries(exports)
      .filter(([, entry]) => entry.types?.startsWith('./dist/adapters/'))
      .map(([subpath]) => `\`handback${subpath.slice(1)}\``);
    const rows = new Set(
      cells(table)
        .slice(1)
        .map((row) => row[0]),
    );
    expect([...rows].sort()).toEqual(adapters.sort());
  });
});
