import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointService } from '../checkpoints/checkpoint-service.ts';
import type { PauseInput } from '../checkpoints/checkpoint-store.ts';
import { ALL_CHECKS } from '../checkpoints/checks.ts';
import type { CheckpointPersistence } from '../checkpoints/persistence.ts';
import { MemoryDirectory } from '../directory/memory.ts';
import {
  AlreadyVotedError,
  ArgsChangedError,
  BadRequestError,
  ForbiddenError,
  NotAnApproverError,
  RecipientNotAllowedError,
  SelfDecisionError,
  UnknownPersonError,
} from '../errors.ts';
import type { Actor, Decision, Person } from '../wire.ts';
import { personOf } from './directory-spec.ts';
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
  options: { people?: readonly Person[] } = {},
) {
  const made: T[] = [];
  afterAll(async () => {
    for (const backend of made) await initializer.destroy?.(backend);
  });
  return async () => {
    const clock = testClock();
    const persistence = await initializer.create();
    made.push(persistence);
    // With `people`, a directory of them (§20), read by the store on each request; changed through `directory`.
    const directory = options.people === undefined ? undefined : new MemoryDirectory();
    for (const person of options.people ?? []) directory?.createNow(person);
    const store = new CheckpointService({
      checks: ALL_CHECKS,
      clock: clock.now,
      persistence,
      recipientDomains: ['example.com'],
      ...(directory === undefined ? {} : { directory }),
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
    return { store, clock, pause, state, directory };
  };
}

/** A link Handback delivered to `email`: it proves the address, no person (§20). */
function deliveredTo(email: string): Actor {
  return { kind: 'link', subject: `email:${email}`, email, emailVerified: true, via: 'link' };
}

/** The directory of the §20 cases: Ann (two addresses, a token's subject, a Slack user, in finance), Bob and Cyd. */
const PEOPLE: Person[] = [
  personOf('acme'),
  personOf('acme', { id: 'bob', name: 'Bob', emails: ['bob@example.com'], subjects: ['u-bob'], slack: [], groups: [] }),
  personOf('acme', {
    id: 'cyd',
    name: 'Cyd',
    emails: ['cyd@example.com'],
    subjects: ['u-cyd'],
    slack: [],
    groups: ['finance'],
  }),
];

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

    // A link delivered to her is an address, which a quorum does not count (§20): the directory's suite shows it.
    it.each(Object.entries(ANN).filter(([door]) => door !== 'token' && door !== 'delivered'))(
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
          [ANN.token, ANN.slack].map((by) => store.decide({ ...key, decisions: approve(), by })),
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

  describe(`an address is not a person, without a directory (§20) on ${initializer.name}`, () => {
    it.each([
      ['a plus alias', ANN.token, 'ann+1@example.com'],
      ['her private address', ANN.token, 'ann.private@example.org'],
      ['her own address, her token’s being unverified', { ...ANN.token, emailVerified: undefined }, 'ann@example.com'],
    ])(
      'refuses a link delivered to %s on Ann’s four-eyes pause: unknown_person, nothing changed',
      async (_what, by, to) => {
        const { store, pause, state } = await setup();
        const key = await pause({ by, fourEyes: true });
        const before = await state(key);
        const error = await rejection(store.decide({ ...key, decisions: approve(), by: deliveredTo(to) }));
        expect(error).toBeInstanceOf(UnknownPersonError);
        expect(await state(key)).toEqual(before);
        expect((await store.getPause(key, { by: deliveredTo(to) })).asks[0]).toMatchObject({
          mayDecide: false,
          refusal: 'unknown_person',
        });
        // The control: another person, by token.
        expect((await store.decide({ ...key, decisions: approve(), by: bob })).kind).toBe('closed');
      },
    );

    it('refuses Ann’s aliases on a quorum of three, and counts Bob and Cyd', async () => {
      const { store, pause, state } = await setup();
      const key = await pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals: 3 }] });
      await store.decide({ ...key, decisions: approve(), by: ANN.token });
      const before = await state(key);
      for (const alias of ['ann+2@example.com', 'ann+3@example.com']) {
        const error = await rejection(store.decide({ ...key, decisions: approve(), by: deliveredTo(alias) }));
        expect(error).toBeInstanceOf(UnknownPersonError);
      }
      expect(await state(key)).toEqual(before);
      expect(before.votes).toHaveLength(1);
      await store.decide({ ...key, decisions: approve(), by: bob });
      expect((await store.decide({ ...key, decisions: approve(), by: cyd })).kind).toBe('closed');
    });

    it('lets a delivered link decide an ask with neither four eyes nor a quorum: whoever holds the address is enough', async () => {
      const { store, pause } = await setup();
      const key = await pause({ by: ANN.token });
      expect(await store.decide({ ...key, decisions: approve(), by: deliveredTo('ann+1@example.com') })).toMatchObject({
        kind: 'closed',
      });
    });
  });

  describe(`an agent on behalf of a person (§20) on ${initializer.name}`, () => {
    const forAnn: Actor = { ...agent, onBehalfOf: { kind: 'person', subject: 'u-ann', via: 'api' } };

    it.each(Object.entries(ANN))(
      'keeps four eyes against the person the agent paused for, coming through %s',
      async (_door, by) => {
        const { store, pause, state } = await setup();
        // Without a directory the person is their subject: the doors that carry it (or her verified email, joined
        // with the token's on the pause's `onBehalfOf`) are hers.
        const key = await pause({ by: { ...forAnn, onBehalfOf: { ...ANN.token } }, fourEyes: true });
        expect((await store.getPause(key)).pausedBy).toMatchObject({
          kind: 'agent',
          subject: 'agent-1',
          onBehalfOf: { subject: 'u-ann' },
        });
        const before = await state(key);
        const error = await rejection(store.decide({ ...key, decisions: approve(), by }));
        expect(error).toBeInstanceOf(SelfDecisionError);
        expect(await state(key)).toEqual(before);
        expect((await store.decide({ ...key, decisions: approve(), by: bob })).kind).toBe('closed');
      },
    );

    it('lets the person decide their agent’s pause without four eyes', async () => {
      const { store, pause } = await setup();
      const key = await pause({ by: forAnn });
      expect((await store.decide({ ...key, decisions: approve(), by: ANN.token })).kind).toBe('closed');
    });
  });

  const withPeople = approvalStores(
    initializer,
    { asks: [{ toolCallId: 'call_refund', kind: 'approval' }], by: agent },
    { people: PEOPLE },
  );

  describe(`persons known to a directory (§20) on ${initializer.name}`, () => {
    it.each([
      ['a link delivered to her private address', deliveredTo('ANN.private@example.org'), SelfDecisionError],
      ['her Slack user', { kind: 'person', subject: 'slack:T0TEAM:U0ANN', via: 'slack' } as Actor, SelfDecisionError],
      [
        'a link delivered to an address the directory does not know',
        deliveredTo('ann+1@example.com'),
        UnknownPersonError,
      ],
      [
        'a token the directory does not know',
        { kind: 'person', subject: 'u-zed', via: 'api' } as Actor,
        UnknownPersonError,
      ],
    ])('keeps four eyes on Ann’s pause against %s, and changes nothing', async (_what, by, refusal) => {
      const { store, pause, state } = await withPeople();
      const key = await pause({ by: ANN.token, fourEyes: true });
      const before = await state(key);
      await expect(store.decide({ ...key, decisions: approve(), by })).rejects.toBeInstanceOf(refusal);
      expect(await state(key)).toEqual(before);
      const closed = await store.decide({ ...key, decisions: approve(), by: { ...bob, email: undefined } });
      expect(closed.kind).toBe('closed');
    });

    it('counts a person once on a quorum whatever identity they come with, and records person:<id>', async () => {
      const { store, pause, state } = await withPeople();
      const key = await pause({ asks: [{ toolCallId: 'call_refund', kind: 'approval', approvals: 2 }] });
      await store.decide({ ...key, decisions: approve(), by: ANN.token });
      const before = await state(key);
      const second = await rejection(
        store.decide({ ...key, decisions: approve(), by: deliveredTo('ann.private@example.org') }),
      );
      expect(second).toBeInstanceOf(AlreadyVotedError);
      expect(await state(key)).toEqual(before);
      expect(before.votes?.[0]?.by).toMatchObject({ subject: 'u-ann', person: 'ann' });
      expect((await store.decide({ ...key, decisions: approve(), by: deliveredTo('bob@example.com') })).kind).toBe(
        'closed',
      );
    });

    it('lets an unknown person decide a plain ask only', async () => {
      const { store, pause } = await withPeople();
      const key = await pause();
      const zed: Actor = { kind: 'person', subject: 'u-zed', via: 'api' };
      expect((await store.decide({ ...key, decisions: approve(), by: zed })).kind).toBe('closed');
    });

    it('refuses a deactivated person every ask from the moment the directory says so, and again once reactivated not', async () => {
      const { store, pause, state, directory } = await withPeople();
      const key = await pause();
      await directory?.patch('acme', 'bob', { active: false });
      const before = await state(key);
      await expect(store.decide({ ...key, decisions: approve(), by: bob })).rejects.toBeInstanceOf(UnknownPersonError);
      expect(await state(key)).toEqual(before);
      expect((await store.getPause(key, { by: bob })).asks[0]?.refusal).toBe('unknown_person');
      await directory?.patch('acme', 'bob', { active: true });
      expect((await store.decide({ ...key, decisions: approve(), by: bob })).kind).toBe('closed');
    });

    it('matches approvers by the directory’s groups, not the token’s', async () => {
      const { store, pause, state } = await withPeople();
      const key = await pause({
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { groups: ['finance'] } }],
      });
      const before = await state(key);
      const bobClaimingFinance: Actor = { ...bob, groups: ['finance'] };
      await expect(store.decide({ ...key, decisions: approve(), by: bobClaimingFinance })).rejects.toBeInstanceOf(
        NotAnApproverError,
      );
      expect(await state(key)).toEqual(before);
      const annWithoutGroups: Actor = { ...ANN.token, groups: [] };
      expect((await store.decide({ ...key, decisions: approve(), by: annWithoutGroups })).kind).toBe('closed');
    });

    it('matches an approver’s subject or email by any identity of the person', async () => {
      const { store, pause } = await withPeople();
      const key = await pause({
        by: bob,
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { emails: ['ann.private@example.org'] } }],
      });
      const slack: Actor = { kind: 'person', subject: 'slack:T0TEAM:U0ANN', via: 'slack' };
      expect((await store.decide({ ...key, decisions: approve(), by: slack })).kind).toBe('closed');
    });

    it('keeps four eyes against every identity of the person an agent paused for', async () => {
      const { store, pause, state } = await withPeople();
      const forAnn: Actor = { ...agent, onBehalfOf: { kind: 'person', subject: 'u-ann', via: 'api' } };
      const key = await pause({ by: forAnn, fourEyes: true });
      expect((await store.getPause(key)).pausedBy?.onBehalfOf).toMatchObject({ subject: 'u-ann', person: 'ann' });
      const before = await state(key);
      await expect(
        store.decide({ ...key, decisions: approve(), by: deliveredTo('ann.private@example.org') }),
      ).rejects.toBeInstanceOf(SelfDecisionError);
      expect(await state(key)).toEqual(before);
      expect((await store.decide({ ...key, decisions: approve(), by: cyd })).kind).toBe('closed');
    });

    describe('delegation', () => {
      // Ann hands her approvals to Bob until the test clock's far future; the clock starts in 2026.
      const week = { to: 'bob', from: '2025-12-31T00:00:00Z', until: '2026-01-08T00:00:00Z', reason: 'on leave' };
      const onlyAnn = {
        asks: [{ toolCallId: 'call_refund', kind: 'approval' as const, approvers: { subjects: ['u-ann'] } }],
      };
      const financeQuorum = {
        asks: [
          { toolCallId: 'call_refund', kind: 'approval' as const, approvers: { groups: ['finance'] }, approvals: 2 },
        ],
      };

      it('lets the delegate decide for the delegator, recording by and for; no one else', async () => {
        const { store, pause, state, directory } = await withPeople();
        await directory?.setDelegation('acme', 'ann', week);
        const key = await pause(onlyAnn);
        const before = await state(key);
        await expect(store.decide({ ...key, decisions: approve(), by: cyd })).rejects.toBeInstanceOf(
          NotAnApproverError,
        );
        expect(await state(key)).toEqual(before);
        expect((await store.getPause(key, { by: bob })).asks[0]).toMatchObject({ mayDecide: true });
        expect((await store.decide({ ...key, decisions: approve(), by: bob })).kind).toBe('closed');
        expect((await store.getPause(key)).asks[0]?.decision).toMatchObject({
          by: { subject: 'u-bob', person: 'bob' },
          for: { subject: 'u-ann', person: 'ann', name: 'Ann Example' },
        });
      });

      it('lists the ask among those waiting for the delegate, and not for another', async () => {
        const { store, pause, directory } = await withPeople();
        await directory?.setDelegation('acme', 'ann', week);
        const key = await pause(onlyAnn);
        const waiting = async (by: Actor) =>
          (await store.listPauses({ tenant: 'acme', waitingFor: by, limit: 100 })).items.map((item) => item.runId);
        expect(await waiting(bob)).toContain(key.runId);
        expect(await waiting(cyd)).not.toContain(key.runId);
      });

      it('lets a delegate who may decide in their own right vote for themselves', async () => {
        const { store, pause, directory } = await withPeople();
        await directory?.setDelegation('acme', 'ann', week);
        const key = await pause({
          asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { subjects: ['u-ann', 'u-bob'] } }],
        });
        await store.decide({ ...key, decisions: approve(), by: bob });
        expect((await store.getPause(key)).asks[0]?.decision).not.toHaveProperty('for');
      });

      it.each([
        ['before it begins', { ...week, from: '2026-01-02T00:00:00Z' }],
        ['after it ends', { ...week, from: undefined, until: '2025-12-31T00:00:00Z' }],
      ])('gives the delegate nothing %s', async (_when, delegation) => {
        const { store, pause, state, directory } = await withPeople();
        await directory?.setDelegation('acme', 'ann', JSON.parse(JSON.stringify(delegation)));
        const key = await pause(onlyAnn);
        const before = await state(key);
        await expect(store.decide({ ...key, decisions: approve(), by: bob })).rejects.toBeInstanceOf(
          NotAnApproverError,
        );
        expect(await state(key)).toEqual(before);
      });

      it('gives an inactive delegate nothing, and a delegation from the four-eyes pauser none of her rights', async () => {
        const { store, pause, state, directory } = await withPeople();
        await directory?.setDelegation('acme', 'ann', week);
        const key = await pause({ ...onlyAnn, by: ANN.token, fourEyes: true });
        const before = await state(key);
        await expect(store.decide({ ...key, decisions: approve(), by: bob })).rejects.toBeInstanceOf(
          NotAnApproverError,
        );
        await directory?.patch('acme', 'bob', { active: false });
        await expect(store.decide({ ...key, decisions: approve(), by: bob })).rejects.toBeInstanceOf(
          UnknownPersonError,
        );
        expect(await state(key)).toEqual(before);
      });

      it('counts one voice for the delegator: her own vote after her delegate’s is already_voted, and the reverse', async () => {
        const { store, pause, state, directory } = await withPeople();
        await directory?.setDelegation('acme', 'ann', week);
        const first = await pause(financeQuorum);
        await store.decide({ ...first, decisions: approve(), by: bob });
        const before = await state(first);
        await expect(store.decide({ ...first, decisions: approve(), by: ANN.token })).rejects.toBeInstanceOf(
          AlreadyVotedError,
        );
        expect(await state(first)).toEqual(before);
        expect(before.votes?.[0]).toMatchObject({ by: { person: 'bob' }, for: { person: 'ann' } });
        expect((await store.decide({ ...first, decisions: approve(), by: cyd })).kind).toBe('closed');

        const second = await pause(financeQuorum);
        await store.decide({ ...second, decisions: approve(), by: ANN.token });
        const after = await state(second);
        await expect(store.decide({ ...second, decisions: approve(), by: bob })).rejects.toBeInstanceOf(
          AlreadyVotedError,
        );
        expect(await state(second)).toEqual(after);
      });

      it('counts one vote when the delegate and the delegator vote at once', async () => {
        const { store, pause, directory } = await withPeople();
        await directory?.setDelegation('acme', 'ann', week);
        for (let round = 0; round < 10; round++) {
          const key = await pause(financeQuorum);
          const results = await Promise.allSettled(
            [bob, ANN.token].map((by) => store.decide({ ...key, decisions: approve(), by })),
          );
          const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
          expect(refused).toHaveLength(1);
          expect(refused[0]).toBeInstanceOf(AlreadyVotedError);
          const view = await store.getPause(key);
          expect(view.asks[0]?.votes).toHaveLength(1);
          expect(view.asks[0]?.tally).toEqual({ have: 1, need: 2 });
        }
      });

      // §20 delegation: a decision's `for` chooses whom a delegate votes for.
      describe('a decision naming for', () => {
        const forWhom = (id: string): Decision[] => [{ toolCallId: 'call_refund', decision: 'approve', for: id }];
        const both = {
          asks: [
            {
              toolCallId: 'call_refund',
              kind: 'approval' as const,
              approvers: { subjects: ['u-ann', 'u-bob', 'u-cyd'] },
              approvals: 2,
            },
          ],
        };

        it('lets a delegate who may decide in their own right vote for the delegator, and then not for themselves', async () => {
          const { store, pause, state, directory } = await withPeople();
          await directory?.setDelegation('acme', 'ann', week);
          const key = await pause(both);
          await store.decide({ ...key, decisions: forWhom('ann'), by: bob });
          const voted = await state(key);
          expect(voted.votes?.[0]).toMatchObject({ by: { person: 'bob' }, for: { person: 'ann' } });
          for (const by of [bob, ANN.token]) {
            await expect(store.decide({ ...key, decisions: approve(), by })).rejects.toBeInstanceOf(AlreadyVotedError);
          }
          await expect(store.decide({ ...key, decisions: forWhom('ann'), by: bob })).rejects.toBeInstanceOf(
            AlreadyVotedError,
          );
          expect(await state(key)).toEqual(voted);
          expect((await store.decide({ ...key, decisions: approve(), by: cyd })).kind).toBe('closed');
        });

        it('votes for themselves when it names their own id, and never falls back to a delegator', async () => {
          const { store, pause, state, directory } = await withPeople();
          await directory?.setDelegation('acme', 'ann', week);
          const own = await pause(both);
          await store.decide({ ...own, decisions: forWhom('bob'), by: bob });
          expect((await state(own)).votes?.[0]).not.toHaveProperty('for');
          const onlyHers = await pause(onlyAnn);
          const before = await state(onlyHers);
          await expect(store.decide({ ...onlyHers, decisions: forWhom('bob'), by: bob })).rejects.toBeInstanceOf(
            NotAnApproverError,
          );
          expect(await state(onlyHers)).toEqual(before);
        });

        it('is forbidden for someone who has not delegated to the caller, or whose delegation does not hold, changing nothing', async () => {
          const { store, pause, state, directory } = await withPeople();
          await directory?.setDelegation('acme', 'ann', { ...week, from: '2026-01-02T00:00:00Z' });
          const key = await pause(onlyAnn);
          const before = await state(key);
          for (const id of ['ann', 'cyd', 'zed']) {
            await expect(store.decide({ ...key, decisions: forWhom(id), by: bob })).rejects.toBeInstanceOf(
              ForbiddenError,
            );
          }
          expect(await state(key)).toEqual(before);
          await directory?.setDelegation('acme', 'ann', week);
          expect((await store.decide({ ...key, decisions: forWhom('ann'), by: bob })).kind).toBe('closed');
        });
      });
    });

    it('never takes a person from the caller: a principal claiming person:ann is who the directory says', async () => {
      const { store, pause, state } = await withPeople();
      const key = await pause({ by: ANN.token, fourEyes: true });
      const before = await state(key);
      const zedAsAnn: Actor = { kind: 'person', subject: 'u-zed', via: 'api', person: 'bob' };
      await expect(store.decide({ ...key, decisions: approve(), by: zedAsAnn })).rejects.toBeInstanceOf(
        UnknownPersonError,
      );
      expect(await state(key)).toEqual(before);
    });
  });
}
