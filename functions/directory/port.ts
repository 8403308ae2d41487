import type { Delegation, Person, SlackUser } from '../wire.ts';

/**
 * The directory port (§20): the persons a deployment knows, read by the rules and written by its sources. The rules
 * (`functions/checkpoints/people.ts`) resolve each request's principal through `Directory` once, at the edge of the
 * use case, and never keep what they read past the request: a person deactivated decides nothing from the moment the
 * change is acknowledged. A source writes through `DirectoryWriter`.
 *
 * Adapters: `memory.ts` (both sides, for tests and for the file), `file.ts` (a file, read once at start),
 * `table-directory.ts` (both sides on the pauses' table: SCIM's).
 *
 * What a table-backed source (SCIM 2.0, `/scim/v2`) implements: both interfaces on the pauses' table, per tenant, with
 * every read strongly consistent (no cache: a write is seen by the next read), and these invariants, which
 * `MemoryDirectory` holds and its tests state —
 * - every person is a `Person` (`functions/wire.ts`) of its tenant, parsed before it is written;
 * - in a tenant, no two persons share an id, an issuer subject, a Slack user, or an email once folded (`foldEmail`):
 *   a write that would make two persons share one is refused as a `DirectoryConflict`, and changes nothing;
 * - `find` folds an email as `foldEmail` does and nothing more (no Unicode case folding, no look-alikes);
 * - `members` and `delegations` answer from what is written now; a person's `groups` are their memberships;
 * - `setDelegation` changes nothing but the person's delegation (a source's entry and a person's own
 *   `PUT /people/me/delegation` both write it).
 */

/** How a principal finds its person: by an issuer subject, a Slack user, or an email (ASCII case folding, §16). */
export type PersonKey = { subject: string } | { slack: SlackUser } | { email: string };

/** The read side: what the rules ask of a directory. */
export interface Directory {
  /** The one person of `tenant` that `key` names, or undefined. */
  find(tenant: string, key: PersonKey): Promise<Person | undefined>;
  /** The person of `tenant` with this id, or undefined. */
  get(tenant: string, id: string): Promise<Person | undefined>;
  /** The persons of `tenant` in `group`, active or not, by id. */
  members(tenant: string, group: string): Promise<Person[]>;
  /** The manager of the person with this id: the person their `manager` names, or undefined. */
  manager(tenant: string, id: string): Promise<Person | undefined>;
  /**
   * The persons of `tenant` who hold a delegation, whether or not it is in force now, by id: a handful, which the
   * rules read whole to find who has handed approvals to whom (§20).
   */
  delegations(tenant: string): Promise<Person[]>;
}

/** A write refused because it would make two persons share what names one (`PersonKey`), or an id. */
export interface DirectoryConflict {
  conflict: 'id' | 'subject' | 'slack' | 'email';
  /** What is shared: the id, subject, `<team>:<user>` or email as given. */
  value: string;
  /** The person who holds it. */
  heldBy: string;
}

/** The fields of a person a patch may change: any but its id and tenant. */
export type PersonChanges = Partial<Omit<Person, 'id' | 'tenant'>>;

/** The write side: what a directory's source (a file at start, SCIM, a person's own delegation) writes. */
export interface DirectoryWriter {
  /** Adds `person`, unless its id or one of its identities is taken. */
  create(person: Person): Promise<'created' | DirectoryConflict>;
  /** Replaces the person with `person.id` whole. */
  replace(person: Person): Promise<'replaced' | 'missing' | DirectoryConflict>;
  /** Changes some fields of a person; answers the person as changed. */
  patch(tenant: string, id: string, changes: PersonChanges): Promise<Person | 'missing' | DirectoryConflict>;
  /** Removes a person. Another's `manager` or delegation naming them then names no one. */
  delete(tenant: string, id: string): Promise<'deleted' | 'missing'>;
  /** Adds persons to a group; answers the ids of those that do not exist (nothing is done for them). */
  addToGroup(tenant: string, group: string, ids: readonly string[]): Promise<string[]>;
  /** Removes persons from a group; answers the ids of those that do not exist. */
  removeFromGroup(tenant: string, group: string, ids: readonly string[]): Promise<string[]>;
  /** Sets (or, with undefined, ends) a person's delegation; answers the person as changed. */
  setDelegation(tenant: string, id: string, delegation: Delegation | undefined): Promise<Person | 'missing'>;
}

/** A directory both read and written: what a source keeps. */
export type DirectoryStore = Directory & DirectoryWriter;

/** Whether a write's answer is a conflict. */
export function isConflict(answer: unknown): answer is DirectoryConflict {
  return typeof answer === 'object' && answer !== null && 'conflict' in answer;
}

/** A conflict in words: what is shared, and with whom. */
export function conflictText({ conflict, value, heldBy }: DirectoryConflict): string {
  return conflict === 'id'
    ? `the id ${JSON.stringify(value)} is taken`
    : `the ${conflict === 'slack' ? 'Slack user' : conflict} ${JSON.stringify(value)} is already ${JSON.stringify(heldBy)}'s`;
}
