import { foldEmail } from '../emails.ts';
import { parseInput } from '../inputs.ts';
import type { Delegation, Person } from '../wire.ts';
import { person as personSchema } from '../wire-persons.ts';
import type { DirectoryConflict, DirectoryStore, PersonChanges, PersonKey } from './port.ts';

/**
 * A directory in memory (§20): both sides of the port on `Map`s, indexed by every identity a person holds, by group,
 * and by who holds a delegation, so each read is a lookup. It holds the port's invariants (`port.ts`): every person
 * parsed before it is kept, no identity shared by two persons of a tenant. The file source builds one at start; tests
 * use it as they use the memory checkpoint store. Never shared between processes: on Lambda a table-backed source is.
 */

/** A person's identities as index keys: `sub:<subject>`, `slack:<team>:<user>`, `email:<folded>`. */
function identityKeysOf(
  person: Person,
): Array<{ key: string; conflict: DirectoryConflict['conflict']; value: string }> {
  return [
    ...person.subjects.map((subject) => ({ key: `sub:${subject}`, conflict: 'subject' as const, value: subject })),
    ...person.slack.map(({ team, user }) => ({
      key: `slack:${team}:${user}`,
      conflict: 'slack' as const,
      value: `${team}:${user}`,
    })),
    ...person.emails.map((email) => ({ key: `email:${foldEmail(email)}`, conflict: 'email' as const, value: email })),
  ];
}

/** A person key's index key. */
function lookupKey(key: PersonKey): string {
  if ('subject' in key) return `sub:${key.subject}`;
  if ('slack' in key) return `slack:${key.slack.team}:${key.slack.user}`;
  return `email:${foldEmail(key.email)}`;
}

/** One tenant's persons and indexes. */
class Tenant {
  readonly people = new Map<string, Person>();
  readonly byKey = new Map<string, string>();
  readonly byGroup = new Map<string, Set<string>>();
  readonly delegating = new Set<string>();

  /** The first identity of `person` another person of the tenant holds, or its id when it is taken and `fresh`. */
  conflictOf(person: Person, fresh: boolean): DirectoryConflict | undefined {
    if (fresh && this.people.has(person.id)) return { conflict: 'id', value: person.id, heldBy: person.id };
    for (const { key, conflict, value } of identityKeysOf(person)) {
      const holder = this.byKey.get(key);
      if (holder !== undefined && holder !== person.id) return { conflict, value, heldBy: holder };
    }
    return undefined;
  }

  add(person: Person): void {
    this.people.set(person.id, person);
    for (const { key } of identityKeysOf(person)) this.byKey.set(key, person.id);
    for (const group of person.groups) {
      const members = this.byGroup.get(group) ?? new Set<string>();
      this.byGroup.set(group, members.add(person.id));
    }
    if (person.delegation !== undefined) this.delegating.add(person.id);
  }

  remove(id: string): void {
    const person = this.people.get(id);
    if (person === undefined) return;
    this.people.delete(id);
    for (const { key } of identityKeysOf(person)) this.byKey.delete(key);
    for (const group of person.groups) {
      const members = this.byGroup.get(group);
      members?.delete(id);
      if (members?.size === 0) this.byGroup.delete(group);
    }
    this.delegating.delete(id);
  }

  /** The persons of `ids`, by id. */
  list(ids: Iterable<string>): Person[] {
    return [...ids]
      .sort()
      .map((id) => this.people.get(id))
      .filter((person): person is Person => person !== undefined)
      .map(copy);
  }
}

/** A copy a caller may change without changing the directory. */
const copy = (person: Person): Person => structuredClone(person);

/** The memory directory: both sides of the port. */
export class MemoryDirectory implements DirectoryStore {
  readonly #tenants = new Map<string, Tenant>();

  #tenant(tenant: string): Tenant {
    let found = this.#tenants.get(tenant);
    if (found === undefined) {
      found = new Tenant();
      this.#tenants.set(tenant, found);
    }
    return found;
  }

  async find(tenant: string, key: PersonKey): Promise<Person | undefined> {
    return this.findNow(tenant, key);
  }

  /** `find`, at once: for the file's reader, which runs where nothing may wait (synthesis). */
  findNow(tenant: string, key: PersonKey): Person | undefined {
    const held = this.#tenants.get(tenant);
    const id = held?.byKey.get(lookupKey(key));
    const found = id === undefined ? undefined : held?.people.get(id);
    return found === undefined ? undefined : copy(found);
  }

  async get(tenant: string, id: string): Promise<Person | undefined> {
    const found = this.#tenants.get(tenant)?.people.get(id);
    return found === undefined ? undefined : copy(found);
  }

  async members(tenant: string, group: string): Promise<Person[]> {
    const held = this.#tenants.get(tenant);
    return held === undefined ? [] : held.list(held.byGroup.get(group) ?? []);
  }

  async manager(tenant: string, id: string): Promise<Person | undefined> {
    const manager = this.#tenants.get(tenant)?.people.get(id)?.manager;
    return manager === undefined ? undefined : this.get(tenant, manager);
  }

  async delegations(tenant: string): Promise<Person[]> {
    const held = this.#tenants.get(tenant);
    return held === undefined ? [] : held.list(held.delegating);
  }

  async create(given: Person): Promise<'created' | DirectoryConflict> {
    return this.createNow(given);
  }

  /** `create`, at once (`findNow`). */
  createNow(given: Person): 'created' | DirectoryConflict {
    const person = parsed(given);
    const tenant = this.#tenant(person.tenant);
    const conflict = tenant.conflictOf(person, true);
    if (conflict !== undefined) return conflict;
    tenant.add(person);
    return 'created';
  }

  async replace(given: Person): Promise<'replaced' | 'missing' | DirectoryConflict> {
    return this.#replaceNow(given);
  }

  #replaceNow(given: Person): 'replaced' | 'missing' | DirectoryConflict {
    const person = parsed(given);
    const tenant = this.#tenant(person.tenant);
    if (!tenant.people.has(person.id)) return 'missing';
    const conflict = tenant.conflictOf(person, false);
    if (conflict !== undefined) return conflict;
    tenant.remove(person.id);
    tenant.add(person);
    return 'replaced';
  }

  async patch(tenant: string, id: string, changes: PersonChanges): Promise<Person | 'missing' | DirectoryConflict> {
    return this.#patchNow(tenant, id, changes);
  }

  #patchNow(tenant: string, id: string, changes: PersonChanges): Person | 'missing' | DirectoryConflict {
    const held = this.#tenants.get(tenant)?.people.get(id);
    if (held === undefined) return 'missing';
    const changed: Person = { ...held, ...withoutUndefined(changes), id, tenant };
    // `manager` and `delegation` are cleared by naming them undefined.
    for (const field of ['manager', 'delegation'] as const) {
      if (Object.hasOwn(changes, field) && changes[field] === undefined) delete changed[field];
    }
    const answer = this.#replaceNow(changed);
    return answer === 'replaced' ? copy(this.#tenant(tenant).people.get(id) as Person) : answer;
  }

  async delete(tenant: string, id: string): Promise<'deleted' | 'missing'> {
    const held = this.#tenants.get(tenant);
    if (held?.people.has(id) !== true) return 'missing';
    held.remove(id);
    return 'deleted';
  }

  async addToGroup(tenant: string, group: string, ids: readonly string[]): Promise<string[]> {
    return this.#regroup(tenant, ids, (groups) => (groups.includes(group) ? groups : [...groups, group]));
  }

  async removeFromGroup(tenant: string, group: string, ids: readonly string[]): Promise<string[]> {
    return this.#regroup(tenant, ids, (groups) => groups.filter((name) => name !== group));
  }

  async setDelegation(tenant: string, id: string, delegation: Delegation | undefined): Promise<Person | 'missing'> {
    return this.setDelegationNow(tenant, id, delegation);
  }

  /** `setDelegation`, at once (`findNow`). */
  setDelegationNow(tenant: string, id: string, delegation: Delegation | undefined): Person | 'missing' {
    const answer = this.#patchNow(tenant, id, { delegation });
    // A delegation names no identity: it cannot conflict.
    return answer === 'missing' ? 'missing' : (answer as Person);
  }

  /** Each person of `ids` with their groups changed by `change`; the ids that name no one. */
  async #regroup(tenant: string, ids: readonly string[], change: (groups: string[]) => string[]): Promise<string[]> {
    const held = this.#tenant(tenant);
    const missing = ids.filter((id) => !held.people.has(id));
    // Every changed person is parsed before any is kept: a group past a person's limit changes no one.
    const changed = [...new Set(ids)]
      .filter((id) => held.people.has(id))
      .map((id) => {
        const person = held.people.get(id) as Person;
        return parsed({ ...person, groups: change(person.groups) });
      });
    for (const person of changed) {
      held.remove(person.id);
      held.add(person);
    }
    return missing;
  }
}

/** `person` as the port keeps it: parsed by its one schema (400 naming each bad field), a copy. */
function parsed(person: Person): Person {
  return parseInput(personSchema, person, 'person');
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
