import { describe, expect, it } from 'vitest';
import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import {
  BATCH_GET_KEYS,
  getKeys,
  getPauseWithParts,
  partKeys,
  updatePause,
} from '../../functions/checkpoints/dynamodb/params.ts';
import {
  hintOf,
  joinParts,
  MAX_PARTS,
  PART_BYTES,
  partCount,
  partsOfHint,
  splitParts,
} from '../../functions/checkpoints/dynamodb/parts.ts';
import { recordOf } from '../../functions/testing/persistence-spec.ts';

/** The DynamoDB adapter's pure builders: command inputs and the transcript's layout in parts, without a table. */

const key = { tenant: 'acme', runId: 'run-1', seq: 7 };
const keysOf = (count: number) => Array.from({ length: count }, (_, i) => ({ pk: 'T#acme#R#r', sk: `P#${i}` }));

describe('getKeys', () => {
  it.each([
    [0, []],
    [1, [1]],
    [100, [100]],
    [101, [100, 1]],
    [250, [100, 100, 50]],
  ])('splits %i keys into BatchGetItem inputs of at most 100 keys: %j', (count, sizes) => {
    const inputs = getKeys('t', keysOf(count));
    expect(inputs.map((input) => input.RequestItems?.t?.Keys?.length)).toEqual(sizes);
    for (const input of inputs) expect(input.RequestItems?.t?.ConsistentRead).toBe(true);
    expect(inputs.flatMap((input) => input.RequestItems?.t?.Keys ?? [])).toEqual(keysOf(count));
  });

  it('never exceeds what DynamoDB takes in one request', () => {
    expect(BATCH_GET_KEYS).toBe(100);
  });
});

describe('getPauseWithParts', () => {
  it('asks for the pause item and its parts of one write attempt in one consistent request', () => {
    const input = getPauseWithParts('t', key, 'tok', 3);
    expect(input).toEqual({
      RequestItems: {
        t: {
          ConsistentRead: true,
          Keys: [
            { pk: Keys.run('acme', 'run-1'), sk: Keys.pause(7) },
            ...[0, 1, 2].map((i) => ({ pk: Keys.run('acme', 'run-1'), sk: Keys.part(7, 'tok', i) })),
          ],
        },
      },
    });
  });

  it(`fits the most parts a transcript has (${MAX_PARTS}) and the pause item in one request, and refuses more`, () => {
    expect(getPauseWithParts('t', key, 'tok', MAX_PARTS).RequestItems?.t?.Keys).toHaveLength(100);
    expect(() => getPauseWithParts('t', key, 'tok', MAX_PARTS + 1)).toThrow(RangeError);
  });

  it('names parts by index: partKeys', () => {
    expect(partKeys(key, 'tok', [4, 9]).map((k) => k.sk)).toEqual([Keys.part(7, 'tok', 4), Keys.part(7, 'tok', 9)]);
  });
});

describe('updatePause', () => {
  it('sets only what changed and removes what is gone, conditional on the revision read', () => {
    const before = recordOf({ remindAtMs: 5 });
    const { remindAtMs: _, ...rest } = before;
    const after = { ...rest, rev: 2, remindedAt: '2026-01-01T00:00:00.000Z' };
    const input = updatePause('t', before, after);
    expect(input.ConditionExpression).toBe('#token = :token AND #rev = :rev');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':token': before.token, ':rev': 1 });
    const names = Object.values(input.ExpressionAttributeNames ?? {});
    expect(names).toEqual(expect.arrayContaining(['rev', 'remindedAt', 'remindAtMs']));
    expect(names).not.toContain('asks');
    expect(names).not.toContain('chunkCount');
  });
});

describe('the transcript in parts', () => {
  it.each([
    [1, 1],
    [PART_BYTES, 1],
    [PART_BYTES + 1, 2],
    [16 * 1024 * 1024, 64],
  ])('writes %i bytes in %i parts, and the read hint names that count', (length, count) => {
    expect(partCount(length)).toBe(count);
    expect(partsOfHint(hintOf(count))).toBe(count);
  });

  it('cuts bytes into parts and joins them back byte for byte', () => {
    const bytes = Uint8Array.from({ length: 2_500 }, (_, i) => i % 256);
    const parts = splitParts(bytes, 1_000);
    expect(parts.map((part) => part.length)).toEqual([1_000, 1_000, 500]);
    const joined = joinParts(parts, 3);
    expect('bytes' in joined && Buffer.from(joined.bytes).equals(Buffer.from(bytes))).toBe(true);
  });

  it('names the first missing part', () => {
    const parts = splitParts(new Uint8Array(30), 10);
    expect(joinParts([parts[0], undefined, parts[2]], 3)).toEqual({ missing: 1 });
    expect(joinParts(parts, 4)).toEqual({ missing: 3 });
  });

  it.each([undefined, '', '0', '100', '1a', 'abc'])('reads no part count from the hint %j', (hint) => {
    expect(partsOfHint(hint)).toBeUndefined();
  });
});
