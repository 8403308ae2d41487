import { describe, expect, it } from 'vitest';
import { duration } from '../../functions/inbox/page/duration.ts';

/** The stats view's durations (§21), as a person reads them in its tables and chart. */
describe('duration', () => {
  it.each([
    [null, 'none'],
    [0, '0 ms'],
    [850.4, '850 ms'],
    [1000, '1 s'],
    [42_400, '42 s'],
    [59_499, '59 s'],
    [60_000, '1 min'],
    [12 * 60_000 + 20_000, '12 min'],
    [3_600_000, '1 h'],
    [3.46 * 3_600_000, '3.5 h'],
    [47 * 3_600_000, '47 h'],
    [48 * 3_600_000, '2 days'],
    [2.14 * 86_400_000, '2.1 days'],
  ])('writes %s ms as %s', (ms, text) => {
    expect(duration(ms)).toBe(text);
  });
});
