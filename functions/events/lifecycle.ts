import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { decidedAndPending, expiresAtOf, interruptIdOf, type PauseRecord } from '../checkpoints/record.ts';
import { type AskKind, LifecycleType, type Outcome, Status } from '../vocabulary.ts';

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
  asks: Array<{ toolCallId: string; name: string; kind: AskKind; prompt: string | null }>;
  decided: string[];
  pending: string[];
  expiresAt: string;
  /** `Pause Created` and `Pause Reminder`, when an inbox is configured: the answer link. */
  answerUrl?: string;
  /** Closings: how, and the continuation to read. */
  outcome?: Outcome;
  continuationId?: string;
}

/** One event: its detail-type and detail. */
export interface LifecycleEvent {
  type: LifecycleType;
  detail: LifecycleDetail;
}

/** The event of a change, or undefined for a change that is none of the lifecycle's (there is none today). */
export function lifecycleEventOf(change: PauseChange): LifecycleEvent | undefined {
  const { before, after } = change;
  const type = typeOf(before, after);
  return type === undefined ? undefined : { type, detail: detailOf(after) };
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
  // A decision, or a vote on an ask with a quorum (§13: each vote emits Pause Decided).
  const count = (record: PauseRecord) =>
    record.decisions.filter((d) => d !== undefined).length +
    (record.votes ?? []).reduce((sum, votes) => sum + (votes?.length ?? 0), 0);
  return count(after) > count(before) ? LifecycleType.Decided : undefined;
}

function detailOf(record: PauseRecord): LifecycleDetail {
  const { decided, pending } = decidedAndPending(record);
  const detail: LifecycleDetail = {
    tenant: record.tenant,
    runId: record.runId,
    interruptId: interruptIdOf(record),
    status: record.status,
    asks: record.asks.map((ask) => ({
      toolCallId: ask.toolCallId,
      name: ask.name,
      kind: ask.kind,
      prompt: ask.prompt ?? null,
    })),
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

/** Whether an event's detail carries an answer link: the events a person acts on. */
export function wantsAnswerLink(event: LifecycleEvent): boolean {
  return event.type === LifecycleType.Created || event.type === LifecycleType.Reminder;
}
