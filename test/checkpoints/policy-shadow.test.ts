import { describe, expect, it } from 'vitest';
import { shadowReportOf } from '../../functions/checkpoints/policy-shadow.ts';
import type { PauseView } from '../../functions/wire.ts';

/**
 * `GET /policies/shadow`'s report (§19) over pause views as the listing has them: the cases the black-box test
 * (`test/black-box/policy-shadow.store.test.ts`) does not reach — an edit, an expiry, a cancel, a person's decision
 * before either, asks judged in enforce mode, and failed evaluations.
 */

const would = (outcome: 'approve' | 'reject' | 'ask', policyIds: string[], basis?: 'default' | 'error') => ({
  outcome,
  policyIds,
  ...(basis === undefined ? {} : { basis }),
  shadow: true as const,
  version: 'v1',
});
const person = { kind: 'person', subject: 'ann', via: 'api' };
const service = { kind: 'service', subject: 'sweep', via: 'sweep' };

function pause(runId: string, status: string, asks: object[]): PauseView {
  return {
    runId,
    interruptId: `${runId}.i`,
    status,
    createdAt: '2026-03-02T10:00:00.000Z',
    asks,
  } as unknown as PauseView;
}

describe('the shadow report', () => {
  it('tells an edit, an expiry and a cancel apart, and keeps a person’s decision made before them', () => {
    const report = shadowReportOf(
      [
        pause('edited', 'resumed', [
          {
            toolCallId: 'c1',
            name: 'refund',
            policy: would('approve', ['small']),
            decision: { decision: 'edit', by: person },
          },
        ]),
        pause('expired', 'expired', [
          {
            toolCallId: 'c1',
            name: 'refund',
            policy: would('reject', ['big']),
            decision: { decision: 'reject', by: service },
          },
          {
            toolCallId: 'c2',
            name: 'refund',
            policy: would('reject', ['big']),
            decision: { decision: 'reject', by: person },
          },
        ]),
        pause('cancelled', 'cancelled', [
          { toolCallId: 'c1', name: 'refund', policy: would('ask', [], 'default'), decision: { decision: 'reject' } },
          { toolCallId: 'c2', name: 'refund', policy: would('reject', [], 'error') },
        ]),
        // Judged in enforce mode: not shadow's to report. No policy at all: nothing either.
        pause('enforced', 'resumed', [
          { toolCallId: 'c1', name: 'refund', policy: { outcome: 'approve', policyIds: ['small'] } },
          { toolCallId: 'c2', name: 'refund' },
        ]),
      ],
      '2026-03-01T00:00:00Z',
      'next-page',
    );
    expect(report.items.map((item) => [item.runId, item.toolCallId, item.people, item.agreed])).toEqual([
      ['edited', 'c1', 'edited', false],
      ['expired', 'c1', 'expired', null],
      ['expired', 'c2', 'rejected', true],
      ['cancelled', 'c1', 'cancelled', null],
      ['cancelled', 'c2', 'cancelled', null],
    ]);
    expect(report.policies).toEqual([
      { policyId: 'small', asks: 1, agreed: 0, disagreed: 1, would: { approve: 1 }, people: { edited: 1 } },
      { policyId: 'big', asks: 2, agreed: 1, disagreed: 0, would: { reject: 2 }, people: { expired: 1, rejected: 1 } },
      { policyId: 'default', asks: 1, agreed: 0, disagreed: 0, would: { ask: 1 }, people: { cancelled: 1 } },
      { policyId: 'error', asks: 1, agreed: 0, disagreed: 0, would: { reject: 1 }, people: { cancelled: 1 } },
    ]);
    expect(report).toMatchObject({ since: '2026-03-01T00:00:00Z', cursor: 'next-page' });
  });
});
