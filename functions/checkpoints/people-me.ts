import type { Directory, DirectoryWriter } from '../directory/port.ts';
import { BadRequestError, ForbiddenError } from '../errors.ts';
import type { DelegationBody } from '../inputs.ts';
import type { Actor, Approvers, Delegation, Person, PersonView } from '../wire.ts';
import type { PauseView } from './checkpoint-store.ts';
import { holds, resolveActor } from './people.ts';
import { matchesApprovers } from './who-decides.ts';

/**
 * A person's own page of the directory (§20): `GET /people/me` and their own delegation (`PUT` and
 * `DELETE /people/me/delegation`), as use cases beside the checkpoint service. The caller is resolved exactly as the
 * store resolves a decision's principal (`resolveActor`), so the person a page shows is the one whose votes count; a
 * delegation is checked against the directory as it is now and written through the port's `setDelegation` alone.
 */

/** The directory a deployment's people use cases read, and its writer when its source keeps a person's own writes. */
export interface PeopleDeps {
  directory: Directory;
  /**
   * Where a person's own delegation is written: absent where the directory cannot keep it (a file bundled with every
   * function on AWS, read by each instance on its own); `whyReadOnly` then says so to the caller.
   */
  writer?: Pick<DirectoryWriter, 'setDelegation'>;
  /** Why a `PUT` or `DELETE` of a delegation is refused here, when there is no writer. */
  whyReadOnly?: string;
}

/** A person principal and the directory's person it is, or undefined when the directory knows no one for it. */
async function me(people: PeopleDeps, tenant: string, by: Actor, nowMs: number): Promise<Person | undefined> {
  const resolved = await resolveActor(people.directory, tenant, by, nowMs);
  const id = resolved.directory?.person?.id;
  return id === undefined ? undefined : people.directory.get(tenant, id);
}

/** The caller's person as `GET /people/me` shows them, or undefined when the directory knows no one for them. */
export async function getMe(
  people: PeopleDeps,
  tenant: string,
  by: Actor,
  nowMs: number,
): Promise<PersonView | undefined> {
  const person = await me(people, tenant, by, nowMs);
  return person === undefined ? undefined : viewOf(people.directory, person, nowMs);
}

/**
 * Sets the caller's own delegation (§20), checked against the directory now — the caller an active person, `to` an
 * active person of their tenant other than themselves (by id, else by an email of theirs), `until` still ahead — and
 * answers their person as changed; undefined when the directory knows no one for the caller. A refusal is a 4xx that
 * changes nothing.
 */
export async function setMyDelegation(
  people: PeopleDeps & { writer: Pick<DirectoryWriter, 'setDelegation'> },
  tenant: string,
  by: Actor,
  body: DelegationBody,
  nowMs: number,
): Promise<PersonView | undefined> {
  const person = await mine(people, tenant, by, nowMs, 'set');
  if (person === undefined) return undefined;
  const refuse = (path: string, message: string): never => {
    throw new BadRequestError(`The delegation was not set: ${path.slice(1)} ${message}.`, [{ path, message }]);
  };
  if (Date.parse(body.until) <= nowMs) refuse('/until', `must be later than now (${new Date(nowMs).toISOString()})`);
  const delegate =
    (await people.directory.get(tenant, body.to)) ?? (await people.directory.find(tenant, { email: body.to }));
  if (delegate === undefined) refuse('/to', `names ${JSON.stringify(body.to)}, no person of your tenant`);
  const to = delegate as Person;
  if (to.id === person.id) refuse('/to', 'names you: a delegation hands your approvals to someone else');
  if (!to.active) refuse('/to', `names ${to.id}, who is not active`);
  const delegation: Delegation = {
    to: to.id,
    until: body.until,
    ...(body.from === undefined ? {} : { from: body.from }),
    ...(body.reason === undefined ? {} : { reason: body.reason }),
  };
  return written(people, tenant, await people.writer.setDelegation(tenant, person.id, delegation), nowMs);
}

/** Ends the caller's own delegation (§20), whether or not there is one; answers their person as changed. */
export async function endMyDelegation(
  people: PeopleDeps & { writer: Pick<DirectoryWriter, 'setDelegation'> },
  tenant: string,
  by: Actor,
  nowMs: number,
): Promise<PersonView | undefined> {
  const person = await mine(people, tenant, by, nowMs, 'end');
  if (person === undefined) return undefined;
  if (person.delegation === undefined) return viewOf(people.directory, person, nowMs);
  return written(people, tenant, await people.writer.setDelegation(tenant, person.id, undefined), nowMs);
}

/** The caller's person, when it may change its own delegation: a person principal the directory says is active. */
async function mine(
  people: PeopleDeps,
  tenant: string,
  by: Actor,
  nowMs: number,
  what: 'set' | 'end',
): Promise<Person | undefined> {
  if (by.kind !== 'person') {
    throw new ForbiddenError(
      `Only a person ${what}s their own delegation (§20); this token is ${by.kind === 'agent' ? "an agent's" : `a ${by.kind}'s`}.`,
    );
  }
  const person = await me(people, tenant, by, nowMs);
  if (person !== undefined && !person.active) {
    throw new ForbiddenError(`The directory says ${person.id} is not active: they hand no approvals to anyone.`);
  }
  return person;
}

/** The answer of a write: the person as changed, or undefined when they were removed meanwhile. */
async function written(
  people: PeopleDeps,
  _tenant: string,
  answer: Person | 'missing',
  nowMs: number,
): Promise<PersonView | undefined> {
  return answer === 'missing' ? undefined : viewOf(people.directory, answer, nowMs);
}

/**
 * A person as shown: their delegation with its delegate's name and whether it is in force now, and who has handed
 * their approvals to them now (an active person's delegation in force).
 */
async function viewOf(directory: Directory, person: Person, nowMs: number): Promise<PersonView> {
  const view: PersonView = { id: person.id, name: person.name, emails: person.emails, groups: person.groups };
  if (person.manager !== undefined) view.manager = person.manager;
  const delegation = person.delegation;
  if (delegation !== undefined) {
    const delegate = await directory.get(person.tenant, delegation.to);
    view.delegation = {
      to: delegation.to,
      ...(delegate === undefined ? {} : { toName: delegate.name }),
      ...(delegation.from === undefined ? {} : { from: delegation.from }),
      until: delegation.until,
      ...(delegation.reason === undefined ? {} : { reason: delegation.reason }),
      holds: holds(delegation, nowMs),
    };
  }
  const handed = (await directory.delegations(person.tenant)).filter(
    (delegator) => delegator.active && delegator.delegation?.to === person.id && holds(delegator.delegation, nowMs),
  );
  if (handed.length > 0) {
    view.delegators = handed.map(({ id, name, delegation }) => ({ id, name, until: (delegation as Delegation).until }));
  }
  return view;
}

/** A delegate to tell of a pause (§20), and the delegator whose notice they get. */
export interface DelegateNotice {
  delegate: Person;
  delegator: Person;
}

/**
 * The delegates a channel tells of a pause as it tells their delegators (§20): for each active person whose delegation
 * holds now, whom `told` says the channel tells, and whom the approvers of an ask still waiting include — by subject,
 * email or a group the directory lists — their delegate, once, when active and neither the pauser nor the person an
 * agent paused for. No chains: a delegate's own delegation is not followed.
 */
export async function delegatesOf(
  directory: Directory,
  tenant: string,
  view: Pick<PauseView, 'asks' | 'pending' | 'pausedBy'>,
  told: (delegator: Person) => boolean,
  nowMs: number,
): Promise<DelegateNotice[]> {
  const waiting = view.asks.filter((ask) => ask.approvers !== undefined && view.pending.includes(ask.toolCallId));
  if (waiting.length === 0) return [];
  const skipped = new Set<string | undefined>([view.pausedBy?.person, view.pausedBy?.onBehalfOf?.person]);
  const notices: DelegateNotice[] = [];
  for (const delegator of await directory.delegations(tenant)) {
    const delegation = delegator.delegation;
    if (!delegator.active || delegation === undefined || !holds(delegation, nowMs) || !told(delegator)) continue;
    const asDelegator: Actor = {
      kind: 'person',
      subject: delegator.subjects[0] ?? `person:${delegator.id}`,
      via: 'api',
      person: delegator.id,
      groups: delegator.groups,
      directory: { person: delegator, delegators: [] },
    };
    if (!waiting.some((ask) => matchesApprovers(ask.approvers as Approvers, asDelegator))) continue;
    if (skipped.has(delegation.to) || notices.some((notice) => notice.delegate.id === delegation.to)) continue;
    const delegate = await directory.get(tenant, delegation.to);
    if (delegate?.active === true) notices.push({ delegate, delegator });
  }
  return notices;
}
