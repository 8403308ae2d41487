import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { escalatedBetween, levelRemindersBetween } from '../checkpoints/escalation.ts';
import {
  decidedAndPending,
  expiresAtOf,
  interruptIdOf,
  type PauseRecord,
  type RecordedExecution,
} from '../checkpoints/record.ts';
import {
  type AskKind,
  type ExecutionStatus,
  isOneOf,
  LifecycleType,
  type Outcome,
  PRINCIPAL_KINDS,
  Status,
  VIAS,
} from '../vocabulary.ts';
import type { Approvers, AskPolicy, Principal } from '../wire.ts';

/**
 * Lifecycle events (§11), pure: each committed change of a pause is one event, named by what changed. The detail says
 * who, which pause, its status and its asks — never the transcript, an answer, a reason or the args a person typed
 * (nor the model's args: they may hold what the person is asked about, and an event travels further than the API).
 */

/** What a lifecycle event says. */
export interface LifecycleDetail {
  tenant: string;
  runId: string;
  interruptId: string;
  status: string;
  asks: Array<{
    toolCallId: string;
    name: string;
    kind: AskKind;
    prompt: string | null;
    /**
     * What the deployment's policies made of it (§17): the outcome, the determining ids and the set's version (§19),
     * never a reason.
     */
    policy?: EventPolicy;
    /** What they make of its current, edited arguments (§19), the same way. */
    policyNow?: EventPolicy;
  }>;
  decided: string[];
  pending: string[];
  expiresAt: string;
  /** `Pause Created` and `Pause Reminder`, when an inbox is configured: the answer link. */
  answerUrl?: string;
  /** Closings: how, and the continuation to read. */
  outcome?: Outcome;
  continuationId?: string;
  /** Who made the change (§13), when the record names them: who paused, decided, cancelled, or the sweep. */
  by?: Principal;
  /**
   * §19, `Execution Claimed` and `Execution Finished`: the dispatched call, where its execution now stands and since
   * when (a refused claim is `Execution Finished` with `refused`; its code, never its reason).
   */
  execution?: { toolCallId: string; status: ExecutionStatus; at: string; code?: string };
  // §21 escalation
  /**
   * `Pause Escalated`: the ask, the level it reached (1 for the first), the approvers that level added, and when; a
   * level's `Pause Reminder` (halfway to the next) the same, when it was sent.
   */
  toolCallId?: string;
  level?: number;
  approvers?: Approvers;
  at?: string;
}

/** A policy outcome as an event carries it: never a reason, which may quote the arguments. */
export type EventPolicy = Pick<AskPolicy, 'outcome' | 'policyIds' | 'basis' | 'shadow' | 'version'>;

/** One event: its detail-type and detail. */
export interface LifecycleEvent {
  type: LifecycleType;
  detail: LifecycleDetail;
}

/**
 * The events of a change: one, or none for a change that is none of the lifecycle's (there is none today). A pause
 * the deployment's policies decided in part at its creation (§17) also emits the `Pause Decided` of those
 * decisions; one they decided whole is created closed and emits `Pause Decided` and `Pause Resumed`, never
 * `Pause Created`: no channel is told of a pause no one needs to decide.
 */
export function lifecycleEventsOf(change: PauseChange): LifecycleEvent[] {
  const { before, after } = change;
  if (before === undefined) {
    const decided = after.decisions.some((decision) => decision !== undefined);
    const types =
      after.status !== Status.Paused
        ? [LifecycleType.Decided, typeOf({ ...after, status: Status.Paused }, after)]
        : decided
          ? [LifecycleType.Created, LifecycleType.Decided]
          : [LifecycleType.Created];
    return types.filter((type) => type !== undefined).map((type) => eventOf(type, before, after));
  }
  // §21: a level reached is the sweep's write of its own; one event per ask and level.
  const escalated = escalatedBetween(before, after);
  if (escalated.length > 0) {
    return escalated.map(({ toolCallId, level, approvers, atMs }) => {
      const at = new Date(atMs).toISOString();
      const detail: LifecycleDetail = { ...detailOf(after), toolCallId, level, approvers, at };
      return { type: LifecycleType.Escalated, detail };
    });
  }
  // §21: a level's approvers reminded halfway to the next: a `Pause Reminder` naming the ask, level and approvers.
  const reminded = levelRemindersBetween(before, after);
  if (reminded.length > 0) {
    return reminded.map(({ toolCallId, level, approvers, atMs }) => {
      const at = new Date(atMs).toISOString();
      const detail: LifecycleDetail = { ...detailOf(after), toolCallId, level, approvers, at };
      return { type: LifecycleType.Reminder, detail };
    });
  }
  const type = typeOf(before, after);
  return type === undefined ? [] : [eventOf(type, before, after)];
}

function eventOf(type: LifecycleType, before: PauseRecord | undefined, after: PauseRecord): LifecycleEvent {
  const detail = detailOf(after);
  const by = byOf(type, before, after);
  if (by !== undefined) detail.by = by;
  if (type === LifecycleType.ExecutionClaimed || type === LifecycleType.ExecutionFinished) {
    const changed = changedExecution(before, after);
    if (changed !== undefined) {
      const { toolCallId, execution } = changed;
      detail.execution = {
        toolCallId,
        status: execution.status,
        at: execution.endedAt ?? execution.claimedAt,
        ...(execution.refusal === undefined ? {} : { code: execution.refusal.code }),
      };
      const claimant = principalOf(execution.by);
      if (claimant !== undefined) detail.by = claimant;
    }
  }
  return { type, detail };
}

/** §19: the execution a change recorded (a claim, its refusal or its end), with its ask's call. */
function changedExecution(
  before: PauseRecord | undefined,
  after: PauseRecord,
): { toolCallId: string; execution: RecordedExecution } | undefined {
  const index = (after.executions ?? []).findIndex(
    (execution, at) => execution !== undefined && execution.status !== before?.executions?.[at]?.status,
  );
  const execution = after.executions?.[index];
  const ask = after.asks[index];
  return execution === undefined || ask === undefined ? undefined : { toolCallId: ask.toolCallId, execution };
}

function typeOf(before: PauseRecord | undefined, after: PauseRecord): LifecycleType | undefined {
  if (before === undefined) return LifecycleType.Created;
  if (before.status === Status.Paused && after.status !== Status.Paused) {
    switch (after.status) {
      case Status.Resumed:
        return LifecycleType.Resumed;
      case Status.Cancelled:
        return LifecycleType.Cancelled;
      case Status.Expired:
        return LifecycleType.Expired;
      default:
        return undefined;
    }
  }
  if (before.remindedAt === undefined && after.remindedAt !== undefined) return LifecycleType.Reminder;
  // §19: a dispatched call claimed, or its claim refused or its end told.
  const changed = changedExecution(before, after);
  if (changed !== undefined) {
    return changed.execution.status === 'claimed' ? LifecycleType.ExecutionClaimed : LifecycleType.ExecutionFinished;
  }
  // A decision, or a vote on an ask with a quorum (§13: each vote emits Pause Decided).
  const count = (record: PauseRecord) => record.decisions.filter((d) => d !== undefined).length + voteCount(record);
  return count(after) > count(before) ? LifecycleType.Decided : undefined;
}

function detailOf(record: PauseRecord): LifecycleDetail {
  const { decided, pending } = decidedAndPending(record);
  const detail: LifecycleDetail = {
    tenant: record.tenant,
    runId: record.runId,
    interruptId: interruptIdOf(record),
    status: record.status,
    asks: record.asks.map((ask) => {
      const shown: LifecycleDetail['asks'][number] = {
        toolCallId: ask.toolCallId,
        name: ask.name,
        kind: ask.kind,
        prompt: ask.prompt ?? null,
      };
      if (ask.policy !== undefined) shown.policy = eventPolicy(ask.policy);
      if (ask.policyNow !== undefined) shown.policyNow = eventPolicy(ask.policyNow.policy);
      return shown;
    }),
    decided,
    // Once it is closed nothing waits any more, as GET shows it.
    pending: record.status === Status.Paused ? pending : [],
    expiresAt: expiresAtOf(record),
  };
  if (record.closing !== undefined) {
    detail.outcome = record.closing.outcome;
    detail.continuationId = record.closing.continuationId;
  }
  return detail;
}

/**
 * Who made the change, from the record's newest principal field for it: `pausedBy` for a creation, the `by` of the
 * decision this change recorded for a decision, `closing.by` (else the newest decision's) for a closing. Each
 * is checked (records written before principals have none, decisions then carry no `by`); only the principal's own fields are copied, never
 * what it decided.
 */
function byOf(type: LifecycleType, before: PauseRecord | undefined, after: PauseRecord): Principal | undefined {
  const decisionsBy = (record: PauseRecord | undefined) => (record?.decisions ?? []).map((decision) => decision?.by);
  const newest = () => {
    const was = decisionsBy(before);
    const now = decisionsBy(after);
    const added = now.filter((by, i) => by !== undefined && was[i] === undefined);
    // A vote on an ask with a quorum decides nothing yet: its voter is who made the change.
    const votes = (after.votes ?? []).flatMap((list) => list ?? []).sort((a, b) => a.at.localeCompare(b.at));
    const voted = votes.length > voteCount(before) ? votes.at(-1)?.by : undefined;
    return added.at(-1) ?? voted ?? now.filter((by) => by !== undefined).at(-1);
  };
  switch (type) {
    case LifecycleType.Created:
      return principalOf(after.pausedBy);
    case LifecycleType.Decided:
      return principalOf(newest());
    case LifecycleType.Resumed:
    case LifecycleType.Cancelled:
    case LifecycleType.Expired:
      return principalOf(after.closing?.by) ?? principalOf(newest());
    default:
      return undefined;
  }
}

function eventPolicy({ outcome, policyIds, basis, shadow, version }: AskPolicy): EventPolicy {
  return {
    outcome,
    policyIds,
    ...(basis === undefined ? {} : { basis }),
    ...(shadow ? { shadow } : {}),
    ...(version === undefined ? {} : { version }),
  };
}

/** The votes recorded on a record's asks with a quorum (§13). */
function voteCount(record: PauseRecord | undefined): number {
  return (record?.votes ?? []).reduce((sum, votes) => sum + (votes?.length ?? 0), 0);
}

/** A recorded principal's own fields, or undefined for anything that is not one. */
function principalOf(value: unknown): Principal | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { kind, subject, email, name, via, policyVersion } = value as Record<string, unknown>;
  if (!isOneOf(PRINCIPAL_KINDS, kind) || typeof subject !== 'string' || !isOneOf(VIAS, via)) return undefined;
  return {
    kind,
    subject,
    ...(typeof email === 'string' ? { email } : {}),
    ...(typeof name === 'string' ? { name } : {}),
    via,
    // A policy's decision names the set that decided (§19).
    ...(typeof policyVersion === 'string' ? { policyVersion } : {}),
  };
}

/** Whether an event's detail carries an answer link: the events a person acts on. */
export function wantsAnswerLink(event: LifecycleEvent): boolean {
  return event.type === LifecycleType.Created || event.type === LifecycleType.Reminder;
}
