import {
  type AskKind,
  type DecisionKind,
  type ExecutionStatus,
  type FormatName,
  type OnExpiry,
  type Outcome,
  PAUSE_STATUSES,
  type PauseStatus,
  type PolicyOutcome,
  Status,
} from '../vocabulary.ts';
import type {
  Approvers,
  AskPolicy,
  DecisionBody,
  JsonSchema,
  LadderLevel,
  NotifyEntry,
  PolicyRequirements,
  Principal,
  TurnContext,
} from '../wire.ts';
import type { TranscriptHeader } from './codec.ts';
import { formatId } from './ids.ts';

/**
 * A pause as the rules see it, whatever stores it: the record the service reads, changes (as a new record, never in
 * place) and hands back to the persistence to write. Pure: no I/O, no clock (time comes in as an argument).
 */

/** One ask as recorded at pause time: the reserved call it is about, and what a person may do with it. */
export interface Ask {
  toolCallId: string;
  /** The call's tool name. */
  name: string;
  /** The model's arguments; absent when `argsOmitted` (too large for the pause record: read the transcript). */
  args?: unknown;
  argsOmitted?: true;
  /** The hash of the model's arguments (§16, `argsHashOf`), kept when `args` are left out; absent on older records. */
  argsHash?: string;
  kind: AskKind;
  prompt?: string;
  /** `answer` asks only. */
  answerSchema?: JsonSchema;
  /** `approval` asks only. */
  argsSchema?: JsonSchema;
  /** `approval` asks only; default true. */
  editable?: boolean;
  /** Who may decide it (§13); absent = any principal of the tenant that may decide at all. */
  approvers?: Approvers;
  /** `approval` asks only: distinct approvals of the same arguments it needs (§13); absent = 1. */
  approvals?: number;
  /** Four eyes on this ask alone (a policy's `@fourEyes`, §17): the pauser, whoever they come as, may not decide it. */
  fourEyes?: true;
  /** What the deployment's policies made of it at pause time (§17); absent without policies. */
  policy?: AskPolicy;
  // §19
  /** The agent's own approvers and approvals, where the policies changed them at pause time: an edit joins them again. */
  agentAsked?: { approvers?: Approvers; approvals?: number };
  /** Its approvers, approvals and four eyes at pause time, once an edit changed them: no edit makes them weaker. */
  atPause?: PolicyRequirements;
  /** What the policies made of the current, edited arguments (whose hash it keeps); absent while they are the model's. */
  policyNow?: { argsHash: string; policy: AskPolicy };
  /** Its escalation ladder and the levels reached (§21); absent when it is on none. */
  escalation?: AskEscalation;
}

/** A decision as recorded on the pause: what was decided, its hash (to tell a replay from a change), when, by whom. */
export interface RecordedDecision {
  body: DecisionBody;
  /** sha256 of the body's canonical JSON. */
  hash: string;
  decidedAt: string;
  /** Who decided it (§13); absent on decisions recorded before principals were. */
  by?: Principal;
  /** The person a delegate decided it for (§20), as the rules matched them. */
  for?: Principal;
  /** An edit's: what the policies made of its arguments (§19), enforced or (shadow mode) only recorded. */
  policy?: AskPolicy;
}

/** One vote on an `approval` ask with a quorum (§13), in the order recorded. */
export interface RecordedVote {
  body: Exclude<DecisionBody, { answer: unknown }>;
  /** sha256 of the body's canonical JSON: the same vote again is a replay. */
  hash: string;
  /**
   * The arguments it is for, hashed (`argsHashOf`): an approve's (the ask's current ones when it was cast) or an
   * edit's; a reject's is empty. Part three's approves of the model's own arguments hold `model` instead.
   */
  argsHash: string;
  by: Principal;
  /** The person a delegate voted for (§20): their vote, cast by `by`. */
  for?: Principal;
  at: string;
  /** An edit's: what the policies made of its arguments (§19), enforced or (shadow mode) only recorded. */
  policy?: AskPolicy;
}

/** What closing a pause adds: the continuation's id, when, how, and the hash its rebuilds must match. */
export interface Closing {
  continuationId: string;
  closedAt: string;
  outcome: Outcome;
  /** The cancel reason (cancelled) — the expiry's reason is derived from `expiresAtMs`. */
  reason?: string;
  /** sha256 (base64url) of the continuation's messages from the paused round on. */
  continuationSha256: string;
  /** Who closed it: the canceller, the sweep, or the last decider (§13); absent on closings before principals. */
  by?: Principal;
}

// §19
/** The codes a refused execution claim is answered with. */
export type ExecutionRefusalCode = 'policy_forbids' | 'policy_error' | 'approval_expired';

/**
 * One dispatched call's execution, as recorded on its closed pause (§19): its claim (the one conditional write that
 * lets it run), how its claimant said it ended, or the claim's refusal.
 */
export interface RecordedExecution {
  status: Exclude<ExecutionStatus, 'waiting'>;
  /** When it was claimed, or its claim refused. */
  claimedAt: string;
  /** Who claimed it (or whose claim was refused). */
  by: Principal;
  /** sha256 of the claim's `Idempotency-Key`: a retry of the same claim by the same principal is answered the same. */
  key?: string;
  /** Succeeded or failed: when its claimant said so, and what it said. */
  endedAt?: string;
  detail?: string;
  /** Refused: the code and the words the claim was answered with. */
  refusal?: { code: ExecutionRefusalCode; reason: string; policyIds?: string[]; approvedUntil?: string };
  /** Shadow mode: what the policies in force would have done with the claim; nothing was refused. */
  shadow?: { outcome: PolicyOutcome; policyIds: string[] };
}

/** One pause, as every backend stores it. */
export interface PauseRecord {
  tenant: string;
  runId: string;
  /** The pause's number in its run: one open pause per run, a new one takes the next number. */
  seq: number;
  /** The random part of the interruptId; random per write attempt. */
  token: string;
  /**
   * The middle of the interruptId: the persistence's read hint for this record's transcript
   * (`CheckpointPersistence.readHint`), opaque to the rules, which only compare it with an id's.
   */
  readHint: string;
  format: FormatName;
  asks: Ask[];
  /** Aligned with `asks`: the recorded decision of each, or undefined while it waits. */
  decisions: Array<RecordedDecision | undefined>;
  /** Aligned with `asks`, for asks with a quorum: the votes so far (§13). Absent when no ask has any. */
  votes?: Array<RecordedVote[] | undefined>;
  /** Who paused it (§13); the library's principal on pauses recorded before principals were. */
  pausedBy: Principal;
  /** The principal that paused it may not decide it (§13). */
  fourEyes?: true;
  metadata?: Record<string, unknown>;
  taskToken?: string;
  /** A Lambda durable function's callback id, completed when the pause closes. */
  callbackId?: string;
  /** The turn's context for the person deciding (the last user text, the assistant's text in the round). */
  context?: TurnContext;
  /** Whom the channels tell (§14); absent: the deployment's defaults. */
  notify?: NotifyEntry[];
  /** The W3C `traceparent` the pause joins (§21), carried back on its continuation. */
  traceparent?: string;
  createdAt: string;
  expiresAtMs: number;
  onExpiry: OnExpiry;
  /** When a `Pause Reminder` is due (`expiresAt − remindBeforeSeconds`). */
  remindAtMs?: number;
  remindedAt?: string;
  /** The `Idempotency-Key` of the request that made it, and the hash of that request's body. */
  idempotency?: { key: string; hash: string };
  /** A `Status`, or a status a newer version of Handback wrote (read, shown, never acted on). */
  status: string;
  /** Incremented by every write: each change is conditional on the revision that was read. */
  rev: number;
  /**
   * When the sweep must next look at this pause: a reminder or the expiry while it is open; the hand-off of a closing
   * the sweep made, until it is acknowledged (`handoffDue`); else undefined.
   */
  dueAtMs?: number;
  /** A closing the sweep made whose hand-off has not been acknowledged yet: the sweep delivers it again (§6). */
  handoffDue?: true;
  /** The stored transcript's header (its bytes are written and read beside the record, whole). */
  transcript: TranscriptHeader;
  closing?: Closing;
  /** §19: aligned with `asks`, for the dispatched calls of a closed pause: each one's execution once claimed. */
  executions?: Array<RecordedExecution | undefined>;
}

// §21 escalation (reaching a level is escalation.ts's)

/** One level an ask reached: when, and whom it added. */
export interface ReachedLevel {
  at: string;
  /** The approvers this level added (a `manager` level's resolved managers, once there is a directory). */
  added?: Approvers;
  /** When the sweep reminded them, halfway to the next level (or to `expiresAt` after the last). */
  remindedAt?: string;
}

/** An ask's escalation ladder and the levels it reached so far, in order. */
export interface AskEscalation {
  ladder: LadderLevel[];
  reached: ReachedLevel[];
}

/** When `ask`'s next level is due, or undefined: none left. */
export function nextLevelAt(record: Pick<PauseRecord, 'createdAt'>, ask: Ask): number | undefined {
  const escalation = ask.escalation;
  const level = escalation?.ladder[escalation.reached.length];
  return level === undefined ? undefined : Date.parse(record.createdAt) + level.afterSeconds * 1000;
}

/**
 * When the approvers `ask`'s last level reached added are due their reminder (§21): halfway from that level's time to
 * the next level's (after the last, to `expiresAt`); undefined when it was sent, or the level added no one.
 */
export function levelReminderAt(record: Pick<PauseRecord, 'createdAt' | 'expiresAtMs'>, ask: Ask): number | undefined {
  const escalation = ask.escalation;
  const count = escalation?.reached.length ?? 0;
  const reached = escalation?.reached[count - 1];
  const level = escalation?.ladder[count - 1];
  if (reached === undefined || level === undefined || reached.added === undefined || reached.remindedAt !== undefined)
    return undefined;
  const start = Date.parse(record.createdAt) + level.afterSeconds * 1000;
  const next = escalation?.ladder[count];
  const end = next === undefined ? record.expiresAtMs : Date.parse(record.createdAt) + next.afterSeconds * 1000;
  return start + Math.floor((end - start) / 2);
}

/** When the sweep must next escalate (or remind a level's approvers of) an ask of `record` that still waits. */
export function nextEscalationAt(
  record: Pick<PauseRecord, 'asks' | 'decisions' | 'createdAt'> & Partial<Pick<PauseRecord, 'expiresAtMs'>>,
): number | undefined {
  let next: number | undefined;
  const { expiresAtMs } = record;
  record.asks.forEach((ask, index) => {
    if (record.decisions[index] !== undefined) return;
    const level = nextLevelAt(record, ask);
    const reminder = expiresAtMs === undefined ? undefined : levelReminderAt({ ...record, expiresAtMs }, ask);
    for (const at of [level, reminder]) if (at !== undefined && (next === undefined || at < next)) next = at;
  });
  return next;
}

/** Names one pause of one run of one tenant. */
export interface RecordKey {
  tenant: string;
  runId: string;
  seq: number;
}

/** The public id of a record. */
export function interruptIdOf(record: Pick<PauseRecord, 'seq' | 'token' | 'readHint'>): string {
  return formatId({ seq: record.seq, hint: record.readHint, token: record.token });
}

/** A continuation id of `record`: its number and read hint (the continuation is read from its transcript), `token`. */
export function continuationIdOf(record: Pick<PauseRecord, 'seq' | 'readHint'>, token: string): string {
  return formatId({ seq: record.seq, hint: record.readHint, token });
}

/** The ISO instant of `expiresAtMs`. */
export function expiresAtOf(record: Pick<PauseRecord, 'expiresAtMs'>): string {
  return new Date(record.expiresAtMs).toISOString();
}

/** Whether `status` is one this version knows. */
export function isKnownStatus(status: string): status is PauseStatus {
  return (PAUSE_STATUSES as readonly string[]).includes(status);
}

/**
 * A record's status at `now`: a stored closing stays as it is; an open pause past `expiresAt` is `expired` even
 * before the sweep closes it (checked on every read, whatever has or has not run).
 */
export function statusAt(record: Pick<PauseRecord, 'status' | 'expiresAtMs'>, now: number): string {
  if (record.status === Status.Paused && now >= record.expiresAtMs) return Status.Expired;
  return record.status;
}

/** Whether the pause is open at `now`: it still takes decisions and blocks a new pause of its run. */
export function isOpenAt(record: Pick<PauseRecord, 'status' | 'expiresAtMs'>, now: number): boolean {
  return statusAt(record, now) === Status.Paused;
}

/**
 * The next time the sweep must look at an open pause: its reminder while unsent, or the next escalation level of an
 * ask that waits (§21), whichever is first; else its expiry.
 */
export function nextDueAt(
  record: Pick<PauseRecord, 'remindAtMs' | 'remindedAt' | 'expiresAtMs'> &
    Partial<Pick<PauseRecord, 'asks' | 'decisions' | 'createdAt'>>,
): number {
  const reminder =
    record.remindAtMs !== undefined && record.remindedAt === undefined
      ? Math.min(record.remindAtMs, record.expiresAtMs)
      : record.expiresAtMs;
  const { asks, decisions, createdAt } = record;
  const level =
    asks === undefined || decisions === undefined || createdAt === undefined
      ? undefined
      : nextEscalationAt({ asks, decisions, createdAt, expiresAtMs: record.expiresAtMs });
  return level === undefined ? reminder : Math.min(reminder, level);
}

/** The ids of the asks decided and still waiting, in ask order. */
export function decidedAndPending(record: Pick<PauseRecord, 'asks' | 'decisions'>): {
  decided: string[];
  pending: string[];
} {
  const decided: string[] = [];
  const pending: string[] = [];
  record.asks.forEach((ask, index) => {
    (record.decisions[index] === undefined ? pending : decided).push(ask.toolCallId);
  });
  return { decided, pending };
}

/** The reason an expiry closing writes into each undecided ask's rejection (§10). */
export function expiryReason(record: Pick<PauseRecord, 'expiresAtMs'>): string {
  return `No one decided before ${expiresAtOf(record)}`;
}

/** Whether a recorded decision of each kind stands when its pause is cancelled: nothing runs after a cancel (§10). */
const STANDS_ON_CANCEL: Record<DecisionKind, boolean> = { approve: false, edit: false, reject: true };

/**
 * The decision each ask gets in a continuation (§9, §10), in ask order:
 * - `resumed`: every ask's recorded decision;
 * - `expired`: recorded decisions stand; every undecided ask is rejected with the expiry reason;
 * - `cancelled`: recorded answers and rejections stand; approvals and edits (nothing runs after a cancel) and every
 *   undecided ask are rejected with the cancel reason.
 */
export function effectiveDecisions(
  record: Pick<PauseRecord, 'asks' | 'decisions' | 'expiresAtMs'>,
  outcome: Outcome,
  reason?: string,
): Array<{ toolCallId: string } & DecisionBody> {
  return record.asks.map((ask, index) => {
    const recorded = record.decisions[index]?.body;
    const rejected = (why: string | undefined) =>
      why === undefined ? { decision: 'reject' as const } : { decision: 'reject' as const, reason: why };
    let body: DecisionBody;
    if (outcome === 'cancelled') {
      body =
        recorded !== undefined && ('answer' in recorded || STANDS_ON_CANCEL[recorded.decision])
          ? recorded
          : rejected(reason);
    } else if (recorded !== undefined) {
      body = recorded;
    } else {
      body = rejected(outcome === 'expired' ? expiryReason(record) : reason);
    }
    return { toolCallId: ask.toolCallId, ...body };
  });
}
