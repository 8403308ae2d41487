import { describe, expect, it } from 'vitest';
import { headings, readPage, sourceFiles } from './markdown.ts';

/** Where `§N` and `§N.M` are cited: the code, the infrastructure, the tests, the benchmarks, the docs, the examples. */
const CITING = ['functions', 'infra', 'test', 'bench', 'docs', 'examples'];

function citations(): Map<string, string[]> {
  const cited = new Map<string, string[]>();
  for (const file of [...sourceFiles(CITING), 'README.md']) {
    for (const match of readPage(file).matchAll(/§(\d+(?:\.\d+)?)/g)) {
      const section = match[1] as string;
      cited.set(section, [...(cited.get(section) ?? []), file]);
    }
  }
  return cited;
}

const spec = headings(readPage('docs/specification.md'));
const sections = spec.flatMap((heading) => {
  const number = /^§(\d+(?:\.\d+)?)\s/.exec(heading.text)?.[1];
  return number === undefined ? [] : [{ number, level: heading.level }];
});

describe('docs/specification.md', () => {
  it('has a heading for every § the code, tests and docs cite', () => {
    const cited = citations();
    expect(cited.size).toBeGreaterThan(10);
    const headed = new Set(sections.map((section) => section.number));
    const missing = [...cited]
      .filter(([number]) => !headed.has(number))
      .map(([number, files]) => `§${number}: ${files.join(', ')}`);
    expect(missing).toEqual([]);
  });

  it('numbers its sections from §1, in order, with §3.1 to §3.9 under §3', () => {
    const top = sections.filter((section) => section.level === 2).map((section) => Number(section.number));
    // Parts one to three are §1 to §15; part four's sections follow in the contract's numbers.
    expect(top.slice(0, 15)).toEqual(Array.from({ length: 15 }, (_, index) => index + 1));
    expect(top).toEqual([...top].sort((a, b) => a - b));
    expect(new Set(top).size).toBe(top.length);
    const rules = sections.filter((section) => section.number.startsWith('3.'));
    expect(rules.map((section) => section.number)).toEqual(Array.from({ length: 9 }, (_, index) => `3.${index + 1}`));
    expect(rules.every((section) => section.level === 3)).toBe(true);
  });
});
