import type { Directory, PersonKey } from '../directory/port.ts';
import type { Actor, Delegation, KnownPerson, Person, Principal } from '../wire.ts';
import { isUnattributedLink, recorded } from './identity.ts';

/**
 * Who a principal is in the deployment's directory (§20): each request's principal resolved to at most one person —
 * by its issuer subject, its Slack user, or a verified email (ASCII case folding) — once, at the edge of the use case,
 * read from the directory on that request and never kept past it, so a person deactivated decides nothing from the
 * moment the change is acknowledged. What the rules then make of it (`person:<id>` as the identity key, the person's
 * groups for approvers and policies, `unknown_person`) is `identity.ts`'s and `who-decides.ts`'s.
 */

/** The directory's answer for `actor` of `tenant` at `nowMs`: the actor with its person (or none), and delegators. */
export async function resolveActor(
  directory: Directory | undefined,
  tenant: string,
  actor: Actor,
  nowMs: number,
): Promise<Actor> {
  const { directory: _, person: __, ...plain } = actor;
  // Only the store says who a principal is: whatever a caller put in `person` is dropped.
  if (directory === undefined) return plain;
  const resolved: Actor = { ...plain };
  if (actor.onBehalfOf !== undefined) {
    const { person: _given, ...onBehalfOf } = actor.onBehalfOf;
    const person = await find(directory, tenant, onBehalfOf);
    resolved.onBehalfOf = person === undefined ? onBehalfOf : { ...onBehalfOf, person: person.id };
  }
  // Services, agents and a pause's unattributed link are no one's: no person, and no unknown person either.
  if (actor.kind === 'service' || actor.kind === 'agent' || isUnattributedLink(actor)) return resolved;
  const person = await find(directory, tenant, actor);
  if (person === undefined) return { ...resolved, directory: { delegators: [] } };
  const delegators =
    person.active === true
      ? (await directory.delegations(tenant)).filter(
          (delegator) =>
            delegator.active &&
            delegator.id !== person.id &&
            delegator.delegation?.to === person.id &&
            holds(delegator.delegation, nowMs),
        )
      : [];
  // The directory's groups replace the token's for approvers and policies (§20).
  return { ...resolved, person: person.id, groups: person.groups, directory: { person, delegators } };
}

/** A checked pause with its pauser as the directory says they are (§20): `by`, and `pausedBy` recorded from it. */
export async function withPauser<T extends { tenant: string; by?: Actor; pausedBy: Principal }>(
  pause: T,
  who: (tenant: string, actor: Actor) => Promise<Actor>,
): Promise<T> {
  if (pause.by === undefined) return pause;
  const by = await who(pause.tenant, pause.by);
  return { ...pause, by, pausedBy: recorded(by) };
}

/** Whether a delegation holds at `nowMs`: from its beginning (at once without one) until, not including, its end. */
export function holds(delegation: Delegation, nowMs: number): boolean {
  return (
    (delegation.from === undefined || Date.parse(delegation.from) <= nowMs) && nowMs < Date.parse(delegation.until)
  );
}

/**
 * The one person a principal is: a Slack user by its Slack identity, anyone else by the subject an issuer gave it,
 * a link Handback delivered by its address — then, failing those, by a verified email.
 */
async function find(
  directory: Directory,
  tenant: string,
  principal: Pick<Principal, 'kind' | 'subject' | 'via' | 'email' | 'emailVerified'>,
): Promise<Person | undefined> {
  for (const key of keysOf(principal)) {
    const person = await directory.find(tenant, key);
    if (person !== undefined) return person;
  }
  return undefined;
}

function keysOf(principal: Pick<Principal, 'kind' | 'subject' | 'via' | 'email' | 'emailVerified'>): PersonKey[] {
  const keys: PersonKey[] = [];
  const slack = principal.via === 'slack' ? /^slack:([^:]+):([^:]+)$/.exec(principal.subject) : null;
  if (slack !== null) keys.push({ slack: { team: slack[1] as string, user: slack[2] as string } });
  else if (principal.kind === 'link' && principal.subject.startsWith('email:'))
    keys.push({ email: principal.subject.slice(6) });
  else keys.push({ subject: principal.subject });
  if (principal.emailVerified === true && principal.email !== undefined) keys.push({ email: principal.email });
  return keys;
}

/** A person as the rules hold them while a request lasts (`KnownPerson`). */
export type { KnownPerson };
