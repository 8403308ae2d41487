import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PauseInput } from '../../functions/checkpoints/checkpoint-store.ts';
import type { CheckpointPersistence } from '../../functions/checkpoints/persistence.ts';
import {
  AlreadyDecidedError,
  AlreadyVotedError,
  BadRequestError,
  ForbiddenError,
  NotAnApproverError,
  SelfDecisionError,
} from '../../functions/errors.ts';
import type { SpecInitializer } from '../../functions/testing/index.ts';
import { approvalStores } from '../../functions/testing/same-person-spec.ts';
import type { Actor } from '../../functions/wire.ts';

/**
 * Who decides (§13), one suite for every backend: principals recorded, approvers, four eyes, quorum with a veto,
 * `already_voted`, an agent that never decides — each refusal changing nothing.
 */

const ann: Actor = {
  kind: 'person',
  subject: 'u-ann',
  email: 'Ann@Example.com',
  emailVerified: true,
  name: 'Ann',
  via: 'api',
};
const bob: Actor = {
  kind: 'person',
  subject: 'u-bob',
  email: 'bob@example.com',
  emailVerified: true,
  via: 'api',
  groups: ['finance'],
};
const cyd: Actor = {
  kind: 'person',
  subject: 'u-cyd',
  email: 'cyd@example.com',
  emailVerified: true,
  via: 'api',
  groups: ['support'],
};
const agent: Actor = { kind: 'agent', subject: 'agent-1', via: 'api' };
const sqs: Actor = { kind: 'service', subject: 'service:sqs', via: 'sqs' };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

export function whoDecidesSpec<T extends CheckpointPersistence>(initializer: SpecInitializer<T>): void {
  const { name } = initializer;
  // The agent's pauses name approvers by email: inside the deployment's recipient domains (§16).
  const setup = approvalStores(initializer, {
    asks: [
      { toolCallId: 'call_refund', kind: 'approval', approvers: { groups: ['finance'], emails: ['ann@example.com'] } },
      { toolCallId: 'call_email', kind: 'approval' },
    ],
    by: agent,
  });

  describe(`who decides (§13) on ${name}`, () => {
    it('records who paused, who decided and who cancelled, and shows them on GET', async () => {
      const { store, pause } = await setup();
      const key = await pause();
      await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by: ann });
      const view = await store.getPause(key);
      expect(view.pausedBy).toEqual({ kind: 'agent', subject: 'agent-1', via: 'api' });
      expect(view.asks[0]?.decision).toEqual({ decision: 'approve', by: ann });
      // Groups are matched, never recorded (the toEqual above holds the recorded principal exactly).
      await store.cancel({ ...key, reason: 'Not today.', by: agent });
      expect((await store.getPause(key)).cancelledBy).toEqual({ kind: 'agent', subject: 'agent-1', via: 'api' });
    });

    it.each([
      ['a subject', { subjects: ['u-cyd'] }, cyd],
      ['an email, in any case', { emails: ['CYD@example.COM'] }, cyd],
      ['a group', { groups: ['support'] }, cyd],
    ])('lets an approver named by %s decide', async (_what, approvers, who) => {
      const { store, pause } = await setup();
      const key = await pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers }] });
      const result = await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
        by: who,
      });
      expect(result.kind).toBe('closed');
    });

    it('refuses a principal the approvers do not name, and a request with one allowed and one refused decision records neither', async () => {
      const { store, pause } = await setup();
      const key = await pause();
      const error = await rejection(
        store.decide({
          ...key,
          decisions: [
            { toolCallId: 'call_email', decision: 'approve' },
            { toolCallId: 'call_refund', decision: 'approve' },
          ],
          by: cyd,
        }),
      );
      expect(error).toBeInstanceOf(NotAnApproverError);
      expect(error).toMatchObject({ code: 'not_an_approver', toolCallId: 'call_refund' });
      const view = await store.getPause(key, { by: cyd });
      expect(view.decided).toEqual([]);
      expect(view.asks.map((ask) => ask.mayDecide)).toEqual([false, true]);
      expect((await store.getPause(key, { by: bob })).asks.map((ask) => ask.mayDecide)).toEqual([true, true]);
    });

    it('never lets an agent decide, even an ask without approvers', async () => {
      const { store, pause } = await setup();
      const key = await pause();
      const error = await rejection(
        store.decide({ ...key, decisions: [{ toolCallId: 'call_email', decision: 'approve' }], by: agent }),
      );
      expect(error).toBeInstanceOf(ForbiddenError);
      expect((await store.getPause(key)).decided).toEqual([]);
    });

    it('lets a trigger without `by` decide only asks without approvers', async () => {
      const { store, pause } = await setup();
      const key = await pause();
      await expect(
        store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by: sqs }),
      ).rejects.toBeInstanceOf(NotAnApproverError);
      const result = await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_email', decision: 'approve' }],
        by: sqs,
      });
      expect(result).toMatchObject({ kind: 'pending', decided: ['call_email'], pending: ['call_refund'] });
    });

    it('matches a delivered link by its address only; an unattributed link decides only asks without approvers', async () => {
      const { store, pause } = await setup();
      const key = await pause();
      const own: Actor = { kind: 'link', subject: `link:${key.interruptId}`, via: 'link' };
      await expect(
        store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by: own }),
      ).rejects.toBeInstanceOf(NotAnApproverError);
      const recipient: Actor = {
        kind: 'link',
        subject: 'email:ann@example.com',
        email: 'ann@example.com',
        emailVerified: true,
        via: 'link',
      };
      const result = await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
        by: recipient,
      });
      expect(result).toMatchObject({ kind: 'pending', decided: ['call_refund'] });
    });

    it('keeps four eyes: the principal that paused may not decide (403 self_decision), but may cancel', async () => {
      const { store, pause } = await setup();
      const key = await pause({ by: ann, fourEyes: true, asks: [{ toolCallId: 'call_refund', kind: 'approval' }] });
      await expect(
        store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by: ann }),
      ).rejects.toBeInstanceOf(SelfDecisionError);
      expect((await store.getPause(key)).decided).toEqual([]);
      const cancelled = await store.cancel({ ...key, by: ann });
      expect(cancelled.outcome).toBe('cancelled');
    });

    it('keeps four eyes through a part-three link: one the pauser made for someone else decides nothing', async () => {
      const { store, pause } = await setup();
      const key = await pause({ by: ann, fourEyes: true, asks: [{ toolCallId: 'call_refund', kind: 'approval' }] });
      const annsLinkForBob: Actor = {
        kind: 'link',
        subject: 'email:bob@example.com',
        email: 'bob@example.com',
        via: 'link',
        grantedBy: 'u-ann',
      };
      await expect(
        store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by: annsLinkForBob }),
      ).rejects.toBeInstanceOf(SelfDecisionError);
      expect((await store.getPause(key)).decided).toEqual([]);
    });

    it('refuses approvers when there is no identity to match (auth off)', async () => {
      const { pause } = await setup();
      const anonymous: Actor = { kind: 'person', subject: 'anonymous', via: 'api' };
      await expect(pause({ by: anonymous })).rejects.toBeInstanceOf(BadRequestError);
    });

    describe('a quorum', () => {
      const quorum = (approvals: number): Partial<PauseInput> => ({
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals }],
      });

      it('approves once two distinct people approved the same arguments, with the votes in order', async () => {
        const { store, pause } = await setup();
        const key = await pause(quorum(2));
        const first = await store.decide({
          ...key,
          decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
          by: ann,
        });
        expect(first).toMatchObject({ kind: 'pending', votes: { call_refund: { have: 1, need: 2 } } });
        // The same vote again is a replay; another by the same person is already_voted.
        const again = await store.decide({
          ...key,
          decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
          by: ann,
        });
        expect(again).toMatchObject({ kind: 'pending', replayed: true });
        await expect(
          store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'reject' }], by: ann }),
        ).rejects.toBeInstanceOf(AlreadyVotedError);
        const second = await store.decide({
          ...key,
          decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
          by: bob,
        });
        expect(second).toMatchObject({ kind: 'closed', dispatch: [{ toolCallId: 'call_refund' }] });
        const view = await store.getPause(key);
        expect(view.asks[0]?.votes?.map((vote) => [vote.decision, vote.by.subject])).toEqual([
          ['approve', 'u-ann'],
          ['approve', 'u-bob'],
        ]);
      });

      it('counts a part-three link a person made as that person too: no second vote through it, its own recorded with its maker', async () => {
        const { store, pause } = await setup();
        const key = await pause(quorum(2));
        const approve = [{ toolCallId: 'call_refund', decision: 'approve' as const }];
        // Ann votes, then makes a link for Cyd and tries to vote again through it.
        const annsLinkForCyd: Actor = {
          kind: 'link',
          subject: 'email:cyd@example.com',
          email: 'cyd@example.com',
          via: 'link',
          grantedBy: 'u-ann',
        };
        await store.decide({ ...key, decisions: approve, by: ann });
        for (const decisions of [approve, [{ toolCallId: 'call_refund', decision: 'reject' as const }]]) {
          await expect(store.decide({ ...key, decisions, by: annsLinkForCyd })).rejects.toBeInstanceOf(
            AlreadyVotedError,
          );
        }
        const pending = await store.getPause(key);
        expect(pending.asks[0]?.votes?.map((vote) => vote.by.subject)).toEqual(['u-ann']);
        // A link Bob made for Cyd counts once, as Cyd's, naming Bob.
        const bobsLinkForCyd: Actor = { ...annsLinkForCyd, grantedBy: 'u-bob' };
        const closed = await store.decide({ ...key, decisions: approve, by: bobsLinkForCyd });
        expect(closed).toMatchObject({ kind: 'closed', dispatch: [{ toolCallId: 'call_refund' }] });
        const view = await store.getPause(key);
        expect(view.asks[0]?.votes?.map((vote) => vote.by)).toEqual([
          ann,
          { kind: 'link', subject: 'email:cyd@example.com', email: 'cyd@example.com', via: 'link', grantedBy: 'u-bob' },
        ]);
      });

      it('lets an edit reset the count: earlier votes stop counting, the editor’s counts for the new arguments', async () => {
        const { store, pause } = await setup();
        const key = await pause(quorum(2));
        const args = { orderId: 'A-1042', amount: 60 };
        await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by: ann });
        const edited = await store.decide({
          ...key,
          decisions: [{ toolCallId: 'call_refund', decision: 'edit', args }],
          by: bob,
        });
        expect(edited).toMatchObject({ kind: 'pending', votes: { call_refund: { have: 1, need: 2 } } });
        const closed = await store.decide({
          ...key,
          decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
          by: cyd,
        });
        expect(closed).toMatchObject({ kind: 'closed', dispatch: [{ toolCallId: 'call_refund', args }] });
      });

      it('lets one reject veto the ask, whatever votes came before', async () => {
        const { store, pause } = await setup();
        const key = await pause(quorum(3));
        await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by: ann });
        await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by: bob });
        const vetoed = await store.decide({
          ...key,
          decisions: [{ toolCallId: 'call_refund', decision: 'reject', reason: 'Too much.' }],
          by: cyd,
        });
        expect(vetoed).toMatchObject({ kind: 'closed', dispatch: [] });
        await expect(
          store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by: agent }),
        ).rejects.toBeInstanceOf(ForbiddenError);
      });

      it('counts exactly two of three people racing on a 2-of-3 quorum, and commits one continuation', async () => {
        const { store, pause } = await setup();
        for (let round = 0; round < 20; round++) {
          const key = await pause(quorum(2));
          const results = await Promise.allSettled(
            [ann, bob, cyd].map((by) =>
              store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by }),
            ),
          );
          const closed = results.flatMap((r) =>
            r.status === 'fulfilled' && r.value.kind === 'closed' ? [r.value] : [],
          );
          const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
          // Two votes count: the second commits; the third finds the ask decided (or replays into the continuation).
          const view = await store.getPause(key);
          expect(view.status).toBe('resumed');
          expect(view.asks[0]?.votes?.length).toBe(2);
          expect(new Set(closed.map((c) => c.continuationId)).size).toBe(1);
          for (const error of refused) expect(error).toBeInstanceOf(AlreadyDecidedError);
        }
      });
    });

    it('lists with waitingFor only the open pauses that wait for that principal', async () => {
      const { store, pause } = await setup();
      const tenant = `t-${randomUUID()}`;
      const forFinance = await pause({ tenant });
      await pause({
        tenant,
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { subjects: ['u-zed'] } }],
      });
      const page = await store.listPauses({ tenant, status: 'paused', waitingFor: bob });
      expect(page.items.map((item) => item.interruptId)).toEqual([forFinance.interruptId]);
      await store.decide({
        ...forFinance,
        tenant,
        decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
        by: bob,
      });
      // Bob decided call_refund; call_email, without approvers, still waits for anyone, him included.
      expect((await store.listPauses({ tenant, waitingFor: bob })).items).toHaveLength(1);
      await store.decide({
        ...forFinance,
        tenant,
        decisions: [{ toolCallId: 'call_email', decision: 'approve' }],
        by: ann,
      });
      expect((await store.listPauses({ tenant, waitingFor: bob })).items).toEqual([]);
    });

    it('never dispatches a call the rules do not allow, whatever sequence of votes and decisions (property)', async () => {
      const people = [ann, bob, cyd, agent, sqs];
      const step = fc.record({
        who: fc.integer({ min: 0, max: people.length - 1 }),
        what: fc.constantFrom('approve', 'reject', 'edit'),
      });
      const { store, pause } = await setup();
      await fc.assert(
        fc.asyncProperty(
          fc.array(step, { minLength: 1, maxLength: 6 }),
          fc.integer({ min: 1, max: 3 }),
          async (steps, approvals) => {
            const key = await pause({
              asks: [
                {
                  toolCallId: 'call_refund',
                  kind: 'approval',
                  approvals,
                  approvers: { groups: ['finance', 'support'], emails: ['ann@example.com'] },
                },
              ],
            });
            const approvedBy = new Map<string, string>();
            let vetoed = false;
            for (const { who, what } of steps) {
              const by = people[who] as Actor;
              const decision =
                what === 'edit'
                  ? { toolCallId: 'call_refund', decision: 'edit' as const, args: { orderId: 'A-1042', amount: 1 } }
                  : { toolCallId: 'call_refund', decision: what as 'approve' | 'reject' };
              const outcome = await store
                .decide({ ...key, decisions: [decision], by })
                .catch((error: unknown) => error);
              if (outcome instanceof Error) continue;
              if (what === 'reject') vetoed = true;
              else approvedBy.set(by.subject, what);
            }
            const view = await store.getPause(key);
            const decision = view.asks[0]?.decision;
            const dispatched =
              view.status === 'resumed' &&
              decision !== undefined &&
              'decision' in decision &&
              decision.decision !== 'reject';
            if (dispatched) {
              // A dispatch needs enough distinct approvers allowed by the rules, and no veto.
              expect(vetoed).toBe(false);
              expect(approvedBy.size).toBeGreaterThanOrEqual(approvals);
              for (const subject of approvedBy.keys()) expect(['u-ann', 'u-bob', 'u-cyd']).toContain(subject);
            }
          },
        ),
        { numRuns: 40 },
      );
    });
  });
}
