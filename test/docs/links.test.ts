import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, exists, headings, links, prose, readPage } from './markdown.ts';

/** The README's budget: a newcomer reads it top to bottom; the reference (cancel and expiry, two people voting, every route) is in docs/. */
const README_MAX_LINES = 360;

/**
 * Where a relative link points, from the root, with its anchor; undefined for a link that leaves the repository
 * (a URL, an email address).
 */
function resolve(page: string, target: string): { path: string; anchor?: string } | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [rawPath = '', anchor] = target.split('#');
  const path = rawPath === '' ? page : normalize(join(dirname(page), decodeURIComponent(rawPath)));
  return anchor === undefined ? { path } : { path, anchor };
}

describe.each(docPages())('%s', (page) => {
  const text = readPage(page);

  it('links only to files that exist, and to headings that exist', () => {
    const broken: string[] = [];
    for (const link of links(text)) {
      const to = resolve(page, link.target);
      if (to === undefined) continue;
      // The examples arrive from their own branch: until examples/ exists, links into it wait for it.
      if (to.path.startsWith('examples') && !exists('examples')) continue;
      if (!exists(to.path)) {
        broken.push(`line ${link.line}: ${link.target} (no ${to.path})`);
        continue;
      }
      if (to.anchor !== undefined && to.path.endsWith('.md')) {
        const anchors = headings(readPage(to.path)).map((heading) => heading.slug);
        if (!anchors.includes(to.anchor)) broken.push(`line ${link.line}: ${link.target} (no heading #${to.anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('opens with one paragraph under its title', () => {
    const lines = prose(text);
    const title = lines.findIndex((line) => line.startsWith('# '));
    expect(title).toBe(0);
    const first = lines.slice(title + 1).find((line) => line.trim() !== '') ?? '';
    expect(first).not.toMatch(/^(#|\||[-*] |\d+\. |<!--|!\[)/);
  });
});

describe('README.md', () => {
  it(`is at most ${README_MAX_LINES} lines`, () => {
    const lines = readPage('README.md').split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('links to every page of docs/', () => {
    const linked = new Set(
      links(readPage('README.md')).flatMap((link) => {
        const to = resolve('README.md', link.target);
        return to === undefined ? [] : [to.path];
      }),
    );
    const pages = docPages().filter((page) => page !== 'README.md');
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});
