import type { LadderLevel } from '../policies/port.ts';
import type { Approvers, EscalationView } from '../wire.ts';
import {
  type Ask,
  type AskEscalation,
  levelReminderAt,
  nextLevelAt,
  type PauseRecord,
  type ReachedLevel,
} from './record.ts';

/**
 * Escalation ladders on the record (§21), pure: a ladder is recorded on each waiting ask at its pause (the policy's
 * `@escalate`, else the deployment's default), cut at `expiresAt`; the sweep reaches its levels one write at a time,
 * each level ADDING its approvers to the ask's (those before keep their vote; an ask anyone of the tenant may decide
 * stays so). Four eyes and quorum are the ask's own rules and hold across levels untouched.
 */

/** One level reached by one ask in a change: what `Pause Escalated` says. */
export interface Escalated {
  toolCallId: string;
  /** 1 for the ladder's first level. */
  level: number;
  approvers: Approvers;
  atMs: number;
}

/**
 * The ladder each waiting ask gets: its own (a policy's `@escalate`, already on it), else `fallback`; levels at or after
 * `expiresAt` are left out (a ladder never extends a pause), and an ask decided at its pause gets none.
 */
export function withLadders(record: PauseRecord, fallback: readonly LadderLevel[] | undefined): PauseRecord {
  const lifetime = (record.expiresAtMs - Date.parse(record.createdAt)) / 1000;
  let changed = false;
  const asks = record.asks.map((ask, index) => {
    const ladder = (ask.escalation?.ladder ?? fallback ?? []).filter((level) => level.afterSeconds < lifetime);
    if (record.decisions[index] !== undefined || ladder.length === 0) {
      if (ask.escalation === undefined) return ask;
      changed = true;
      const { escalation: _, ...rest } = ask;
      return rest;
    }
    changed = true;
    return { ...ask, escalation: { ladder, reached: [] } };
  });
  return changed ? { ...record, asks } : record;
}

/**
 * `record` with the next level of each waiting ask whose level is due at `nowMs` reached, and what was reached; or
 * undefined when none is due. One level per ask per write: a sweep that fell behind reaches the next one on its next
 * look (the record is due again at once), so each level is its own write and its own event. `managers` are the
 * approvers a `manager` level adds, resolved by the caller from the directory of persons; none without one.
 */
export function escalate(
  record: PauseRecord,
  nowMs: number,
  managers?: (ask: Ask) => Approvers | undefined,
): { after: PauseRecord; escalated: Escalated[] } | undefined {
  if (nowMs >= record.expiresAtMs) return undefined;
  const escalated: Escalated[] = [];
  const asks = record.asks.map((ask, index) => {
    const at = nextLevelAt(record, ask);
    if (record.decisions[index] !== undefined || at === undefined || at > nowMs) return ask;
    const escalation = ask.escalation as AskEscalation;
    const level = escalation.ladder[escalation.reached.length] as LadderLevel;
    const added = union(level.approvers, level.manager === true ? managers?.(ask) : undefined);
    const reached: ReachedLevel = { at: new Date(nowMs).toISOString() };
    if (added !== undefined) reached.added = added;
    const next: Ask = { ...ask, escalation: { ladder: escalation.ladder, reached: [...escalation.reached, reached] } };
    // An ask anyone of the tenant may decide stays so: adding names to "anyone" would narrow it.
    if (ask.approvers !== undefined && added !== undefined) next.approvers = union(ask.approvers, added) as Approvers;
    escalated.push({
      toolCallId: ask.toolCallId,
      level: escalation.reached.length + 1,
      approvers: added ?? {},
      atMs: nowMs,
    });
    return next;
  });
  if (escalated.length === 0) return undefined;
  return { after: { ...record, asks, rev: record.rev + 1 }, escalated };
}

/**
 * `record` with the reminder of each waiting ask's last level marked sent where it is due at `nowMs` (§21: halfway to
 * the next level, or to `expiresAt`), and whom each reminds (the approvers that level added); undefined when none is
 * due. All in one write: its event is the one `Pause Reminder` of each ask and level.
 */
export function remindLevels(
  record: PauseRecord,
  nowMs: number,
): { after: PauseRecord; reminded: Escalated[] } | undefined {
  if (nowMs >= record.expiresAtMs) return undefined;
  const reminded: Escalated[] = [];
  const asks = record.asks.map((ask, index) => {
    const at = levelReminderAt(record, ask);
    if (record.decisions[index] !== undefined || at === undefined || at > nowMs) return ask;
    const escalation = ask.escalation as AskEscalation;
    const last = escalation.reached.length - 1;
    const level = escalation.reached[last] as ReachedLevel;
    const reached = [...escalation.reached.slice(0, last), { ...level, remindedAt: new Date(nowMs).toISOString() }];
    reminded.push({ toolCallId: ask.toolCallId, level: last + 1, approvers: level.added ?? {}, atMs: nowMs });
    return { ...ask, escalation: { ladder: escalation.ladder, reached } };
  });
  if (reminded.length === 0) return undefined;
  return { after: { ...record, asks, rev: record.rev + 1 }, reminded };
}

/** The levels whose approvers were reminded between `before` and `after` (a committed change): one `Pause Reminder` each. */
export function levelRemindersBetween(before: PauseRecord | undefined, after: PauseRecord): Escalated[] {
  if (before === undefined) return [];
  const out: Escalated[] = [];
  after.asks.forEach((ask, index) => {
    (ask.escalation?.reached ?? []).forEach((reached, at) => {
      if (reached.remindedAt === undefined) return;
      if (before.asks[index]?.escalation?.reached[at]?.remindedAt !== undefined) return;
      const atMs = Date.parse(reached.remindedAt);
      out.push({ toolCallId: ask.toolCallId, level: at + 1, approvers: reached.added ?? {}, atMs });
    });
  });
  return out;
}

/** The levels reached between `before` and `after` (a committed change): one `Pause Escalated` each. */
export function escalatedBetween(before: PauseRecord | undefined, after: PauseRecord): Escalated[] {
  if (before === undefined) return [];
  const out: Escalated[] = [];
  after.asks.forEach((ask, index) => {
    const was = before.asks[index]?.escalation?.reached.length ?? 0;
    (ask.escalation?.reached ?? []).slice(was).forEach((reached, offset) => {
      out.push({
        toolCallId: ask.toolCallId,
        level: was + offset + 1,
        approvers: reached.added ?? {},
        atMs: Date.parse(reached.at),
      });
    });
  });
  return out;
}

/** The view's `escalation` of an ask on a ladder: the level reached, and the next one while it is still to come. */
export function escalationView(record: Pick<PauseRecord, 'createdAt'>, ask: Ask): EscalationView | undefined {
  const escalation = ask.escalation;
  if (escalation === undefined) return undefined;
  const view: EscalationView = { level: escalation.reached.length };
  const last = escalation.reached.at(-1);
  if (last !== undefined) view.last = { at: last.at, ...(last.added === undefined ? {} : { approvers: last.added }) };
  const level = escalation.ladder[escalation.reached.length];
  const at = nextLevelAt(record, ask);
  if (level !== undefined && at !== undefined) {
    const next: NonNullable<EscalationView['next']> = { at: new Date(at).toISOString() };
    if (level.approvers !== undefined) next.approvers = level.approvers;
    if (level.manager === true) next.manager = true;
    view.next = next;
  }
  return view;
}

/** The traces' reader (§21, `EscalationsOf`): the levels an ask reached, for its span's events. */
export function escalationsOf(
  record: PauseRecord,
  askIndex: number,
): Array<{ level: number; atMs: number; approvers: number }> {
  return (record.asks[askIndex]?.escalation?.reached ?? []).map((reached, index) => ({
    level: index + 1,
    atMs: Date.parse(reached.at),
    approvers: count(reached.added),
  }));
}

function count(approvers: Approvers | undefined): number {
  return (approvers?.subjects?.length ?? 0) + (approvers?.emails?.length ?? 0) + (approvers?.groups?.length ?? 0);
}

const KEYS = ['subjects', 'emails', 'groups'] as const;

/** Both lists, each entry once (emails compare case-insensitively); undefined when both are empty. */
function union(a: Approvers | undefined, b: Approvers | undefined): Approvers | undefined {
  const out: Approvers = {};
  for (const key of KEYS) {
    const list = [...(a?.[key] ?? [])];
    for (const entry of b?.[key] ?? []) {
      const same = (have: string) => (key === 'emails' ? have.toLowerCase() === entry.toLowerCase() : have === entry);
      if (!list.some(same)) list.push(entry);
    }
    if (list.length > 0) out[key] = list;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
