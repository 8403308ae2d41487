import type { Directory } from '../directory/port.ts';
import { foldEmail } from '../emails.ts';
import type { Approvers, Person } from '../wire.ts';
import { type Ask, nextLevelAt, type PauseRecord } from './record.ts';

/**
 * The persons an escalation level reaches (§21, §20), read from the deployment's directory when the level falls due
 * (never kept: a manager changed since the pause is the one told): a `manager` level's managers, and a group's
 * members for the email channel. Without a directory a `manager` level adds no one and a group is mailed to no one.
 */

/**
 * What each `manager` level due at `nowMs` adds to its ask, read once before the sweep's step (which is pure): each
 * waiting approver's manager — an approver named by subject, email or group who has not voted — the pauser and
 * `onBehalfOf` skipped, each named by their first directory email (so the email channel mails them a link of their
 * own), else by their first subject.
 */
export async function managersDue(
  directory: Directory | undefined,
  record: PauseRecord | undefined,
  nowMs: number,
): Promise<(ask: Ask) => Approvers | undefined> {
  const found = new Map<string, Approvers>();
  if (directory === undefined || record === undefined) return () => undefined;
  const due = record.asks.filter((ask, index) => {
    const escalation = ask.escalation;
    const at = nextLevelAt(record, ask);
    return (
      record.decisions[index] === undefined &&
      at !== undefined &&
      at <= nowMs &&
      escalation?.ladder[escalation.reached.length]?.manager === true
    );
  });
  for (const ask of due) {
    const managers = await managersOf(directory, record, ask);
    if (managers !== undefined) found.set(ask.toolCallId, managers);
  }
  return (ask) => found.get(ask.toolCallId);
}

/** The managers of `ask`'s waiting approvers, as approvers; undefined when there are none. */
async function managersOf(directory: Directory, record: PauseRecord, ask: Ask): Promise<Approvers | undefined> {
  const { tenant } = record;
  const skipped = new Set(
    [record.pausedBy.person, record.pausedBy.onBehalfOf?.person].filter((id) => id !== undefined),
  );
  const index = record.asks.indexOf(ask);
  const voted = new Set(
    (record.votes?.[index] ?? [])
      .flatMap((vote) => [vote.by.person, vote.for?.person])
      .filter((id) => id !== undefined),
  );
  const approvers = new Map<string, Person>();
  const named = [
    ...(ask.approvers?.subjects ?? []).map((subject) => directory.find(tenant, { subject })),
    ...(ask.approvers?.emails ?? []).map((email) => directory.find(tenant, { email })),
  ];
  for (const person of await Promise.all(named)) if (person !== undefined) approvers.set(person.id, person);
  for (const group of ask.approvers?.groups ?? []) {
    for (const person of await directory.members(tenant, group)) approvers.set(person.id, person);
  }
  const managers = new Map<string, Person>();
  for (const approver of approvers.values()) {
    if (!approver.active || voted.has(approver.id) || skipped.has(approver.id)) continue;
    const manager = await directory.manager(tenant, approver.id);
    if (manager === undefined || !manager.active || skipped.has(manager.id)) continue;
    managers.set(manager.id, manager);
  }
  const emails: string[] = [];
  const subjects: string[] = [];
  for (const manager of managers.values()) {
    const [email] = manager.emails;
    const [subject] = manager.subjects;
    if (email !== undefined) emails.push(email);
    else if (subject !== undefined) subjects.push(subject);
  }
  const added: Approvers = {};
  if (emails.length > 0) added.emails = emails;
  if (subjects.length > 0) added.subjects = subjects;
  return Object.keys(added).length === 0 ? undefined : added;
}

/**
 * The addresses an escalation level's groups reach through the email channel: each active member's first directory
 * email, once (ASCII case folding), none already in `besides`.
 */
export async function groupEmails(
  directory: Directory | undefined,
  tenant: string,
  groups: readonly string[],
  besides: readonly string[],
): Promise<string[]> {
  if (directory === undefined) return [];
  const seen = new Set(besides.map(foldEmail));
  const out: string[] = [];
  for (const group of groups) {
    for (const member of await directory.members(tenant, group)) {
      const [email] = member.emails;
      if (!member.active || email === undefined || seen.has(foldEmail(email))) continue;
      seen.add(foldEmail(email));
      out.push(email);
    }
  }
  return out;
}
