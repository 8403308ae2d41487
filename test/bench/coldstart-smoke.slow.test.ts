import { describe, expect, it } from 'vitest';
import { FLOOR } from '../../bench/bundle.ts';
import { type ColdStartResult, runColdStart } from '../../bench/group-coldstart.ts';

/**
 * CI's smoke mode of `npm run bench -- coldstart`: the group's own code on two representative bundles (the SQS
 * trigger and its floor), one round, its first schema check; every row well formed. No target and no time is
 * asserted: on a shared machine they mean nothing, and bench/REPORT.md is where they are judged.
 */
let result: ColdStartResult;

describe('the coldstart group in smoke mode', () => {
  it('builds, weighs and imports each bundle it is given, once', { timeout: 120_000 }, async () => {
    result = await runColdStart({ quick: true, log: () => {}, only: ['sqs', FLOOR], rounds: 1 });
    expect(result.rows.map((row) => [row.name, row.error])).toEqual([
      ['sqs', undefined],
      [FLOOR, undefined],
    ]);
  });

  it.each(['sqs', FLOOR])('reports %s with its bytes at init, its whole asset and one import time', (name) => {
    const row = result.rows.find((r) => r.name === name);
    expect(row).toMatchObject({ samples: 1, importMs: expect.any(Number), readyMs: expect.any(Number) });
    expect(row?.importMs).toBeGreaterThan(0);
    expect(row?.gzipBytes).toBeGreaterThan(0);
    expect(row?.bytes).toBeGreaterThan(row?.gzipBytes ?? 0);
    expect(row?.assetGzipBytes).toBeGreaterThanOrEqual(row?.gzipBytes ?? 0);
    expect(row?.byPackage.length).toBeGreaterThan(0);
  });

  it('lists the chunks the SQS trigger loads on first use, the schema checks and each format among them', () => {
    const lazy = result.rows.find((r) => r.name === 'sqs')?.lazyChunks.map((chunk) => chunk.file) ?? [];
    expect(lazy.some((file) => file.includes('json-schema'))).toBe(true);
    expect(lazy.filter((file) => /\/(openai-chat|anthropic|gemini|langchain)-/.test(file))).toHaveLength(4);
  });

  it('measures the first schema check after a cold start, and leaves the before-and-after and the targets out', () => {
    expect(result.firstSchemaCheck).toEqual([
      {
        name: 'sqs',
        importMs: expect.any(Number),
        checkMs: expect.any(Number),
        totalMs: expect.any(Number),
        samples: 1,
      },
    ]);
    expect(result.firstSchemaCheck[0]?.checkMs).toBeGreaterThan(0);
    expect(result.rows.filter((r) => r.kind === 'before')).toEqual([]);
    expect(result.targets).toEqual([]);
  });
});
