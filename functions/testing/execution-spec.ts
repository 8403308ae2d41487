import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { CheckpointService } from '../checkpoints/checkpoint-service.ts';
import type { PauseCreated, PauseInput } from '../checkpoints/checkpoint-store.ts';
import { ALL_CHECKS } from '../checkpoints/checks.ts';
import type { CheckpointPersistence } from '../checkpoints/persistence.ts';
import { argsHashOf } from '../checkpoints/tally.ts';
import {
  AlreadyClaimedError,
  AlreadyFinishedError,
  ApprovalExpiredError,
  ContinuationNotFoundError,
  ForbiddenError,
  NotClaimedError,
  NotDispatchedError,
  PolicyEvaluationError,
  PolicyForbidsError,
} from '../errors.ts';
import { loadCedar } from '../policies/cedar.ts';
import { createPolicyEngine, type PolicyEngineOptions } from '../policies/engine.ts';
import { loadPolicies } from '../policies/load.ts';
import type { PolicyEngine } from '../policies/port.ts';
import type { Actor } from '../wire.ts';
import { testClock } from './fixtures.ts';
import type { SpecInitializer } from './persistence-spec.ts';

/**
 * The execution claim (§19), one suite for every backend: `executionSpec(initializer)` closes pauses through
 * `CheckpointService` and claims their dispatched calls — exactly one claim under any race, the claim judged again by
 * the policies in force (a restart with a forbidding file) and by `@validFor`, every refusal recorded and answered
 * again, how a claimed call ended told once by its claimant, and what views and events say of each.
 */

/** The policies a deployment starts with: refunds wait for a person, whose approval is valid for an hour. */
export const EXECUTION_POLICIES = `
@id("refunds-ask")
@validFor("PT1H")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order");

@id("emails-ask")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"send_email");
`;

/** The same deployment after an operator forbade large refunds: what is in force when the call is claimed. */
export const EXECUTION_POLICIES_LATER = `${EXECUTION_POLICIES}
@id("no-large-refunds")
@reason("Refunds over 500 go through the finance desk")
forbid(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount > 500 };
`;

/** A file whose forbid cannot be evaluated for a refund: its arithmetic overflows (Cedar's Longs are 64-bit). */
const ERRING_POLICIES = `${EXECUTION_POLICIES}
@id("overflowing")
forbid(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order")
when { context.args has amount && context.args.amount * 9223372036854775807 > 0 };
`;

const ARGS = 'namespace Handback { type Args = { amount?: Long, orderId?: String, to?: String }; }';
const SHIPPED = fileURLToPath(new URL('../../handback.cedarschema', import.meta.url));

const AGENT: Actor = { kind: 'agent', subject: 'support-bot', via: 'api' };
const OTHER_AGENT: Actor = { kind: 'agent', subject: 'other-bot', via: 'api' };
const ANN: Actor = { kind: 'person', subject: 'ann', via: 'api' };

/** An openai-chat round: a refund of `amount`, an email, a lookup nobody is asked about. */
function round(amount: number): unknown[] {
  const call = (id: string, name: string, args: unknown) => ({
    id,
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  });
  return [
    { role: 'user', content: 'Refund order A-7 and tell the customer.' },
    {
      role: 'assistant',
      content: 'On it.',
      tool_calls: [
        call('call_refund', 'refund_order', { orderId: 'A-7', amount }),
        call('call_email', 'send_email', { to: 'c@example.com' }),
        call('call_lookup', 'lookup_order', { orderId: 'A-7' }),
      ],
    },
  ];
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** The execution claims' spec suite, on a fresh persistence from `initializer.create` for each case. */
export function executionSpec<T extends CheckpointPersistence>(initializer: SpecInitializer<T>): void {
  const made: T[] = [];
  const cedar = loadCedar();
  const engineOf = (text: string, options: PolicyEngineOptions = {}) =>
    createPolicyEngine(
      cedar,
      loadPolicies(
        cedar,
        { file: 'policies.cedar', text },
        { file: 'handback.cedarschema', text: readFileSync(SHIPPED, 'utf8') },
        { file: 'args.cedarschema', text: ARGS },
      ),
      options,
    );

  /**
   * A persistence for the case and a store on it with `policies`; `restart(engine)` is another store on the same
   * records (the service started again with another policy file), sharing the clock and the changes.
   */
  const setup = async (policies?: PolicyEngine) => {
    const persistence = await initializer.create();
    made.push(persistence);
    const clock = testClock();
    const changes: PauseChange[] = [];
    const storeWith = (engine: PolicyEngine | undefined) =>
      new CheckpointService({
        checks: ALL_CHECKS,
        persistence,
        clock: clock.now,
        onChange: (change) => changes.push(change),
        ...(engine === undefined ? {} : { policies: async () => engine }),
      });
    return { store: storeWith(policies), restart: storeWith, clock, changes };
  };

  /** A pause of the round decided by Ann (the refund approved or edited, the email rejected): its continuation. */
  const closed = async (
    store: CheckpointService,
    options: { amount?: number; edit?: Record<string, unknown>; asks?: PauseInput['asks'] } = {},
  ) => {
    const runId = `run-${randomUUID()}`;
    const created = (await store.pause({
      tenant: 'acme',
      runId,
      format: 'openai-chat',
      messages: round(options.amount ?? 120),
      asks: options.asks ?? [
        { toolCallId: 'call_refund', kind: 'approval' },
        { toolCallId: 'call_email', kind: 'approval' },
      ],
      by: AGENT,
    })) as PauseCreated;
    const key = { tenant: 'acme', runId, interruptId: created.interruptId };
    const refund =
      options.edit === undefined
        ? { toolCallId: 'call_refund', decision: 'approve' as const }
        : { toolCallId: 'call_refund', decision: 'edit' as const, args: options.edit };
    const decided = await store.decide({
      ...key,
      decisions: [refund, { toolCallId: 'call_email', decision: 'reject', reason: 'not now' }],
      by: ANN,
    });
    if (decided.kind !== 'closed') throw new Error('the pause did not close');
    const call = { tenant: 'acme', runId, continuationId: decided.continuationId };
    return { key, call, continuation: decided };
  };

  describe(`the execution claim (§19) on ${initializer.name}`, () => {
    if (initializer.beforeAll !== undefined) beforeAll(initializer.beforeAll);
    if (initializer.afterAll !== undefined) afterAll(initializer.afterAll);
    afterEach(async () => {
      for (const persistence of made.splice(0)) await initializer.destroy?.(persistence);
    });

    it('gives the first claim the call to run and every later claim already_claimed, and shows each step', async () => {
      const { store, changes } = await setup();
      const { key, call, continuation } = await closed(store);
      const waiting = await store.getPause(key);
      expect(waiting.asks[0]?.execution).toEqual({ status: 'waiting', at: continuation.resumedAt });
      // A rejected ask dispatched nothing: it has no execution.
      expect(waiting.asks[1]?.execution).toBeUndefined();

      const args = { orderId: 'A-7', amount: 120 };
      const claimed = await store.claimExecution({ ...call, toolCallId: 'call_refund', by: AGENT });
      expect(claimed).toEqual({
        toolCallId: 'call_refund',
        name: 'refund_order',
        args,
        argsHash: argsHashOf(args),
        claimedAt: expect.any(String),
      });
      const again = await rejection(store.claimExecution({ ...call, toolCallId: 'call_refund', by: AGENT }));
      expect(again).toBeInstanceOf(AlreadyClaimedError);
      expect(again).toMatchObject({
        toolCallId: 'call_refund',
        claimedAt: claimed.claimedAt,
        claimedBy: { kind: 'agent', subject: 'support-bot' },
      });
      const view = await store.getPause(key);
      expect(view.asks[0]?.execution).toEqual({
        status: 'claimed',
        at: claimed.claimedAt,
        by: { kind: 'agent', subject: 'support-bot', via: 'api' },
      });
      // One change for the claim, none for the refused second one.
      const claims = changes.filter((change) => change.after.executions !== undefined);
      expect(claims).toHaveLength(1);
      expect(claims[0]?.before?.executions).toBeUndefined();
      expect(claims[0]?.after.executions?.[0]).toMatchObject({ status: 'claimed', claimedAt: claimed.claimedAt });
    });

    it('records exactly one of 20 racing claims, and refuses the other 19', async () => {
      const { store, changes } = await setup();
      const { call } = await closed(store);
      const before = changes.length;
      const claimants = Array.from({ length: 20 }, (_, n) => ({ ...AGENT, subject: `worker-${n}` }));
      const results = await Promise.allSettled(
        claimants.map((by) => store.claimExecution({ ...call, toolCallId: 'call_refund', by })),
      );
      const won = results.filter((result) => result.status === 'fulfilled');
      const lost = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(19);
      for (const error of lost) expect(error).toBeInstanceOf(AlreadyClaimedError);
      const claimedAt = (won[0] as PromiseFulfilledResult<{ claimedAt: string }>).value.claimedAt;
      expect(new Set(lost.map((error) => (error as AlreadyClaimedError).claimedAt))).toEqual(new Set([claimedAt]));
      // One write for all of them.
      expect(changes.length - before).toBe(1);
    });

    it('runs the edited arguments, and a retry of one claim under its key is that claim', async () => {
      const { store } = await setup();
      const edited = { orderId: 'A-7', amount: 60 };
      const { call } = await closed(store, { edit: edited });
      const first = await store.claimExecution({
        ...call,
        toolCallId: 'call_refund',
        idempotencyKey: 'k-1',
        by: AGENT,
      });
      expect(first).toMatchObject({ args: edited, argsHash: argsHashOf(edited) });
      // The same principal, the same key: its claim again (a retry after an answer that never arrived).
      const retried = await store.claimExecution({
        ...call,
        toolCallId: 'call_refund',
        idempotencyKey: 'k-1',
        by: AGENT,
      });
      expect(retried).toEqual(first);
      // The key is no pass: another principal with it, or the claimant with another, is a later claim.
      for (const [by, idempotencyKey] of [
        [OTHER_AGENT, 'k-1'],
        [AGENT, 'k-2'],
      ] as const) {
        const later = await rejection(store.claimExecution({ ...call, toolCallId: 'call_refund', idempotencyKey, by }));
        expect(later).toBeInstanceOf(AlreadyClaimedError);
      }
    });

    it('refuses a call the continuation does not dispatch, and a continuation of another tenant, recording nothing', async () => {
      const { store, changes } = await setup();
      const { key, call } = await closed(store);
      const before = changes.length;
      for (const toolCallId of ['call_email', 'call_lookup', 'call_nobody']) {
        expect(await rejection(store.claimExecution({ ...call, toolCallId, by: AGENT }))).toBeInstanceOf(
          NotDispatchedError,
        );
      }
      const foreign = await rejection(
        store.claimExecution({ ...call, tenant: 'other', toolCallId: 'call_refund', by: AGENT }),
      );
      expect(foreign).toBeInstanceOf(ContinuationNotFoundError);
      expect(changes.length).toBe(before);
      // The control: the dispatched call of the same continuation is claimed.
      await store.claimExecution({ ...call, toolCallId: 'call_refund', by: AGENT });
      expect((await store.getPause(key)).asks[0]?.execution?.status).toBe('claimed');
    });

    it('dispatches nothing to claim from a cancelled pause', async () => {
      const { store } = await setup();
      const runId = `run-${randomUUID()}`;
      const created = (await store.pause({
        tenant: 'acme',
        runId,
        format: 'openai-chat',
        messages: round(120),
        asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
        by: AGENT,
      })) as PauseCreated;
      const cancelled = await store.cancel({ tenant: 'acme', runId, interruptId: created.interruptId, by: AGENT });
      const claim = store.claimExecution({
        tenant: 'acme',
        runId,
        continuationId: cancelled.continuationId,
        toolCallId: 'call_refund',
        by: AGENT,
      });
      expect(await rejection(claim)).toBeInstanceOf(NotDispatchedError);
      const view = await store.getPause({ tenant: 'acme', runId, interruptId: created.interruptId });
      expect(view.asks[0]?.execution).toBeUndefined();
    });

    it('records how a claimed call ended, once, told by its claimant only', async () => {
      const { store, changes } = await setup();
      const { key, call } = await closed(store);
      const execution = { ...call, toolCallId: 'call_refund' };
      expect(await rejection(store.finishExecution({ ...execution, status: 'succeeded', by: AGENT }))).toBeInstanceOf(
        NotClaimedError,
      );
      const { claimedAt } = await store.claimExecution({ ...execution, by: AGENT });
      const before = changes.length;
      expect(await rejection(store.finishExecution({ ...execution, status: 'failed', by: ANN }))).toBeInstanceOf(
        ForbiddenError,
      );
      expect(changes.length).toBe(before);
      const ended = await store.finishExecution({ ...execution, status: 'succeeded', detail: 'refund R-9', by: AGENT });
      expect(ended).toEqual({
        toolCallId: 'call_refund',
        status: 'succeeded',
        at: expect.any(String),
        by: { kind: 'agent', subject: 'support-bot', via: 'api' },
        claimedAt,
        detail: 'refund R-9',
      });
      // The same end again is answered the same, with no write; another end is refused.
      expect(
        await store.finishExecution({ ...execution, status: 'succeeded', detail: 'refund R-9', by: AGENT }),
      ).toEqual(ended);
      expect(await rejection(store.finishExecution({ ...execution, status: 'failed', by: AGENT }))).toBeInstanceOf(
        AlreadyFinishedError,
      );
      expect((await store.getPause(key)).asks[0]?.execution).toEqual({ ...ended, toolCallId: undefined });
      // One change: the end.
      expect(changes.slice(before).map((change) => change.after.executions?.[0]?.status)).toEqual(['succeeded']);
    });

    it('refuses a claim that the policies in force now forbid, after a restart, records it and answers it again', async () => {
      const { store, restart, changes } = await setup(engineOf(EXECUTION_POLICIES));
      const large = await closed(store, { amount: 900 });
      const small = await closed(store, { amount: 120 });
      // The service starts again with a file that forbids large refunds.
      const later = restart(engineOf(EXECUTION_POLICIES_LATER));
      const before = changes.length;
      const refused = await rejection(later.claimExecution({ ...large.call, toolCallId: 'call_refund', by: AGENT }));
      expect(refused).toBeInstanceOf(PolicyForbidsError);
      expect(refused).toMatchObject({
        policyIds: ['no-large-refunds'],
        reason: 'Refunds over 500 go through the finance desk',
        toolCallId: 'call_refund',
      });
      const view = await later.getPause(large.key);
      expect(view.asks[0]?.execution).toMatchObject({
        status: 'refused',
        code: 'policy_forbids',
        reason: 'Refunds over 500 go through the finance desk',
        by: { kind: 'agent', subject: 'support-bot' },
      });
      // One change: the refusal, recorded.
      expect(changes.slice(before).map((change) => change.after.executions?.[0]?.refusal?.code)).toEqual([
        'policy_forbids',
      ]);
      // Refused for good: every later claim gets the refusal again, whatever the policies say by then.
      const again = await rejection(store.claimExecution({ ...large.call, toolCallId: 'call_refund', by: AGENT }));
      expect(again).toBeInstanceOf(PolicyForbidsError);
      expect(changes.length - before).toBe(1);
      // The control: a refund the new file allows is claimed under it.
      const allowed = await later.claimExecution({ ...small.call, toolCallId: 'call_refund', by: AGENT });
      expect(allowed.args).toEqual({ orderId: 'A-7', amount: 120 });
    });

    it('refuses nothing in shadow mode, and records what the policies would have done', async () => {
      const { store, restart } = await setup(engineOf(EXECUTION_POLICIES, { mode: 'shadow' }));
      const { key, call } = await closed(store, { amount: 900 });
      const later = restart(engineOf(EXECUTION_POLICIES_LATER, { mode: 'shadow' }));
      await later.claimExecution({ ...call, toolCallId: 'call_refund', by: AGENT });
      expect((await later.getPause(key)).asks[0]?.execution).toMatchObject({
        status: 'claimed',
        policy: { outcome: 'reject', policyIds: ['no-large-refunds'] },
      });
    });

    it('fails closed when the policies in force cannot judge the claim', async () => {
      const { store, restart } = await setup(engineOf(EXECUTION_POLICIES));
      const { key, call } = await closed(store);
      const later = restart(engineOf(ERRING_POLICIES));
      const refused = await rejection(later.claimExecution({ ...call, toolCallId: 'call_refund', by: AGENT }));
      expect(refused).toBeInstanceOf(PolicyEvaluationError);
      expect((await later.getPause(key)).asks[0]?.execution).toMatchObject({ status: 'refused', code: 'policy_error' });
    });

    it('bounds an approval by @validFor: approvedUntil on the dispatch, 410 and recorded once it has passed', async () => {
      const { store, clock } = await setup(engineOf(EXECUTION_POLICIES));
      const late = await closed(store);
      const decidedAt = Date.parse(late.continuation.resumedAt);
      const until = new Date(decidedAt + 3600_000).toISOString();
      expect(late.continuation.dispatch).toEqual([
        {
          toolCallId: 'call_refund',
          name: 'refund_order',
          args: { orderId: 'A-7', amount: 120 },
          approvedUntil: until,
        },
      ]);
      expect((await store.getContinuation(late.call)).dispatch[0]?.approvedUntil).toBe(until);
      expect((await store.getPause(late.key)).asks[0]?.execution).toMatchObject({
        status: 'waiting',
        approvedUntil: until,
      });
      expect((await store.getPause(late.key)).asks[0]?.policy?.requires?.validFor).toBe('PT1H');
      // The control, within the hour: claimed.
      const early = await closed(store);
      clock.advance(3599);
      await store.claimExecution({ ...early.call, toolCallId: 'call_refund', by: AGENT });
      clock.advance(2);
      const expired = await rejection(store.claimExecution({ ...late.call, toolCallId: 'call_refund', by: AGENT }));
      expect(expired).toBeInstanceOf(ApprovalExpiredError);
      expect(expired).toMatchObject({ approvedUntil: until });
      expect((await store.getPause(late.key)).asks[0]?.execution).toMatchObject({
        status: 'refused',
        code: 'approval_expired',
      });
      expect(
        await rejection(store.claimExecution({ ...late.call, toolCallId: 'call_refund', by: AGENT })),
      ).toBeInstanceOf(ApprovalExpiredError);
    });
  });
}
