import { describe, expect, it } from 'vitest';
import { executionText } from '../../functions/checkpoints/execution-words.ts';

/** What the inbox and Slack say of a dispatched call's execution (§19), from its view alone. */
const at = (iso: string) => `[${iso}]`;
const AGENT = { kind: 'agent', subject: 'bot', via: 'api' } as const;

describe('executionText', () => {
  it.each([
    [{ status: 'waiting', at: 'T0' }, 'Approved — waiting for the agent to run it.'],
    [
      { status: 'waiting', at: 'T0', approvedUntil: 'T9' },
      'Approved — waiting for the agent to run it (the approval holds until [T9]).',
    ],
    [{ status: 'claimed', at: 'T1', by: AGENT }, 'Running since [T1].'],
    [{ status: 'succeeded', at: 'T2', claimedAt: 'T1', by: AGENT }, 'Ran at [T1].'],
    [{ status: 'succeeded', at: 'T2', claimedAt: 'T1', detail: 'refund R-9' }, 'Ran at [T1]: refund R-9.'],
    [
      { status: 'failed', at: 'T2', claimedAt: 'T1', reason: 'card declined' },
      'Ran at [T1] and failed: card declined.',
    ],
    [
      { status: 'refused', at: 'T1', code: 'policy_forbids', reason: 'Refunds over 500 go through finance' },
      'Refused at run time: Refunds over 500 go through finance.',
    ],
  ] as const)('says %j as %j', (execution, words) => {
    expect(executionText(execution, at)).toBe(words);
  });

  it('says nothing of an ask that dispatched nothing, and never that a call ran before its claim', () => {
    expect(executionText(undefined, at)).toBeUndefined();
    for (const status of ['waiting', 'claimed', 'refused'] as const) {
      expect(executionText({ status, at: 'T1' }, at)).not.toMatch(/\bran\b/i);
    }
  });
});
