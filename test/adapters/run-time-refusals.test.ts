import { describe, expect, it } from 'vitest';
import { createMemoryToolExecutions, onceUnlessRefused, runTimeRefusalText } from '../../functions/adapters/shared.ts';
import {
  AlreadyClaimedError,
  ApprovalExpiredError,
  PolicyEvaluationError,
  PolicyForbidsError,
} from '../../functions/errors.ts';
import { POLICY_ERROR_REJECTED, policyDefaultText, policyRejectionText } from '../../functions/rehydrate/texts.ts';

/**
 * What an adapter tells the model of a call Handback refused when it was claimed (§19): the contract's words for a
 * policy's decision, never a person's; anything else is not a refusal and is thrown on.
 */

const ids = { runId: 'run-1', continuationId: 'cont-1', toolCallId: 'call_refund' };

describe('runTimeRefusalText', () => {
  it("says which policy forbade the call and why, or the default's words when no policy is named", () => {
    const forbid = new PolicyForbidsError('forbidden', {
      policyIds: ['refunds-frozen'],
      reason: 'Frozen for the audit',
    });
    expect(runTimeRefusalText(forbid)).toBe(policyRejectionText('refunds-frozen', 'Frozen for the audit'));
    expect(runTimeRefusalText(forbid)).toBe(
      "Not run: the deployment's policy refunds-frozen does not allow this call.\nReason: Frozen for the audit",
    );
    const byDefault = new PolicyForbidsError('forbidden', { policyIds: [], reason: 'No policy permits it' });
    expect(runTimeRefusalText(byDefault)).toBe(policyDefaultText('No policy permits it'));
  });

  it('says the policies could not judge it, or that its approval ended and when', () => {
    expect(runTimeRefusalText(new PolicyEvaluationError('failed', { reason: 'overflow' }))).toBe(POLICY_ERROR_REJECTED);
    expect(runTimeRefusalText(new ApprovalExpiredError(ids, '2026-06-01T01:00:00.000Z'))).toBe(
      'Not run: its approval was valid until 2026-06-01T01:00:00.000Z, and the call was not run in time. Ask again if it is still needed.',
    );
  });

  it('is no refusal for a claim taken elsewhere, or any other error', () => {
    const taken = new AlreadyClaimedError(ids, '2026-06-01T00:00:00.000Z', {
      kind: 'agent',
      subject: 'worker-2',
      via: 'api',
    });
    expect(runTimeRefusalText(taken)).toBeUndefined();
    expect(runTimeRefusalText(new Error('socket hang up'))).toBeUndefined();
  });
});

describe('onceUnlessRefused', () => {
  it("hands the model the refusal in the adapter's encoding and runs nothing; throws anything else", async () => {
    const refusing = {
      once: async () => {
        throw new ApprovalExpiredError(ids, '2026-06-01T01:00:00.000Z');
      },
    };
    let ran = 0;
    const run = async () => `ran ${++ran}`;
    const told = await onceUnlessRefused(refusing, ids, run, (words) => JSON.stringify({ error: words }));
    expect(JSON.parse(told)).toEqual({ error: expect.stringContaining('its approval was valid until') });
    expect(ran).toBe(0);
    const failing = {
      once: async () => {
        throw new Error('socket hang up');
      },
    };
    await expect(onceUnlessRefused(failing, ids, run, (words) => words)).rejects.toThrow('socket hang up');
    // The control: a log that runs the call hands its output on.
    expect(await onceUnlessRefused(createMemoryToolExecutions(), ids, run, (words) => words)).toBe('ran 1');
  });
});
