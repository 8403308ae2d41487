import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { CheckpointService } from '../checkpoints/checkpoint-service.ts';
import type { PauseClosed, PauseCreated, PauseInput } from '../checkpoints/checkpoint-store.ts';
import { ALL_CHECKS } from '../checkpoints/checks.ts';
import type { CheckpointPersistence } from '../checkpoints/persistence.ts';
import { AlreadyDecidedError, BadRequestError, NotAnApproverError } from '../errors.ts';
import { loadCedar } from '../policies/cedar.ts';
import { createPolicyEngine, type EvaluationFailure, type PolicyEngineOptions } from '../policies/engine.ts';
import { loadPolicies } from '../policies/load.ts';
import { REJECTED } from '../rehydrate/decisions.ts';
import { policyRejectionText } from '../rehydrate/texts.ts';
import type { Actor } from '../wire.ts';
import { policyTranscript, testClock } from './fixtures.ts';
import type { SpecInitializer } from './persistence-spec.ts';
import { policyEditSpec } from './policy-edit-spec.ts';

/**
 * The rules of policy before people (§17), one suite for every backend: `policySpec(initializer)` pauses through
 * `CheckpointService` with a deployment's Cedar policies (the real WebAssembly evaluates them) and checks what the
 * contract promises — each outcome, a mixed round, shadow mode, the default, fail closed, an agent that cannot widen
 * its approvers, and exactly one continuation under retries and races — and, with `policyEditSpec`, a person's edits
 * judged by them (§19).
 */

/** The policies the suite runs with. */
export const SPEC_POLICIES = `
@id("refunds-small")
permit(principal, action == Handback::Action::"callWithoutApproval", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount <= 100 };

@id("finance-over-100")
@approvers("group:finance, email:cfo@example.com")
@approvals("2")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount > 100 };

@id("no-agent-deletes")
@reason("Agents never delete customers")
forbid(principal is Handback::Agent, action, resource == Handback::Tool::"delete_customer");

@id("emails-ask")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"send_email");
`;

/** The version the suite's policy set is named by (a deployment's `HANDBACK_POLICY_VERSION`, §19). */
export const SPEC_VERSION = 'spec-1';

/** The arguments the suite's tools take. */
export const SPEC_ARGS = 'namespace Handback { type Args = { amount?: Long, orderId?: String, to?: String }; }';

const SHIPPED = fileURLToPath(new URL('../../handback.cedarschema', import.meta.url));

const SMALL = ['call_small', 'refund_order', { orderId: 'A-1', amount: 20 }] as const;
const LARGE = ['call_large', 'refund_order', { orderId: 'A-2', amount: 500 }] as const;
const DELETE = ['call_delete', 'delete_customer', { orderId: 'A-3' }] as const;
const EMAIL = ['call_email', 'send_email', { to: 'c@example.com' }] as const;
const OTHER = ['call_other', 'close_account', {}] as const;
const ASK = ['call_ask', 'ask_human', { question: 'Which one?' }] as const;

const finance = (subject: string): Actor => ({ kind: 'person', subject, groups: ['finance'], via: 'api' });
const policy = (id: string) => ({
  kind: 'service',
  subject: `policy:${id}`,
  via: 'policy',
  policyVersion: SPEC_VERSION,
});

/** The policies' spec suite, on a fresh persistence from `initializer.create` for each case. */
export function policySpec<T extends CheckpointPersistence>(initializer: SpecInitializer<T>): void {
  const made: T[] = [];
  const cedar = loadCedar();
  const loaded = loadPolicies(
    cedar,
    { file: 'policies.cedar', text: SPEC_POLICIES },
    { file: 'handback.cedarschema', text: readFileSync(SHIPPED, 'utf8') },
    { file: 'args.cedarschema', text: SPEC_ARGS },
  );
  const setup = async (options: Omit<PolicyEngineOptions, 'onError'> = {}) => {
    const persistence = await initializer.create();
    made.push(persistence);
    const changes: PauseChange[] = [];
    const failures: EvaluationFailure[] = [];
    const engine = createPolicyEngine(cedar, loaded, {
      version: SPEC_VERSION,
      ...options,
      onError: (failure) => failures.push(failure),
    });
    let loads = 0;
    const store = new CheckpointService({
      checks: ALL_CHECKS,
      persistence,
      clock: testClock().now,
      onChange: (change) => changes.push(change),
      policies: async () => {
        loads++;
        return engine;
      },
    });
    return { store, changes, failures, loads: () => loads };
  };
  const input = (
    calls: ReadonlyArray<readonly [string, string, unknown]>,
    asks: PauseInput['asks'] = calls.map(([toolCallId]) => ({ toolCallId, kind: 'approval' as const })),
    overrides: Partial<PauseInput> = {},
  ): PauseInput => ({
    tenant: 'acme',
    runId: `run-${randomUUID()}`,
    format: 'openai-chat',
    messages: policyTranscript(calls),
    asks,
    ...overrides,
  });

  describe(`policy before people (§17) on ${initializer.name}`, () => {
    if (initializer.beforeAll !== undefined) beforeAll(initializer.beforeAll);
    if (initializer.afterAll !== undefined) afterAll(initializer.afterAll);
    afterEach(async () => {
      for (const persistence of made.splice(0)) await initializer.destroy?.(persistence);
    });

    it('closes a pause whose every ask the policies decide at once: the continuation, the audit trail, the events', async () => {
      const { store, changes } = await setup();
      const paused = input([SMALL, DELETE]);
      const closed = (await store.pause(paused)) as PauseClosed;
      expect(closed).toMatchObject({ status: 'resumed', outcome: 'resumed', asks: ['call_small', 'call_delete'] });
      expect(closed.dispatch).toEqual([{ toolCallId: 'call_small', name: 'refund_order', args: SMALL[2] }]);
      const rejected = closed.messages.find(
        (message) => (message as { tool_call_id?: string }).tool_call_id === 'call_delete',
      );
      // The model is told a policy decided, never a person (§19).
      expect((rejected as { content: string }).content).toBe(
        `${policyRejectionText('no-agent-deletes')}\nReason: Agents never delete customers`,
      );
      expect((rejected as { content: string }).content).not.toContain(REJECTED);

      const key = { tenant: 'acme', runId: paused.runId, interruptId: closed.interruptId };
      const view = await store.getPause(key);
      expect(view).toMatchObject({ status: 'resumed', continuationId: closed.continuationId, pending: [] });
      expect(view.asks[0]).toMatchObject({
        decision: { decision: 'approve', by: policy('refunds-small') },
        policy: { outcome: 'approve', policyIds: ['refunds-small'] },
      });
      expect(view.asks[1]).toMatchObject({
        decision: { decision: 'reject', reason: 'Agents never delete customers', by: policy('no-agent-deletes') },
        policy: { outcome: 'reject', policyIds: ['no-agent-deletes'], reason: 'Agents never delete customers' },
      });
      expect(await store.getContinuation({ ...key, continuationId: closed.continuationId })).toMatchObject({
        continuationId: closed.continuationId,
        dispatch: closed.dispatch,
      });

      // One write, created closed (its events are the decisions and the closing, never a Pause Created).
      expect(changes).toHaveLength(1);
      expect(changes[0]?.before).toBeUndefined();
      expect(changes[0]?.after).toMatchObject({ status: 'resumed', rev: 1 });
    });

    it('lets a mixed round wait only for what needs people, with what the policies require', async () => {
      const { store, changes } = await setup();
      const paused = input(
        [SMALL, LARGE, ASK],
        [
          { toolCallId: 'call_small', kind: 'approval' },
          { toolCallId: 'call_large', kind: 'approval' },
          { toolCallId: 'call_ask', kind: 'answer' },
        ],
      );
      const created = (await store.pause(paused)) as PauseCreated;
      expect(created.status).toBe('paused');
      const key = { tenant: 'acme', runId: paused.runId, interruptId: created.interruptId };
      const view = await store.getPause(key);
      expect(view.decided).toEqual(['call_small']);
      expect(view.pending).toEqual(['call_large', 'call_ask']);
      expect(view.asks[1]).toMatchObject({
        approvers: { groups: ['finance'], emails: ['cfo@example.com'] },
        approvals: 2,
        policy: {
          outcome: 'ask',
          policyIds: ['finance-over-100'],
          requires: { approvers: { groups: ['finance'], emails: ['cfo@example.com'] }, approvals: 2 },
        },
      });
      // Answer asks always wait: the policies never see them.
      expect(view.asks[2]?.policy).toBeUndefined();
      // One write: the pause, open, with the policies' decision in it.
      expect(changes).toHaveLength(1);
      expect(changes[0]?.after.decisions.map((decision) => decision?.by?.subject)).toEqual([
        'policy:refunds-small',
        undefined,
        undefined,
      ]);

      await store.decide({ ...key, decisions: [{ toolCallId: 'call_ask', answer: 'both' }], by: finance('ann') });
      await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_large', decision: 'approve' }],
        by: finance('ann'),
      });
      const closed = await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_large', decision: 'approve' }],
        by: finance('bob'),
      });
      expect(closed).toMatchObject({ kind: 'closed', outcome: 'resumed' });
      if (closed.kind !== 'closed') throw new Error('not closed');
      expect(closed.dispatch.map((call) => call.toolCallId)).toEqual(['call_small', 'call_large']);
    });

    it('in shadow mode records what the policies would do and asks people as if none existed', async () => {
      const { store, changes } = await setup({ mode: 'shadow' });
      const paused = input(
        [SMALL, DELETE, LARGE],
        [
          { toolCallId: 'call_small', kind: 'approval' },
          { toolCallId: 'call_delete', kind: 'approval' },
          { toolCallId: 'call_large', kind: 'approval', approvers: { subjects: ['zoe'] } },
        ],
      );
      const created = (await store.pause(paused)) as PauseCreated;
      expect(created.status).toBe('paused');
      const view = await store.getPause({ tenant: 'acme', runId: paused.runId, interruptId: created.interruptId });
      expect(view.decided).toEqual([]);
      expect(view.asks.map((ask) => ask.policy)).toEqual([
        { outcome: 'approve', policyIds: ['refunds-small'], shadow: true, version: SPEC_VERSION },
        {
          outcome: 'reject',
          policyIds: ['no-agent-deletes'],
          reason: 'Agents never delete customers',
          shadow: true,
          version: SPEC_VERSION,
        },
        {
          outcome: 'ask',
          policyIds: ['finance-over-100'],
          requires: { approvers: { groups: ['finance'], emails: ['cfo@example.com'] }, approvals: 2 },
          shadow: true,
          version: SPEC_VERSION,
        },
      ]);
      // The agent's own approvers stand: nothing the policies require applies.
      expect(view.asks[2]).toMatchObject({ approvers: { subjects: ['zoe'] } });
      expect(view.asks[2]?.approvals).toBeUndefined();
      expect(changes).toHaveLength(1);
      expect(changes[0]?.after.decisions).toEqual([undefined, undefined, undefined]);
    });

    it('applies the default where no policy applies: ask (waits) or reject (as policy:default)', async () => {
      const asking = await setup();
      const waits = (await asking.store.pause(input([OTHER]))) as PauseCreated;
      expect(waits.status).toBe('paused');
      const strict = await setup({ default: 'reject' });
      const closed = (await strict.store.pause(input([OTHER]))) as PauseClosed;
      expect(closed).toMatchObject({ status: 'resumed', dispatch: [] });
      const view = await strict.store.getPause({
        tenant: 'acme',
        runId: closed.runId,
        interruptId: closed.interruptId,
      });
      expect(view.asks[0]).toMatchObject({
        decision: { decision: 'reject', by: policy('default') },
        policy: { outcome: 'reject', policyIds: [], basis: 'default' },
      });
    });

    it('fails closed: an argument that does not fit its type rejects the ask as policy:error, and is reported', async () => {
      const { store, failures } = await setup();
      const bad = ['call_bad', 'refund_order', { orderId: 'A-9', amount: 60.5 }] as const;
      const closed = (await store.pause(input([bad]))) as PauseClosed;
      expect(closed).toMatchObject({ status: 'resumed', dispatch: [] });
      const view = await store.getPause({ tenant: 'acme', runId: closed.runId, interruptId: closed.interruptId });
      expect(view.asks[0]).toMatchObject({
        decision: { decision: 'reject', by: policy('error') },
        policy: { outcome: 'reject', basis: 'error' },
      });
      expect(failures).toEqual([expect.objectContaining({ tool: 'refund_order', runId: closed.runId })]);
      expect(failures[0]?.message).toContain('60.5');
    });

    it("never lets an agent widen the policies' approvers; it may narrow them", async () => {
      const { store } = await setup();
      const widened = input(
        [LARGE],
        [{ toolCallId: 'call_large', kind: 'approval', approvers: { subjects: ['mallory'] } }],
      );
      const created = (await store.pause(widened)) as PauseCreated;
      const key = { tenant: 'acme', runId: widened.runId, interruptId: created.interruptId };
      const view = await store.getPause(key);
      expect(view.asks[0]).toMatchObject({
        approvers: { groups: ['finance'], emails: ['cfo@example.com'] },
        policy: { agentApprovers: 'replaced' },
      });
      const mallory: Actor = { kind: 'person', subject: 'mallory', via: 'api' };
      await expect(
        store.decide({ ...key, decisions: [{ toolCallId: 'call_large', decision: 'approve' }], by: mallory }),
      ).rejects.toBeInstanceOf(NotAnApproverError);
      expect((await store.getPause(key)).asks[0]?.votes).toBeUndefined();

      const narrowed = input(
        [LARGE],
        [{ toolCallId: 'call_large', kind: 'approval', approvers: { emails: ['CFO@example.com', 'eve@example.com'] } }],
      );
      const second = (await store.pause(narrowed)) as PauseCreated;
      const narrowView = await store.getPause({
        tenant: 'acme',
        runId: narrowed.runId,
        interruptId: second.interruptId,
      });
      expect(narrowView.asks[0]).toMatchObject({
        approvers: { emails: ['CFO@example.com'] },
        approvals: 2,
        policy: { agentApprovers: 'narrowed' },
      });
    });

    it('answers a retry under the same Idempotency-Key with the same closed pause, evaluated once', async () => {
      const { store, changes } = await setup();
      const paused = input([SMALL], undefined, { idempotencyKey: 'key-1' });
      const first = (await store.pause(paused)) as PauseClosed;
      const again = (await store.pause(paused)) as PauseClosed;
      expect(again).toMatchObject({ status: 'resumed', replayed: true, continuationId: first.continuationId });
      expect(again.dispatch).toEqual(first.dispatch);
      expect(changes).toHaveLength(1);
    });

    it('commits one continuation when retries of the pause race a person deciding what waits', async () => {
      const { store, changes } = await setup();
      const paused = input([SMALL, EMAIL], undefined, { idempotencyKey: 'race-1' });
      const person: Actor = { kind: 'person', subject: 'ann', via: 'api' };
      const decideWhenListed = async () => {
        for (let attempt = 0; attempt < 200; attempt++) {
          const page = await store.listPauses({ tenant: 'acme', status: 'paused' });
          const open = page.items.find((item) => item.runId === paused.runId);
          if (open !== undefined) {
            const key = { tenant: 'acme', runId: paused.runId, interruptId: open.interruptId };
            return store.decide({ ...key, decisions: [{ toolCallId: 'call_email', decision: 'approve' }], by: person });
          }
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        throw new Error('the pause never showed');
      };
      const [decided, ...created] = await Promise.all([
        decideWhenListed(),
        ...Array.from({ length: 8 }, () => store.pause(paused)),
      ]);
      expect(new Set(created.map((result) => result.interruptId)).size).toBe(1);
      expect(decided).toMatchObject({ kind: 'closed', outcome: 'resumed' });
      if (decided.kind !== 'closed') throw new Error('not closed');
      expect(decided.dispatch.map((call) => call.toolCallId)).toEqual(['call_small', 'call_email']);
      // The same decision again is a replay of that continuation; another is refused; nothing else was written.
      const key = { tenant: 'acme', runId: paused.runId, interruptId: decided.interruptId };
      const replay = await store.decide({
        ...key,
        decisions: [{ toolCallId: 'call_email', decision: 'approve' }],
        by: person,
      });
      expect(replay).toMatchObject({ kind: 'closed', replayed: true, continuationId: decided.continuationId });
      await expect(
        store.decide({ ...key, decisions: [{ toolCallId: 'call_small', decision: 'reject' }], by: person }),
      ).rejects.toBeInstanceOf(AlreadyDecidedError);
      expect(
        changes.filter((change) => change.after.closing !== undefined && change.before?.closing === undefined),
      ).toHaveLength(1);
      const view = await store.getPause(key);
      expect(view.asks[0]?.decision).toMatchObject({ decision: 'approve', by: policy('refunds-small') });
      expect(view.continuationId).toBe(decided.continuationId);
    });

    it('refuses a person deciding a pause the policies closed at once, and changes nothing', async () => {
      const { store, changes } = await setup();
      const closed = (await store.pause(input([SMALL]))) as PauseClosed;
      const key = { tenant: 'acme', runId: closed.runId, interruptId: closed.interruptId };
      await expect(
        store.decide({ ...key, decisions: [{ toolCallId: 'call_small', decision: 'reject' }], by: finance('ann') }),
      ).rejects.toBeInstanceOf(AlreadyDecidedError);
      expect(changes).toHaveLength(1);
      expect((await store.getPause(key)).asks[0]?.decision).toMatchObject({ by: policy('refunds-small') });
    });

    it('never loads the policies for a pause of answer asks only', async () => {
      const { store, loads } = await setup();
      await store.pause(input([ASK], [{ toolCallId: 'call_ask', kind: 'answer' }]));
      expect(loads()).toBe(0);
    });

    it('refuses, with auth off, a pause whose policies require approvers no one could be', async () => {
      const { store } = await setup();
      const anonymous: Actor = { kind: 'person', subject: 'anonymous', via: 'api' };
      await expect(store.pause(input([LARGE], undefined, { by: anonymous }))).rejects.toBeInstanceOf(BadRequestError);
    });
  });
  policyEditSpec(initializer);
}
