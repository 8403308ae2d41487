import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { CheckpointService } from '../checkpoints/checkpoint-service.ts';
import type { DecideInput, PauseClosed, PauseCreated, PauseInput } from '../checkpoints/checkpoint-store.ts';
import { ALL_CHECKS } from '../checkpoints/checks.ts';
import type { CheckpointPersistence } from '../checkpoints/persistence.ts';
import { NotAnApproverError, PolicyEvaluationError, PolicyForbidsError } from '../errors.ts';
import { loadCedar } from '../policies/cedar.ts';
import { createPolicyEngine, type PolicyEngineOptions } from '../policies/engine.ts';
import { loadPolicies } from '../policies/load.ts';
import { policyVersion } from '../policies/version.ts';
import { policyRejectionText } from '../rehydrate/texts.ts';
import type { Actor } from '../wire.ts';
import { policyTranscript } from './fixtures.ts';
import type { SpecInitializer } from './persistence-spec.ts';

/**
 * The policies judge what runs (§19), one suite for every backend: a person's edit is judged on the edited arguments
 * before anything is recorded — a forbid refuses it, the requirements follow the new arguments and never fall below
 * the pause's, an editor who may not decide under them is refused, an evaluation error is a 422 — and the policies see
 * the tool's name and the service's clock; the audit trail names the set's version and the voters' groups.
 */

/** The policies the edit suite runs with: the refunds, business hours, and a `delete_*` rule. */
export const EDIT_POLICIES = `
@id("refunds-small")
permit(principal, action == Handback::Action::"callWithoutApproval", resource == Handback::Tool::"refund_order")
when {
  context.args has amount && context.args.amount <= 100 &&
  context.clock.weekday <= 5 && context.clock.hour >= 9 && context.clock.hour < 18
};

@id("refunds-small-people")
@approvers("group:support, group:finance")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount <= 100 };

@id("finance-over-100")
@approvers("group:finance")
@approvals("2")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount > 100 };

@id("never-over-10000")
@reason("Refunds over 10,000 are never made")
forbid(principal, action, resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount > 10000 };

@id("no-deletes")
@reason("Nothing is deleted by an agent")
forbid(principal, action, resource)
when { context.tool like "delete_*" };
`;

/** The arguments the edit suite's tools take. */
export const EDIT_ARGS = 'namespace Handback { type Args = { amount?: Long, orderId?: String, tags?: Set<String> }; }';

const SHIPPED = fileURLToPath(new URL('../../handback.cedarschema', import.meta.url));

/** Thursday 1 January 2026 at 10:00 UTC: business hours. */
const IN_HOURS = '2026-01-01T10:00:00.000Z';
/** The same day at 20:00 UTC: after hours. */
const AFTER_HOURS = '2026-01-01T20:00:00.000Z';

const person = (subject: string, groups: string[] = []): Actor => ({ kind: 'person', subject, groups, via: 'api' });
const ann = person('ann', ['finance']);
const bob = person('bob', ['finance']);
const carl = person('carl', ['support']);
const dave = person('dave');
const agent: Actor = { kind: 'agent', subject: 'refund-bot', groups: ['bots'], via: 'api' };

/** The edit cases of the policies' spec suite (§19), on a fresh persistence from `initializer.create` for each. */
export function policyEditSpec<T extends CheckpointPersistence>(initializer: SpecInitializer<T>): void {
  const made: T[] = [];
  const cedar = loadCedar();
  const loaded = loadPolicies(
    cedar,
    { file: 'policies.cedar', text: EDIT_POLICIES },
    { file: 'handback.cedarschema', text: readFileSync(SHIPPED, 'utf8') },
    { file: 'args.cedarschema', text: EDIT_ARGS },
  );
  const setup = async (at: string, options: PolicyEngineOptions = {}) => {
    const persistence = await initializer.create();
    made.push(persistence);
    const changes: PauseChange[] = [];
    const engine = createPolicyEngine(cedar, loaded, options);
    const store = new CheckpointService({
      checks: ALL_CHECKS,
      persistence,
      clock: () => new Date(at),
      onChange: (change) => changes.push(change),
      policies: async () => engine,
    });
    /** Pauses one refund with `args`, by the agent; its key. */
    const refund = async (args: unknown, tool = 'refund_order') => {
      const input: PauseInput = {
        tenant: 'acme',
        runId: `run-${randomUUID()}`,
        format: 'openai-chat',
        messages: policyTranscript([['call_1', tool, args]]),
        asks: [{ toolCallId: 'call_1', kind: 'approval' }],
        by: agent,
      };
      const paused = await store.pause(input);
      return { paused, key: { tenant: 'acme', runId: input.runId, interruptId: paused.interruptId } };
    };
    const decide = (key: { tenant: string; runId: string; interruptId: string }, by: Actor, decision: object) =>
      store.decide({ ...key, decisions: [{ toolCallId: 'call_1', ...decision }] as DecideInput['decisions'], by });
    return { store, changes, engine, refund, decide };
  };
  const edit = (args: object) => ({ decision: 'edit', args });

  describe(`edits judged by the policies (§19) on ${initializer.name}`, () => {
    if (initializer.beforeAll !== undefined) beforeAll(initializer.beforeAll);
    if (initializer.afterAll !== undefined) afterAll(initializer.afterAll);
    afterEach(async () => {
      for (const persistence of made.splice(0)) await initializer.destroy?.(persistence);
    });

    it('refuses an edit a forbid applies to with policy_forbids, naming the policy and its reason, and records nothing', async () => {
      const { store, changes, refund, decide } = await setup(AFTER_HOURS);
      const { key } = await refund({ orderId: 'A-1', amount: 500 });
      const before = await store.getPause(key);
      for (const amount of [40_000, 900_000]) {
        const refused = decide(key, ann, edit({ orderId: 'A-1', amount }));
        await expect(refused).rejects.toBeInstanceOf(PolicyForbidsError);
        await expect(refused).rejects.toMatchObject({
          code: 'policy_forbids',
          toolCallId: 'call_1',
          policyIds: ['never-over-10000'],
          reason: 'Refunds over 10,000 are never made',
        });
      }
      expect(await store.getPause(key)).toEqual(before);
      expect(changes).toHaveLength(1);
      // The control: an edit the policies allow is a vote; the person may still reject.
      expect(await decide(key, ann, edit({ orderId: 'A-1', amount: 600 }))).toMatchObject({ kind: 'pending' });
      expect(await decide(key, bob, { decision: 'reject', reason: 'No.' })).toMatchObject({ kind: 'closed' });
    });

    it("raises the requirements to the edited arguments': after hours one finance vote cannot send $5,000", async () => {
      const { store, refund, decide } = await setup(AFTER_HOURS);
      const { key } = await refund({ orderId: 'A-2', amount: 50 });
      const paused = await store.getPause(key);
      expect(paused.asks[0]).toMatchObject({
        approvers: { groups: ['support', 'finance'] },
        tally: { have: 0, need: 1 },
        policy: { outcome: 'ask', policyIds: ['refunds-small-people'] },
      });
      expect(paused.asks[0]?.policyNow).toBeUndefined();

      const voted = await decide(key, ann, edit({ orderId: 'A-2', amount: 5000 }));
      expect(voted).toMatchObject({ kind: 'pending', pending: ['call_1'], votes: { call_1: { have: 1, need: 2 } } });
      const view = await store.getPause(key);
      expect(view.asks[0]).toMatchObject({
        approvers: { groups: ['finance'] },
        approvals: 2,
        tally: { have: 1, need: 2 },
        // What the policies said at pause time stays; what they say of the current arguments is beside it.
        policy: { outcome: 'ask', policyIds: ['refunds-small-people'] },
        policyNow: {
          outcome: 'ask',
          policyIds: ['finance-over-100'],
          requires: { approvers: { groups: ['finance'] }, approvals: 2 },
          version: expect.any(String),
        },
        votes: [
          {
            decision: 'edit',
            args: { orderId: 'A-2', amount: 5000 },
            // What the voter was when they voted, and what the policies made of their arguments.
            by: { subject: 'ann', groups: ['finance'] },
            policy: { outcome: 'ask', policyIds: ['finance-over-100'] },
          },
        ],
      });
      // Support may no longer decide it: the new requirements hold every door.
      await expect(decide(key, carl, { decision: 'approve' })).rejects.toBeInstanceOf(NotAnApproverError);
      expect((await store.getPause(key)).asks[0]?.votes).toHaveLength(1);
      const closed = await decide(key, bob, { decision: 'approve' });
      expect(closed).toMatchObject({
        kind: 'closed',
        dispatch: [{ toolCallId: 'call_1', name: 'refund_order', args: { orderId: 'A-2', amount: 5000 } }],
      });
    });

    it('refuses an editor who may not decide under the new requirements, and they may still decide as asked', async () => {
      const { store, changes, refund, decide } = await setup(AFTER_HOURS);
      // No amount: no permit applies, the default lets anyone decide it.
      const { key } = await refund({ orderId: 'A-3' });
      expect((await store.getPause(key)).asks[0]).toMatchObject({ policy: { outcome: 'ask', basis: 'default' } });
      const before = await store.getPause(key);
      await expect(decide(key, dave, edit({ orderId: 'A-3', amount: 5000 }))).rejects.toBeInstanceOf(
        NotAnApproverError,
      );
      expect(await store.getPause(key)).toEqual(before);
      expect(changes).toHaveLength(1);
      expect(await decide(key, dave, { decision: 'approve' })).toMatchObject({
        kind: 'closed',
        dispatch: [{ args: { orderId: 'A-3' } }],
      });
    });

    it('keeps an edit to arguments only callWithoutApproval permits a person’s vote, never an automatic approval', async () => {
      const { store, refund, decide } = await setup(IN_HOURS);
      const { key } = await refund({ orderId: 'A-4' });
      // The permits of call that apply to the edited arguments name who may vote for them: support or finance.
      await expect(decide(key, dave, edit({ orderId: 'A-4', amount: 50 }))).rejects.toBeInstanceOf(NotAnApproverError);
      const closed = await decide(key, carl, edit({ orderId: 'A-4', amount: 50 }));
      expect(closed).toMatchObject({ kind: 'closed', dispatch: [{ args: { orderId: 'A-4', amount: 50 } }] });
      expect((await store.getPause(key)).asks[0]).toMatchObject({
        decision: {
          decision: 'edit',
          by: { kind: 'person', subject: 'carl', groups: ['support'], via: 'api' },
          policy: { outcome: 'approve', policyIds: ['refunds-small'] },
        },
        policyNow: { outcome: 'approve', policyIds: ['refunds-small'] },
      });
    });

    it("refuses arguments the policies cannot judge with policy_error in Cedar's words, and records nothing", async () => {
      const { store, changes, refund, decide } = await setup(AFTER_HOURS);
      const { key } = await refund({ orderId: 'A-5', amount: 500 });
      const before = await store.getPause(key);
      const cases: Array<[object, string]> = [
        [{ orderId: 'A-5', amount: 60.5 }, 'args.amount is 60.5, which does not fit a Long'],
        [{ orderId: 'A-5', tags: Array.from({ length: 1001 }, (_, i) => `t${i}`) }, 'more than the 1000'],
        [{ orderId: 'x'.repeat(70_000) }, 'the policies judge'],
      ];
      for (const [args, words] of cases) {
        const refused = decide(key, ann, edit(args));
        await expect(refused).rejects.toBeInstanceOf(PolicyEvaluationError);
        await expect(refused).rejects.toMatchObject({ code: 'policy_error', message: expect.stringContaining(words) });
      }
      expect(await store.getPause(key)).toEqual(before);
      expect(changes).toHaveLength(1);
    });

    it('stops counting votes for earlier arguments, and settles on the edited ones', async () => {
      const { store, refund, decide } = await setup(AFTER_HOURS);
      const { key } = await refund({ orderId: 'A-6', amount: 500 });
      expect(await decide(key, ann, { decision: 'approve' })).toMatchObject({ votes: { call_1: { have: 1 } } });
      expect(await decide(key, bob, edit({ orderId: 'A-6', amount: 600 }))).toMatchObject({
        votes: { call_1: { have: 1, need: 2 } },
      });
      const closed = await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_1', decision: 'approve' }],
        by: person('erin', ['finance']),
      });
      expect(closed).toMatchObject({ kind: 'closed', dispatch: [{ args: { orderId: 'A-6', amount: 600 } }] });
    });

    it('in shadow mode records what the policies would make of an edit, with it, and refuses nothing', async () => {
      const { store, refund, decide } = await setup(AFTER_HOURS, { mode: 'shadow' });
      const { key } = await refund({ orderId: 'A-7', amount: 500 });
      const closed = await decide(key, dave, edit({ orderId: 'A-7', amount: 40_000 }));
      expect(closed).toMatchObject({ kind: 'closed', dispatch: [{ args: { orderId: 'A-7', amount: 40_000 } }] });
      const would = {
        outcome: 'reject',
        policyIds: ['never-over-10000'],
        reason: 'Refunds over 10,000 are never made',
        shadow: true,
      };
      expect((await store.getPause(key)).asks[0]).toMatchObject({
        decision: { decision: 'edit', by: { subject: 'dave' }, policy: would },
        policy: { outcome: 'ask', shadow: true },
        policyNow: would,
      });
    });

    it("names the policy set's version on every policy view and automatic decision, hashed from its files", async () => {
      const { store, engine, refund } = await setup(IN_HOURS);
      const version = policyVersion(loaded.sources, 'enforce', 'ask');
      expect(engine.version).toBe(version);
      expect(version).toMatch(/^[0-9a-f]{16}$/);
      const { paused, key } = await refund({ orderId: 'A-8', amount: 20 });
      expect(paused).toMatchObject({ status: 'resumed' });
      expect((await store.getPause(key)).asks[0]).toMatchObject({
        decision: { by: { subject: 'policy:refunds-small', via: 'policy', policyVersion: version } },
        policy: { version },
      });
      const named = await setup(IN_HOURS, { version: 'release-42' });
      const again = await named.refund({ orderId: 'A-8', amount: 20 });
      expect((await named.store.getPause(again.key)).asks[0]?.policy?.version).toBe('release-42');
    });

    it("sees the tool's name and the clock: delete_* forbidden by one rule, small refunds automatic in hours only", async () => {
      const { refund } = await setup(IN_HOURS);
      const deleted = (await refund({ orderId: 'A-9' }, 'delete_invoice')).paused as PauseClosed;
      expect(deleted.dispatch).toEqual([]);
      const result = deleted.messages.find(
        (message) => (message as { tool_call_id?: string }).tool_call_id === 'call_1',
      ) as { content: string };
      expect(result.content).toBe(`${policyRejectionText('no-deletes')}\nReason: Nothing is deleted by an agent`);
      expect(((await refund({ orderId: 'A-9', amount: 20 })).paused as PauseClosed).status).toBe('resumed');
      const late = await setup(AFTER_HOURS);
      expect(((await late.refund({ orderId: 'A-9', amount: 20 })).paused as PauseCreated).status).toBe('paused');
    });
  });
}
