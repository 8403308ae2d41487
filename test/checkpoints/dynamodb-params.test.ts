import { describe, expect, it } from 'vitest';
import { executionAttribute } from '../../functions/checkpoints/dynamodb/items.ts';
import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import {
  BATCH_GET_KEYS,
  Condition,
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
import { claimStep } from '../../functions/checkpoints/executing.ts';
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

describe("an execution claim's write (§19)", () => {
  const closed = recordOf({
    status: 'resumed',
    decisions: [{ body: { decision: 'approve' }, hash: 'h', decidedAt: '2026-01-01T00:00:00.000Z' }],
    closing: {
      continuationId: '1.1.BBBBBBBBBBBBBBBBBBBBBB',
      closedAt: '2026-01-01T00:00:00.000Z',
      outcome: 'resumed',
      continuationSha256: 'sha',
    },
  });
  const ids = { runId: closed.runId, continuationId: '1.1.BBBBBBBBBBBBBBBBBBBBBB', toolCallId: 'call_1' };
  const by = { kind: 'agent', subject: 'bot', via: 'api' } as const;

  it('sets the one attribute of the claimed ask and the revision, only at the revision read', () => {
    const step = claimStep(closed, 0, ids, {
      nowMs: Date.parse('2026-01-01T00:05:00.000Z'),
      by,
      judgement: { allow: true },
    });
    if (!('claimed' in step) || step.after === undefined) throw new Error('expected a claim to write');
    const input = updatePause('t', closed, step.after);
    // The invariant: a claim is recorded only on the record as it was read, so of racing claims one is written and
    // every other reads it again and is refused.
    expect(input.ConditionExpression).toBe(Condition.isTheRevisionRead);
    expect(input.ExpressionAttributeValues).toMatchObject({ ':token': closed.token, ':rev': closed.rev });
    expect(input.UpdateExpression).toBe('SET #s0 = :s0, #s1 = :s1');
    // The revision (read and written), the write attempt (read), the claim: nothing else of the item.
    expect(Object.values(input.ExpressionAttributeNames ?? {}).sort()).toEqual(
      ['rev', 'rev', 'token', executionAttribute(0)].sort(),
    );
    const written = Object.entries(input.ExpressionAttributeValues ?? {}).find(
      ([, value]) => typeof value === 'string' && value.startsWith('{'),
    )?.[1];
    expect(JSON.parse(written as string)).toEqual({ status: 'claimed', claimedAt: '2026-01-01T00:05:00.000Z', by });
  });

  it('writes a refusal the same way, and nothing at all for a claim already recorded', () => {
    const refused = claimStep(closed, 0, ids, {
      nowMs: Date.parse('2026-01-01T00:05:00.000Z'),
      by,
      judgement: { refuse: 'policy_forbids', policyIds: ['no'], reason: 'not now' },
    });
    if (!('refused' in refused)) throw new Error('expected a refusal');
    const names = Object.values(updatePause('t', closed, refused.after).ExpressionAttributeNames ?? {});
    expect(names.sort()).toEqual(['rev', 'rev', 'token', executionAttribute(0)].sort());
    expect(() =>
      claimStep(refused.after, 0, ids, {
        nowMs: Date.parse('2026-01-01T00:06:00.000Z'),
        by,
        judgement: { allow: true },
      }),
    ).toThrow(/Not run: the deployment's policy no does not allow call call_1 now/);
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
