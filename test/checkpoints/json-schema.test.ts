import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonValueIds, jsonBytes, jsonShape } from '../../functions/checkpoints/json.ts';

const nested = (depth: number, inner: unknown = []): unknown => {
  let value = inner;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
};

describe('the JSON helpers', () => {
  it('count the bytes JSON.stringify writes, in UTF-8 (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonBytes(value)).toBe(new TextEncoder().encode(JSON.stringify(value)).byteLength);
      }),
    );
  });

  it('measure a value nested 100,000 levels deep without a stack overflow', () => {
    expect(jsonShape(nested(100_000))).toEqual({ bytes: 200_002, depth: 100_001 });
  });

  it.each([
    ['undefined', undefined],
    ['a member that is undefined', { a: undefined }],
    ['infinity', [Number.POSITIVE_INFINITY]],
    ['a date', { at: new Date(0) }],
    ['a function', [() => 1]],
    ['a hole', new Array(2)],
  ])('say %s is not JSON', (_, value) => {
    expect(jsonBytes(value)).toBeUndefined();
  });

  it('say a value that contains itself is not JSON, but a value shared twice is', () => {
    const shared = { a: 1 };
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonBytes([shared, shared])).toBe(17);
    expect(jsonBytes(cyclic)).toBeUndefined();
  });

  it('number two JSON values alike exactly when they are equal, key order aside (property)', () => {
    const sorted = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(sorted)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(
              Object.keys(value)
                .sort()
                .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
            )
          : value;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), (a, b) => {
        const ids = new JsonValueIds();
        expect(ids.idOf(a) === ids.idOf(b)).toBe(JSON.stringify(sorted(a)) === JSON.stringify(sorted(b)));
        expect(ids.idOf(a)).toBe(ids.idOf(JSON.parse(JSON.stringify(a))));
      }),
    );
  });
});
