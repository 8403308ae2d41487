import { describe, expect, it } from 'vitest';
import { callsAt, ranBytes } from '../../bench/decision-run.ts';

/** The bytes of `source` that `ranBytes` marks, as text. */
function ran(source: string, functions: Parameters<typeof ranBytes>[1]): string {
  const marks = ranBytes(source, functions);
  return [...source].filter((_, i) => marks[i] === 1).join('');
}

describe("the decision run's coverage reading (bench/decision-run.ts)", () => {
  const source = 'AAAA{BBBB{CC}DD}EEEE';

  it('marks a script V8 never reported as not run', () => {
    expect(ran(source, undefined)).toBe('');
  });

  it('lets an inner range override its enclosing one, whatever order V8 lists them in', () => {
    const inner = { ranges: [{ startOffset: 9, endOffset: 13, count: 0 }] };
    const outer = {
      ranges: [
        { startOffset: 0, endOffset: 20, count: 1 },
        { startOffset: 4, endOffset: 16, count: 0 },
      ],
    };
    // The uncalled function at 4..16 holds a block 9..13 that V8 reports as its own function, listed first.
    expect(ran(source, { url: 'file:///x.mjs', functions: [inner, outer] })).toBe('AAAAEEEE');
    const calledInner = { ranges: [{ startOffset: 9, endOffset: 13, count: 2 }] };
    expect(ran(source, { url: 'file:///x.mjs', functions: [calledInner, outer] })).toBe('AAAA{CC}EEEE');
  });

  it('stops at the end of the source', () => {
    const past = { ranges: [{ startOffset: 16, endOffset: 400, count: 1 }] };
    expect(ran(source, { url: 'file:///x.mjs', functions: [past] })).toBe('EEEE');
  });
});

describe('the schemas a function built (callsAt, bench/decision-run.ts)', () => {
  const script = {
    url: 'file:///index.mjs',
    functions: [
      { ranges: [{ startOffset: 0, endOffset: 500, count: 1 }] },
      { ranges: [{ startOffset: 120, endOffset: 180, count: 566 }] },
      { ranges: [{ startOffset: 200, endOffset: 260, count: 9 }] },
    ],
  };

  it("counts the calls of the function that begins where zod's initializer is mapped", () => {
    expect(callsAt(script, { from: 110, to: 130 })).toBe(566);
    expect(callsAt(script, { from: 190, to: 210 })).toBe(9);
  });

  it('counts none where no function begins, or without coverage', () => {
    expect(callsAt(script, { from: 300, to: 400 })).toBe(0);
    expect(callsAt(undefined, { from: 110, to: 130 })).toBe(0);
  });
});
