import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointService } from '../checkpoints/checkpoint-service.ts';
import type { PauseInput } from '../checkpoints/checkpoint-store.ts';
import { ALL_CHECKS } from '../checkpoints/checks.ts';
import type { CheckpointPersistence } from '../checkpoints/persistence.ts';
import {
  AlreadyVotedError,
  ArgsChangedError,
  BadRequestError,
  NotAnApproverError,
  RecipientNotAllowedError,
  SelfDecisionError,
} from '../errors.ts';
import type { Actor, Decision } from '../wire.ts';
import { testClock } from './fixtures.ts';
import type { SpecInitializer } from './persistence-spec.ts';
import { approvalTranscript } from './service-spec.ts';

/**
 * One person at every door (§16), one suite for every backend: `samePersonSpec(initializer)` runs, through
 * `CheckpointService` on a fresh persistence, the rules that hold a person to one voice whichever door they come
 * through — four eyes and quorum over persons (a token's subject, a Slack user, a link Handback delivered, a granted
 * link, a trigger's `by`), verified emails only, ASCII case folding, votes bound to the arguments they saw, and an
 * agent that never chooses its approvers. Each refusal is read back: nothing changed.
 */

/** Ann, as each door brings her: the same verified email joins them into one person. */
const ANN = {
  token: {
    kind: 'person',
    subject: 'u-ann',
    email: 'ann@example.com',
    emailVerified: true,
    via: 'api',
  } satisfies Actor,
  slack: {
    kind: 'person',
    subject: 'slack:T0TEAM:U0ANN',
    email: 'Ann@Example.com',
    emailVerified: true,
    via: 'slack',
  } satisfies Actor,
  delivered: {
    kind: 'link',
    subject: 'email:ann@example.com',
    email: 'ann@example.com',
    emailVerified: true,
    via: 'link',
  } satisfies Actor,
  granted: {
    kind: 'person',
    subject: 'u-ann',
    email: 'ann@example.com',
    emailVerified: true,
    via: 'link',
    for: { email: 'assistant@example.com' },
  } satisfies Actor,
  trigger: { kind: 'person', subject: 'u-ann', via: 'sqs' } satisfies Actor,
};
const bob: Actor = { kind: 'person', subject: 'u-bob', email: 'bob@example.com', emailVerified: true, via: 'api' };
const cyd: Actor = { kind: 'person', subject: 'u-cyd', email: 'cyd@example.com', emailVerified: true, via: 'api' };
const agent: Actor = { kind: 'agent', subject: 'agent-1', via: 'api' };

const approve = (argsHash?: string): Decision[] => [
  { toolCallId: 'call_refund', decision: 'approve', ...(argsHash === undefined ? {} : { argsHash }) },
];

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/**
 * Stores for a spec suite's cases, each on a fresh persistence of `initializer` (destroyed after the suite), holding
 * agents to the recipient domain `example.com` (§16), with a `pause` of `approvalTranscript()` whose fields default to
 * `defaults`, and the `state` of a pause's first ask as a refusal must leave it.
 */
export function approvalStores<T extends CheckpointPersistence>(
  initializer: SpecInitializer<T>,
  defaults: Pick<PauseInput, 'asks' | 'by'>,
) {
  const made: T[] = [];
  afterAll(async () => {
    for (const backend of made) await initializer.destroy?.(backend);
  });
  return async () => {
    const clock = testClock();
    const persistence = await initializer.create();
    made.push(persistence);
    const store = new CheckpointService({
      checks: ALL_CHECKS,
      clock: clock.now,
      persistence,
      recipientDomains: ['example.com'],
    });
    const pause = async (overrides: Partial<PauseInput> = {}) => {
      const input: PauseInput = {
        tenant: 'acme',
        runId: `run-${randomUUID()}`,
        format: 'openai-chat',
        messages: approvalTranscript(),
        ...defaults,
        ...overrides,
      };
      const created = await store.pause(input);
      return { tenant: 'acme', runId: input.runId, interruptId: created.interruptId };
    };
    /** The ask's votes and decision as read back: what a refusal must leave as it was. */
    const state = async (key: { tenant: string; runId: string; interruptId: string }) => {
      const view = await store.getPause(key);
      return { votes: view.asks[0]?.votes, decision: view.asks[0]?.decision, status: view.status };
    };
    return { store, clock, pause, state };
  };
}

/** The same-person suite (§16): every case through `CheckpointService` on a fresh persistence. */
export function samePersonSpec<T extends CheckpointPersistence>(initializer: SpecInitializer<T>): void {
  const setup = approvalStores(initializer, { asks: [{ toolCallId: 'call_refund', kind: 'approval' }], by: agent });

  describe(`one person at every door (§16) on ${initializer.name}`, () => {
    it.each(Object.entries(ANN))('keeps four eyes against the pauser coming back through %s', async (_door, by) => {
      const { store, pause, state } = await setup();
      const key = await pause({ by: ANN.token, fourEyes: true });
      const before = await state(key);
      const error = await rejection(store.decide({ ...key, decisions: approve(), by }));
      expect(error).toBeInstanceOf(SelfDecisionError);
      expect(await state(key)).toEqual(before);
    });

    it.each(Object.entries(ANN).filter(([door]) => door !== 'token'))(
      'counts Ann once on a quorum: her vote through %s after her token’s is already_voted',
      async (_door, by) => {
        const { store, pause, state } = await setup();
        const key = await pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals: 2 }] });
        await store.decide({ ...key, decisions: approve(), by: ANN.token });
        const before = await state(key);
        await expect(store.decide({ ...key, decisions: approve(), by })).rejects.toBeInstanceOf(AlreadyVotedError);
        expect(await state(key)).toEqual(before);
        // The same vote again through the same door is a replay.
        expect(await store.decide({ ...key, decisions: approve(), by: ANN.token })).toMatchObject({
          kind: 'pending',
          replayed: true,
          votes: { call_refund: { have: 1, need: 2 } },
        });
      },
    );

    it('lets an unattributed link (the lifecycle events’) decide only a plain ask: no four eyes, no quorum', async () => {
      const { store, pause, state } = await setup();
      const unattributed = (interruptId: string): Actor => ({
        kind: 'link',
        subject: `link:${interruptId}`,
        via: 'link',
      });
      const fourEyes = await pause({ by: ANN.token, fourEyes: true });
      const quorum = await pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals: 2 }] });
      for (const [key, refusal] of [
        [fourEyes, SelfDecisionError],
        [quorum, NotAnApproverError],
      ] as const) {
        const before = await state(key);
        const by = unattributed(key.interruptId);
        await expect(store.decide({ ...key, decisions: approve(), by })).rejects.toBeInstanceOf(refusal);
        expect(await state(key)).toEqual(before);
      }
      const plain = await pause();
      const result = await store.decide({ ...plain, decisions: approve(), by: unattributed(plain.interruptId) });
      expect(result.kind).toBe('closed');
    });

    it('lets two people through two doors meet a 2-of-2 quorum', async () => {
      const { store, pause } = await setup();
      const key = await pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals: 2 }] });
      await store.decide({ ...key, decisions: approve(), by: ANN.slack });
      const closed = await store.decide({ ...key, decisions: approve(), by: bob });
      expect(closed).toMatchObject({ kind: 'closed', dispatch: [{ toolCallId: 'call_refund' }] });
    });

    it('decides a granted link as its grantor: the recipient’s email matches no approver', async () => {
      const { store, pause, state } = await setup();
      const key = await pause({
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { emails: ['ann@example.com'] } }],
      });
      const mallorysLinkForAnn: Actor = {
        kind: 'person',
        subject: 'u-mallory',
        via: 'link',
        for: { email: 'ann@example.com' },
      };
      const before = await state(key);
      await expect(store.decide({ ...key, decisions: approve(), by: mallorysLinkForAnn })).rejects.toBeInstanceOf(
        NotAnApproverError,
      );
      expect(await state(key)).toEqual(before);
      const result = await store.decide({ ...key, decisions: approve(), by: ANN.granted });
      expect(result.kind).toBe('closed');
      // Recorded as the grantor through the link, the recipient a label.
      expect((await store.getPause(key)).asks[0]?.decision?.by).toEqual(ANN.granted);
    });

    it.each([
      ['an email that is not verified', { ...bob, email: 'ann@example.com', emailVerified: undefined }],
      ['a look-alike: the Kelvin sign for k', { ...bob, email: '\u212Aim@example.com' }],
    ])('matches no approver’s email with %s', async (_what, by) => {
      const { store, pause, state } = await setup();
      const key = await pause({
        asks: [
          {
            toolCallId: 'call_refund',
            kind: 'approval',
            approvers: { emails: ['ann@example.com', 'kim@example.com'] },
          },
        ],
      });
      const before = await state(key);
      const actor = JSON.parse(JSON.stringify(by)) as Actor;
      await expect(store.decide({ ...key, decisions: approve(), by: actor })).rejects.toBeInstanceOf(
        NotAnApproverError,
      );
      expect(await state(key)).toEqual(before);
    });

    it('matches a verified email with ASCII case folding', async () => {
      const { store, pause } = await setup();
      const key = await pause({
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { emails: ['ANN@EXAMPLE.COM'] } }],
      });
      expect((await store.decide({ ...key, decisions: approve(), by: ANN.slack })).kind).toBe('closed');
    });

    it('tells a pauser who is not an approver self_decision first (four eyes before approvers)', async () => {
      const { store, pause } = await setup();
      const key = await pause({
        by: ANN.token,
        fourEyes: true,
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { subjects: ['u-bob'] } }],
      });
      await expect(store.decide({ ...key, decisions: approve(), by: ANN.slack })).rejects.toBeInstanceOf(
        SelfDecisionError,
      );
    });

    it('binds a vote to the arguments it saw: a stale approve or edit is args_changed, a reject still vetoes', async () => {
      const { store, pause, state } = await setup();
      const key = await pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals: 2 }] });
      const seen = (await store.getPause(key)).asks[0]?.argsHash as string;
      await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: { amount: 9999 }, argsHash: seen }],
        by: ANN.token,
      });
      const before = await state(key);
      const stale = await rejection(store.decide({ ...key, decisions: approve(seen), by: bob }));
      expect(stale).toBeInstanceOf(ArgsChangedError);
      const staleEdit = store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: { amount: 1 }, argsHash: seen }],
        by: bob,
      });
      await expect(staleEdit).rejects.toBeInstanceOf(ArgsChangedError);
      expect(await state(key)).toEqual(before);
      const vetoed = await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_refund', decision: 'reject', argsHash: seen }],
        by: cyd,
      });
      expect(vetoed).toMatchObject({ kind: 'closed', dispatch: [] });
    });

    it('counts the earlier votes again after an edit back to their arguments', async () => {
      const { store, pause } = await setup();
      const key = await pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals: 3 }] });
      const original = (await store.getPause(key)).asks[0]?.args as Record<string, unknown>;
      await store.decide({ ...key, decisions: approve(), by: ANN.token });
      await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: { amount: 1 } }],
        by: bob,
      });
      const back = await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: original }],
        by: cyd,
      });
      expect(back).toMatchObject({ kind: 'pending', votes: { call_refund: { have: 2, need: 3 } } });
      const view = await store.getPause(key, { by: bob });
      expect(view.asks[0]).toMatchObject({ tally: { have: 2, need: 3 }, refusal: 'already_voted' });
    });

    it('counts one vote when one person votes through two doors at once', async () => {
      const { store, pause } = await setup();
      for (let round = 0; round < 10; round++) {
        const key = await pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals: 2 }] });
        const results = await Promise.allSettled(
          [ANN.token, ANN.delivered].map((by) => store.decide({ ...key, decisions: approve(), by })),
        );
        const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
        expect(refused).toHaveLength(1);
        expect(refused[0]).toBeInstanceOf(AlreadyVotedError);
        const view = await store.getPause(key);
        expect(view.asks[0]?.votes).toHaveLength(1);
        expect(view.asks[0]?.tally).toEqual({ have: 1, need: 2 });
      }
    });

    it('never counts an approve for arguments it did not see when an edit races it', async () => {
      const { store, pause } = await setup();
      for (let round = 0; round < 10; round++) {
        const key = await pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals: 2 }] });
        const seen = (await store.getPause(key)).asks[0]?.argsHash as string;
        const edit: Decision[] = [
          { toolCallId: 'call_refund', decision: 'edit', args: { amount: 9999 }, argsHash: seen },
        ];
        const [, approved] = await Promise.allSettled([
          store.decide({ ...key, decisions: edit, by: ANN.token }),
          store.decide({ ...key, decisions: approve(seen), by: bob }),
        ]);
        const view = await store.getPause(key);
        // Whichever came first, nothing is dispatched, and the edit has its editor's vote alone.
        expect(view.status).toBe('paused');
        expect(view.asks[0]?.tally).toEqual({ have: 1, need: 2 });
        if (approved.status === 'rejected') {
          expect(approved.reason).toBeInstanceOf(ArgsChangedError);
          expect(view.asks[0]?.votes?.map((vote) => vote.by.subject)).toEqual(['u-ann']);
        } else {
          expect(view.asks[0]?.votes?.map((vote) => [vote.by.subject, vote.decision])).toEqual([
            ['u-bob', 'approve'],
            ['u-ann', 'edit'],
          ]);
        }
      }
    });

    it.each([
      ['an approver’s email outside the recipient domains', { approvers: { emails: ['attacker@evil.example'] } }, {}],
      ['an email recipient outside them', {}, { notify: [{ channel: 'email' as const, to: 'attacker@evil.example' }] }],
    ])('refuses an agent naming %s, and records nothing', async (_what, ask, extra) => {
      const { store, pause } = await setup();
      const runId = `run-${randomUUID()}`;
      const error = await rejection(
        pause({ runId, asks: [{ toolCallId: 'call_refund', kind: 'approval', ...ask }], ...extra }),
      );
      expect(error).toBeInstanceOf(RecipientNotAllowedError);
      expect((error as RecipientNotAllowedError).message).toContain('attacker@evil.example');
      const page = await store.listPauses({ tenant: 'acme', limit: 100 });
      expect(page.items.filter((item) => item.runId === runId)).toEqual([]);
    });

    it('lets an agent name addresses inside the recipient domains, and a person name any', async () => {
      const { pause } = await setup();
      const inside = { approvers: { emails: ['ann@ops.example.com'] } };
      await expect(
        pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', ...inside }] }),
      ).resolves.toBeDefined();
      const anywhere = { approvers: { emails: ['ann@elsewhere.example'] } };
      await expect(
        pause({ by: bob, asks: [{ toolCallId: 'call_refund', kind: 'approval', ...anywhere }] }),
      ).resolves.toBeDefined();
    });

    it.each([
      ['fourEyes', { fourEyes: true }],
      ['approvals above 1', { asks: [{ toolCallId: 'call_refund', kind: 'approval' as const, approvals: 2 }] }],
      [
        'approvers',
        { asks: [{ toolCallId: 'call_refund', kind: 'approval' as const, approvers: { subjects: ['u-ann'] } }] },
      ],
    ])('refuses %s with auth off (one anonymous principal)', async (_what, overrides) => {
      const { pause } = await setup();
      const anonymous: Actor = { kind: 'person', subject: 'anonymous', via: 'api' };
      await expect(pause({ by: anonymous, ...overrides })).rejects.toBeInstanceOf(BadRequestError);
    });
  });
}
