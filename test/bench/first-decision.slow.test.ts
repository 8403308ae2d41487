import { describe, expect, it } from 'vitest';
import {
  FIRST_DECISION_FLOOR,
  FIRST_DECISION_ON_FIRST_CALL,
  measureFirstDecisions,
} from '../../bench/first-decision.ts';

describe('an approve after a cold start (npm run bench -- coldstart)', () => {
  it('imports the SQS trigger and the API as bundled, resumes a pause with each, and times both parts; the floor and the trigger loaded by its first call beside them', async () => {
    const lines: string[] = [];
    const rows = await measureFirstDecisions({ rounds: 1, log: (line) => lines.push(line) });
    expect(rows.map((r) => [r.name, r.samples])).toEqual([
      ['sqs', 1],
      ['api', 1],
      [FIRST_DECISION_ON_FIRST_CALL, 1],
      [FIRST_DECISION_FLOOR, 1],
    ]);
    for (const r of rows) {
      expect(r.importMs).toBeGreaterThan(0);
      expect(r.decisionMs).toBeGreaterThan(0);
      expect(r.totalMs).toBeCloseTo(r.importMs + r.decisionMs, 6);
    }
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(
      /^coldstart first decision sqs: import [\d.]+ ms \+ decision [\d.]+ ms = [\d.]+ ms \(1\)$/,
    );
  }, 120_000);
});
