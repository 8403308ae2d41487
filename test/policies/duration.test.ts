import { describe, expect, it } from 'vitest';
import { durationSeconds } from '../../functions/policies/duration.ts';

/** §19's `@validFor`: ISO 8601 durations of fixed length, as seconds. */
describe('durationSeconds', () => {
  it.each([
    ['PT1H', 3600],
    ['PT90S', 90],
    ['PT15M', 900],
    ['P2D', 172_800],
    ['P1DT12H', 129_600],
    ['P1W', 604_800],
    ['PT1H30M5S', 5405],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(durationSeconds(text)).toBe(seconds);
  });

  it.each(['', 'P', 'PT', 'P1DT', 'PT0S', 'P0D', 'P1M', 'P1Y', 'P1W2D', 'PT1.5H', '1H', 'pt1h', 'PT-1H', ' PT1H'])(
    'reads no duration from %j',
    (text) => {
      expect(durationSeconds(text)).toBeUndefined();
    },
  );
});
