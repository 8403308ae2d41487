import { ContinuationNotFoundError, type HandbackError, NotDispatchedError } from '../errors.ts';
import {
  type ClaimExecutionInput,
  claimExecutionInput,
  type FinishExecutionInput,
  finishExecutionInput,
  parseInput,
} from '../inputs.ts';
import type { PolicyEngine } from '../policies/port.ts';
import type { BundleDefines } from '../settings.ts';
import type { Actor, ExecutionClaimed, ExecutionEnded } from '../wire.ts';
import { closedResult } from './closing.ts';
import { sha256 } from './codec.ts';
import { type CommitDeps, commit, type Step } from './commit.ts';
import { claimStep, type ExecutionIds, finishStep, judgementOf } from './executing.ts';
import { approvedUntilOf, executionViewOf } from './execution-views.ts';
import { LIBRARY_PRINCIPAL, recorded } from './identity.ts';
import { parseId } from './ids.ts';
import type { PauseReader } from './pause-reader.ts';
import type { StoredPause } from './persistence.ts';
import type { Closing, PauseRecord, RecordedExecution } from './record.ts';
import { argsHashOf } from './tally.ts';

/**
 * §19's execution claims, storage-agnostic: a dispatched call is run once, when the agent runs it, and only if it is
 * still allowed then. A claim reads the closed pause its continuation names, finds the call in the continuation's
 * `dispatch` (rebuilt and checked, as every read of a continuation is), judges it again with the policies in force and
 * its approval's `@validFor`, and records the claim — or its refusal — in one conditional write of the pause record
 * (`commit.ts`): of any number of racing claims exactly one is recorded, and every other reads it and is refused.
 * The pure steps are `executing.ts`'s.
 */

/** What the claims run on: the service's persistence, reader, clock and observer, and the deployment's policies. */
export interface ExecutionDeps extends CommitDeps {
  reader: PauseReader;
  /** The deployment's policies (§17), judging each claim again; absent: no policy applies. */
  policies?: (() => Promise<PolicyEngine>) | undefined;
}

/** The claims on one store's records. */
export class ExecutionClaims {
  readonly #deps: ExecutionDeps;

  constructor(deps: ExecutionDeps) {
    this.#deps = deps;
  }

  /**
   * Claims a dispatched call for `by` (§19): 200's body the first time (and to the same principal retrying under the
   * same `Idempotency-Key`), `AlreadyClaimedError` every later time, `NotDispatchedError` for a call its continuation
   * does not dispatch; refused — recorded, then thrown — by a forbid of the policies in force (`PolicyForbidsError`),
   * their failure (`PolicyEvaluationError`) or its approval's end (`ApprovalExpiredError`).
   */
  async claim(input: ClaimExecutionInput): Promise<ExecutionClaimed> {
    const parsed = parseInput(claimExecutionInput, input, 'execution claim');
    const { tenant, runId, continuationId, toolCallId } = parsed;
    const ids: ExecutionIds = { runId, continuationId, toolCallId };
    const actor = parsed.by ?? LIBRARY_PRINCIPAL;
    const stored = await this.#deps.reader.continuation({ tenant, runId, continuationId });
    const { call, index } = await this.#dispatched(stored, ids);
    const approvedUntil = approvedUntilOf(stored.record, index);
    const judgement = judgementOf(await this.#judge(actor, call, stored.record), await this.#shadow());
    const key = parsed.idempotencyKey === undefined ? undefined : sha256(parsed.idempotencyKey);
    const by = recorded(actor);
    const result = await this.#commit(stored, ids, async (record, nowMs): Promise<Step<ClaimRound>> => {
      const step = claimStep(record, index, ids, {
        nowMs,
        by,
        judgement,
        ...(key === undefined ? {} : { key }),
        ...(approvedUntil === undefined ? {} : { approvedUntil }),
      });
      if ('refused' in step) return { write: { before: record, after: step.after }, result: step };
      const result = { claimed: step.claimed };
      return step.after === undefined ? { result } : { write: { before: record, after: step.after }, result };
    });
    if ('refused' in result) throw result.refused;
    return {
      toolCallId,
      name: call.name,
      args: call.args,
      argsHash: argsHashOf(call.args),
      claimedAt: result.claimed.claimedAt,
      ...(approvedUntil === undefined ? {} : { approvedUntil }),
    };
  }

  /**
   * Records how a claimed execution ended, told by its claimant (§19): once; the same end again is answered the same,
   * another is `AlreadyFinishedError`; before a claim, or after a refusal, `NotClaimedError`; another principal's,
   * `ForbiddenError`.
   */
  async finish(input: FinishExecutionInput): Promise<ExecutionEnded> {
    const parsed = parseInput(finishExecutionInput, input, 'execution end');
    const { tenant, runId, continuationId, toolCallId, status, detail } = parsed;
    const ids: ExecutionIds = { runId, continuationId, toolCallId };
    const by = recorded(parsed.by ?? LIBRARY_PRINCIPAL);
    const stored = await this.#deps.reader.continuation({ tenant, runId, continuationId });
    const { index } = await this.#dispatched(stored, ids);
    const record = await this.#commit(stored, ids, async (record, nowMs): Promise<Step<PauseRecord>> => {
      const step = finishStep(record, index, ids, { nowMs, by, status, ...(detail === undefined ? {} : { detail }) });
      return step.after === undefined
        ? { result: record }
        : { write: { before: record, after: step.after }, result: step.after };
    });
    return { toolCallId, ...(executionViewOf(record, index, true) as NonNullable<ReturnType<typeof executionViewOf>>) };
  }

  /**
   * The dispatched call `ids` names in the continuation `stored` closed with, and its ask's index: the continuation
   * rebuilt from the stored transcript and checked against its hash, so what runs is what the closing committed.
   */
  async #dispatched(stored: StoredPause, ids: ExecutionIds) {
    const continuation = closedResult(stored.record, await this.#deps.reader.round(stored), true);
    const call = continuation.dispatch.find((entry) => entry.toolCallId === ids.toolCallId);
    const index = stored.record.asks.findIndex((ask) => ask.toolCallId === ids.toolCallId);
    if (call === undefined || index < 0) throw new NotDispatchedError(ids);
    return { call, index };
  }

  /** The policies in force on the call as it runs, by who runs it; undefined where none are configured. */
  async #judge(actor: Actor, call: { name: string; args: unknown }, record: PauseRecord) {
    const engine = await this.#engine();
    if (engine === undefined) return undefined;
    const principal = {
      kind: actor.kind,
      subject: actor.subject,
      ...(actor.groups === undefined ? {} : { groups: actor.groups }),
    };
    const { runId, tenant, format } = record;
    return engine.evaluate({
      principal,
      tool: call.name,
      args: call.args,
      runId,
      tenant,
      format,
      now: this.#deps.clock(),
    });
  }

  async #shadow(): Promise<boolean> {
    return (await this.#engine())?.mode === 'shadow';
  }

  /**
   * The deployment's engine, loaded as a pause loads it: a bundle built without policies (`HANDBACK_BUNDLED_POLICIES`
   * "false") has none, and a deployment without them never loads Cedar.
   */
  async #engine(): Promise<PolicyEngine | undefined> {
    if ((globalThis as BundleDefines).HANDBACK_BUNDLED_POLICIES === 'false') return undefined;
    return this.#deps.policies?.();
  }

  /**
   * The commit loop on the closed pause `stored` holds: its first round on what was read, each later one (after a lost
   * race) on the record read again — still the closing `ids` names, or the continuation is not found.
   */
  #commit<T>(
    stored: StoredPause,
    ids: ExecutionIds,
    change: (record: PauseRecord & { closing: Closing }, nowMs: number) => Promise<Step<T>>,
  ): Promise<T> {
    const { tenant, runId, seq } = stored.record;
    let first: PauseRecord | undefined = stored.record;
    const read = async () => {
      const record = first ?? (await this.#deps.persistence.read({ tenant, runId, seq }))?.record;
      first = undefined;
      if (
        record?.tenant !== tenant ||
        record.closing?.continuationId !== ids.continuationId ||
        parseId(ids.continuationId)?.seq !== seq
      ) {
        throw new ContinuationNotFoundError(ids.runId, ids.continuationId);
      }
      return record as PauseRecord & { closing: Closing };
    };
    return commit(this.#deps, read, change);
  }
}

/** A claim round's answer: the claim, or its refusal (thrown once written). */
type ClaimRound = { claimed: RecordedExecution } | { refused: HandbackError };
