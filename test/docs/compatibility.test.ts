import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compatibilityTable } from '../../scripts/compatibility.ts';
import { ROOT } from './markdown.ts';

/** docs/compatibility.md's table is what `npm run compatibility` writes from what the tests run, cell for cell. */

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
    expect(cells(page)).toEqual(cells(table));
    expect(page).toContain(`Tested on Node.js ${process.version.replace(/^v/, '')}`);
  });
});
