import { foldEmail } from '../emails.ts';
import type { Via } from '../vocabulary.ts';
import type { Actor, KnownPerson, Principal } from '../wire.ts';

/**
 * Who a principal is (§13, §16), pure and in one place: the principals Handback itself acts as, what of a principal is
 * recorded, and whether two principals are the same person — `samePerson`, the one function four eyes, quorum,
 * replays and refusals all call, so that what makes two principals one person is decided here alone.
 */

/** The library's principal when a caller names none. */
export const LIBRARY_PRINCIPAL: Principal = { kind: 'service', subject: 'library', via: 'library' };

/** The sweep's principal: an expiry that acts records it as the decision of each ask it rejects (§13). */
export const SWEEP_PRINCIPAL: Principal = { kind: 'service', subject: 'service:sweep', via: 'sweep' };

/** Every request with auth off: one person, without an identity to match approvers against (§13). */
export const ANONYMOUS_PRINCIPAL: Principal = { kind: 'person', subject: 'anonymous', via: 'api' };

/**
 * The principal as recorded, without empty optional fields: its groups as they are now (§19, what voters were), a
 * policy's version (§19).
 */
export function recorded(actor: Actor): Principal {
  const principal: Principal = { kind: actor.kind, subject: actor.subject, via: actor.via };
  if (actor.email !== undefined) principal.email = actor.email;
  if (actor.emailVerified === true && actor.email !== undefined) principal.emailVerified = true;
  if (actor.name !== undefined) principal.name = actor.name;
  if (actor.for !== undefined) principal.for = actor.for;
  if (actor.grantedBy !== undefined) principal.grantedBy = actor.grantedBy;
  if (actor.person !== undefined) principal.person = actor.person;
  if (actor.onBehalfOf !== undefined) principal.onBehalfOf = actor.onBehalfOf;
  if (actor.groups !== undefined) principal.groups = [...actor.groups];
  if (actor.policyVersion !== undefined) principal.policyVersion = actor.policyVersion;
  return principal;
}

/** Emails compare with ASCII case folding only (`fields.ts`, where the directory's words fold them too). */
export { foldEmail };

/** What a principal's identity keys are read from. */
export type Identity = Pick<
  Principal,
  'kind' | 'subject' | 'via' | 'email' | 'emailVerified' | 'grantedBy' | 'person'
> &
  Pick<Actor, 'directory'>;

/**
 * A principal's identity keys (§16, §20): `slack:<team>:<user>` for a Slack user, `email:<address>` for a link
 * Handback delivered (and for every verified email), `link:<interruptId>` for a pause's unattributed link, the subject
 * of a service, and `sub:<subject>` for everyone else (a token's `sub`, a trigger's or the library's `by`, a granted
 * link's grantor). Part three's recipient links recorded `grantedBy`: theirs count as that person's too. A principal
 * the directory knew when it acted adds `person:<id>`; one it resolves now adds every identity of that person, so it
 * is the same person as whatever any of them recorded before.
 */
export function identityKeys(principal: Identity): string[] {
  const keys = new Set([subjectKey(principal)]);
  if (principal.emailVerified === true && principal.email !== undefined)
    keys.add(`email:${foldEmail(principal.email)}`);
  if (principal.grantedBy !== undefined) keys.add(`sub:${principal.grantedBy}`);
  if (principal.person !== undefined) keys.add(`person:${principal.person}`);
  const known = principal.directory?.person;
  if (known !== undefined) for (const key of personKeys(known)) keys.add(key);
  return [...keys];
}

/** Every identity key of a directory's person (§20): theirs, and each identity the directory says is them. */
export function personKeys(person: KnownPerson): string[] {
  return [
    `person:${person.id}`,
    ...person.subjects.map((subject) => `sub:${subject}`),
    ...person.slack.map(({ team, user }) => `slack:${team}:${user}`),
    ...person.emails.map((email) => `email:${foldEmail(email)}`),
  ];
}

/**
 * Whether a principal is made only of email addresses (§20): a link Handback delivered, which proves the address and
 * no person — one human may hold many addresses.
 */
export function isEmailOnly(principal: Identity): boolean {
  return identityKeys(principal).every((key) => key.startsWith('email:'));
}

/**
 * Whether a door's people carry subjects of its own, which name their namespace (Slack's `slack:<team>:<user>`), or
 * an issuer's (a token's `sub`, a trigger's or the library's `by`), keyed `sub:<subject>`.
 */
const OWN_SUBJECTS: Record<Via, boolean> = {
  api: false,
  link: false,
  slack: true,
  'step-functions': false,
  sqs: false,
  eventbridge: false,
  sweep: false,
  library: false,
  policy: false,
};

function subjectKey({ kind, subject, via }: Identity): string {
  if (kind === 'link') return subject.startsWith('email:') ? `email:${foldEmail(subject.slice(6))}` : subject;
  if (kind === 'service' || OWN_SUBJECTS[via]) return subject;
  return `sub:${subject}`;
}

/** Whether two principals are the same person (§16): they share an identity key. The one place this is decided. */
export function samePerson(a: Identity, b: Identity): boolean {
  const mine = identityKeys(a);
  return identityKeys(b).some((key) => mine.includes(key));
}

/** Whether two principals came through the same door as the same principal: then the same vote again is a replay. */
export function sameDoor(a: Identity, b: Identity): boolean {
  return a.kind === b.kind && a.via === b.via && a.subject === b.subject;
}

/** Whether `principal` is the library's default one. */
export function isLibrary(principal: Principal): boolean {
  return (
    principal.kind === LIBRARY_PRINCIPAL.kind &&
    principal.subject === LIBRARY_PRINCIPAL.subject &&
    principal.via === LIBRARY_PRINCIPAL.via &&
    principal.email === undefined &&
    principal.name === undefined &&
    principal.grantedBy === undefined &&
    principal.for === undefined &&
    principal.person === undefined &&
    principal.onBehalfOf === undefined
  );
}

/** Whether `actor` is the anonymous principal of a service without auth. */
export function isAnonymous(actor: Pick<Principal, 'kind' | 'subject'>): boolean {
  return actor.kind === ANONYMOUS_PRINCIPAL.kind && actor.subject === ANONYMOUS_PRINCIPAL.subject;
}

/** Whether `actor` decides through a pause's unattributed link (the lifecycle events' `answerUrl`): no one it proves. */
export function isUnattributedLink(actor: Pick<Principal, 'kind' | 'subject'>): boolean {
  return actor.kind === 'link' && actor.subject.startsWith('link:');
}
