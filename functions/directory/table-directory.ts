import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentCommands } from '../checkpoints/document-sdk.ts';
import { storageError } from '../checkpoints/sdk-errors.ts';
import { StorageUnavailableError } from '../errors.ts';
import { parseInput } from '../inputs.ts';
import type { Delegation, Person } from '../wire.ts';
import { person as personSchema } from '../wire-persons.ts';
import {
  type DirectoryDocuments,
  type DocumentKind,
  type DocumentRefusal,
  type KeptDocument,
  uniqueName,
} from './documents.ts';
import type { DirectoryConflict, DirectoryStore, PersonChanges, PersonKey } from './port.ts';
import * as params from './table-params.ts';
import { type Claim, claimsOf, DirectoryKeys } from './table-params.ts';

/**
 * The table-kept directory (§20, SCIM's): both sides of the port on the pauses' table, per tenant (the layout is
 * `table-params.ts`'s), every read strongly consistent and nothing cached, so a deactivation is read by the next
 * request. Without transactions (dynalite has none): the person item is the truth, written last and only at the
 * revision read; each identity is unique by one claim item, claimed before the person is written and released after,
 * each step a conditional write; every read checks an index item against the person it names.
 */

/** How the table-kept directory is built. */
export interface TableDirectoryOptions {
  client: DynamoDBDocumentClient;
  /** The pauses' table (`createTableInput`, or the CDK table). */
  tableName: string;
  /** The clock, for a claim's age. @default Date.now */
  now?: () => number;
}

/**
 * How old a claim must be before a writer may take it from a holder who does not hold it (a writer that stopped
 * half-way left it): far longer than any write takes, which a writer checks before it writes the person.
 */
export const CLAIM_STALE_MS = 2 * 60_000;
/** Writes of one person retried after another write of them came in between. */
const ATTEMPTS = 8;

/**
 * The document client's commands, loaded on first use as the pauses' adapter loads them (named one by one: the
 * package as a namespace would keep every command of it, the aggregated `DynamoDBDocument` with them, at the init of
 * every function that has the table directory).
 */
const commands = () => documentCommands('The table-kept directory');

/** A person as kept: the person and its revision. */
interface Held {
  person: Person;
  rev: number;
}

/** The table-kept directory: the port, and SCIM's documents. */
export class TableDirectory implements DirectoryStore, DirectoryDocuments {
  readonly #client: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #now: () => number;

  constructor(options: TableDirectoryOptions) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#now = options.now ?? Date.now;
  }

  async find(tenant: string, key: PersonKey): Promise<Person | undefined> {
    const sk = DirectoryKeys.claim(key);
    const claim = await this.#get(tenant, sk);
    if (typeof claim?.holder !== 'string') return undefined;
    const held = await this.#read(tenant, claim.holder);
    // A claim its holder no longer holds (a writer stopped half-way) finds no one.
    return held !== undefined && claimsOf(held.person).some((one) => one.sk === sk) ? held.person : undefined;
  }

  async get(tenant: string, id: string): Promise<Person | undefined> {
    return (await this.#read(tenant, id))?.person;
  }

  async members(tenant: string, group: string): Promise<Person[]> {
    const prefix = DirectoryKeys.group(group);
    const ids = (await this.#query(tenant, prefix)).map((item) => String(item.sk).slice(prefix.length));
    return (await this.#people(tenant, ids)).filter((person) => person.groups.includes(group));
  }

  async manager(tenant: string, id: string): Promise<Person | undefined> {
    const manager = (await this.#read(tenant, id))?.person.manager;
    return manager === undefined ? undefined : this.get(tenant, manager);
  }

  async delegations(tenant: string): Promise<Person[]> {
    const prefix = DirectoryKeys.delegations;
    const ids = (await this.#query(tenant, prefix)).map((item) => String(item.sk).slice(prefix.length));
    return (await this.#people(tenant, ids)).filter((person) => person.delegation !== undefined);
  }

  async create(given: Person): Promise<'created' | DirectoryConflict> {
    const person = parsed(given);
    const answer = await this.#write(person.tenant, person.id, (held) =>
      held === undefined ? person : { conflict: 'id', value: person.id, heldBy: person.id },
    );
    if (answer === 'missing') throw new Error('A create reads no missing person.');
    return isWritten(answer) ? 'created' : answer;
  }

  async replace(given: Person): Promise<'replaced' | 'missing' | DirectoryConflict> {
    const person = parsed(given);
    const answer = await this.#write(person.tenant, person.id, (held) => (held === undefined ? 'missing' : person));
    return isWritten(answer) ? 'replaced' : answer;
  }

  async patch(tenant: string, id: string, changes: PersonChanges): Promise<Person | 'missing' | DirectoryConflict> {
    const answer = await this.#write(tenant, id, (held) => {
      if (held === undefined) return 'missing';
      const changed: Person = { ...held, ...withoutUndefined(changes), id, tenant };
      // `manager` and `delegation` are cleared by naming them undefined.
      for (const field of ['manager', 'delegation'] as const) {
        if (Object.hasOwn(changes, field) && changes[field] === undefined) delete changed[field];
      }
      return parsed(changed);
    });
    return isWritten(answer) ? answer.person : answer;
  }

  async delete(tenant: string, id: string): Promise<'deleted' | 'missing'> {
    const { DeleteCommand } = await commands();
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const held = await this.#read(tenant, id);
      if (held === undefined) return 'missing';
      const deleted = await this.#conditional(() =>
        this.#client.send(new DeleteCommand(params.deletePerson(this.#table, tenant, id, held.rev))),
      );
      if (!deleted) continue;
      await this.#cleanUp(tenant, id, held.person, undefined, held.rev + 1);
      return 'deleted';
    }
    throw busy();
  }

  async addToGroup(tenant: string, group: string, ids: readonly string[]): Promise<string[]> {
    return this.#regroup(tenant, ids, (groups) => (groups.includes(group) ? groups : [...groups, group]));
  }

  async removeFromGroup(tenant: string, group: string, ids: readonly string[]): Promise<string[]> {
    return this.#regroup(tenant, ids, (groups) => groups.filter((name) => name !== group));
  }

  /** Each person of `ids` with their groups changed, one write each, after every change is parsed; the missing ids. */
  async #regroup(tenant: string, ids: readonly string[], change: (groups: string[]) => string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    const found = await Promise.all(unique.map((id) => this.#read(tenant, id)));
    const missing = ids.filter((id) => found[unique.indexOf(id)] === undefined);
    // Every change is parsed before any is written: a group past a person's limit changes no one.
    for (const held of found) if (held !== undefined) parsed({ ...held.person, groups: change(held.person.groups) });
    for (const held of found) {
      if (held === undefined) continue;
      await this.#write(tenant, held.person.id, (now) =>
        now === undefined ? 'missing' : parsed({ ...now, groups: change(now.groups) }),
      );
    }
    return missing;
  }

  async setDelegation(tenant: string, id: string, delegation: Delegation | undefined): Promise<Person | 'missing'> {
    const answer = await this.patch(tenant, id, { delegation });
    // A delegation names no identity: it cannot conflict.
    return answer === 'missing' ? 'missing' : (answer as Person);
  }

  // SCIM's documents.

  async document(tenant: string, kind: DocumentKind, id: string): Promise<KeptDocument | undefined> {
    const item = await this.#get(tenant, DirectoryKeys.document(kind, id));
    return item === undefined ? undefined : { doc: JSON.parse(String(item.doc)), rev: Number(item.rev) };
  }

  async documents(tenant: string, kind: DocumentKind): Promise<Array<{ id: string; doc: Record<string, unknown> }>> {
    const prefix = DirectoryKeys.documents(kind);
    return (await this.#query(tenant, prefix)).map((item) => ({
      id: String(item.sk).slice(prefix.length),
      doc: JSON.parse(String(item.doc)),
    }));
  }

  async named(tenant: string, kind: DocumentKind, name: string): Promise<string | undefined> {
    const claim = await this.#get(tenant, DirectoryKeys.name(kind, uniqueName(kind, name)));
    if (typeof claim?.holder !== 'string') return undefined;
    // A name its holder's document no longer bears names no one.
    const held = await this.document(tenant, kind, claim.holder);
    return held !== undefined && uniqueName(kind, nameOf(kind, held.doc)) === uniqueName(kind, name)
      ? claim.holder
      : undefined;
  }

  async putDocument(
    tenant: string,
    kind: DocumentKind,
    id: string,
    doc: Record<string, unknown>,
    name: string,
    expected: number | undefined,
  ): Promise<'written' | DocumentRefusal> {
    const { PutCommand, DeleteCommand } = await commands();
    const before = await this.document(tenant, kind, id);
    if (before?.rev !== expected) return 'stale';
    const rev = expected === undefined ? this.#firstRev() : expected + 1;
    const sk = DirectoryKeys.name(kind, uniqueName(kind, name));
    const claimed = await this.#claim(tenant, id, { sk, conflict: 'id', value: name }, rev, (holder) =>
      this.document(tenant, kind, holder).then(
        (held) => held !== undefined && uniqueName(kind, nameOf(kind, held.doc)) === uniqueName(kind, name),
      ),
    );
    if (claimed !== 'claimed') return { nameHeldBy: claimed.heldBy };
    const written = await this.#conditional(() =>
      this.#client.send(
        new PutCommand(params.putDocument(this.#table, tenant, DirectoryKeys.document(kind, id), doc, rev, expected)),
      ),
    );
    if (!written) return 'stale';
    const previous = before === undefined ? undefined : uniqueName(kind, nameOf(kind, before.doc));
    if (previous !== undefined && previous !== uniqueName(kind, name)) {
      const released = DirectoryKeys.name(kind, previous);
      await this.#conditional(() =>
        this.#client.send(new DeleteCommand(params.releaseClaim(this.#table, tenant, released, id, rev))),
      );
    }
    return 'written';
  }

  async deleteDocument(tenant: string, kind: DocumentKind, id: string): Promise<void> {
    const { DeleteCommand } = await commands();
    const before = await this.document(tenant, kind, id);
    if (before === undefined) return;
    await this.#call(() =>
      this.#client.send(new DeleteCommand(params.deleteItem(this.#table, tenant, DirectoryKeys.document(kind, id)))),
    );
    const nameKey = DirectoryKeys.name(kind, uniqueName(kind, nameOf(kind, before.doc)));
    await this.#conditional(() =>
      this.#client.send(new DeleteCommand(params.releaseClaim(this.#table, tenant, nameKey, id, before.rev + 1))),
    );
  }

  // The write path.

  /**
   * One write of one person: read it, change it, claim the identities it gains, write it at the revision read (else
   * read again), then write the indexes it gained and remove what it lost. A refused claim changes no person or index.
   */
  async #write(
    tenant: string,
    id: string,
    change: (held: Person | undefined) => Person | 'missing' | DirectoryConflict,
  ): Promise<{ person: Person } | 'missing' | DirectoryConflict> {
    const { PutCommand } = await commands();
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const held = await this.#read(tenant, id);
      const next = change(held?.person);
      if (typeof next === 'string' || !('name' in next)) return next;
      const rev = held === undefined ? this.#firstRev() : held.rev + 1;
      const had = new Set(held === undefined ? [] : claimsOf(held.person).map((claim) => claim.sk));
      const gained = claimsOf(next).filter((claim) => !had.has(claim.sk));
      const startedMs = this.#now();
      // A refused write leaves what it claimed to age (CLAIM_STALE_MS): releasing it could take away a claim a
      // concurrent write of the same person counts on.
      for (const claim of gained) {
        const answer = await this.#claim(tenant, id, claim, rev, async (holder) => {
          const holderNow = await this.#read(tenant, holder);
          return holderNow !== undefined && claimsOf(holderNow.person).some((one) => one.sk === claim.sk);
        });
        if (answer !== 'claimed') return answer;
      }
      // A claim older than CLAIM_STALE_MS may be taken from a writer that has not written its person: never be one.
      if (this.#now() - startedMs > CLAIM_STALE_MS / 2) throw busy();
      const written = await this.#conditional(() =>
        this.#client.send(new PutCommand(params.putPerson(this.#table, next, rev, held?.rev))),
      );
      if (!written) continue;
      await this.#cleanUp(tenant, id, held?.person, next, rev);
      return { person: next };
    }
    throw busy();
  }

  /** The indexes `next` gained over `before` written at `rev`, and those it lost removed unless written since. */
  async #cleanUp(tenant: string, id: string, before: Person | undefined, next: Person | undefined, rev: number) {
    const { PutCommand, DeleteCommand } = await commands();
    const indexesOf = (person: Person | undefined) =>
      new Set(
        person === undefined
          ? []
          : [
              ...person.groups.map((group) => DirectoryKeys.member(group, id)),
              ...(person.delegation === undefined ? [] : [DirectoryKeys.delegation(id)]),
            ],
      );
    const was = indexesOf(before);
    const now = indexesOf(next);
    const keeps = new Set(next === undefined ? [] : claimsOf(next).map((claim) => claim.sk));
    const lostClaims = before === undefined ? [] : claimsOf(before).filter((claim) => !keeps.has(claim.sk));
    await Promise.all([
      ...[...now]
        .filter((sk) => !was.has(sk))
        .map((sk) =>
          this.#call(() => this.#client.send(new PutCommand(params.putIndex(this.#table, tenant, sk, rev)))),
        ),
      ...[...was]
        .filter((sk) => !now.has(sk))
        .map((sk) =>
          this.#conditional(() =>
            this.#client.send(new DeleteCommand(params.deleteIndex(this.#table, tenant, sk, rev))),
          ),
        ),
      ...lostClaims.map((claim) =>
        this.#conditional(() =>
          this.#client.send(new DeleteCommand(params.releaseClaim(this.#table, tenant, claim.sk, id, rev))),
        ),
      ),
    ]);
  }

  /**
   * Claims `claim` for `id` at `rev`: free or already theirs, it is; held by another who holds it (`holds`), or
   * claimed so recently that its writer may still be writing, it is refused; left behind, it is taken over as read.
   */
  async #claim(
    tenant: string,
    id: string,
    claim: Claim,
    rev: number,
    holds: (holder: string) => Promise<boolean>,
  ): Promise<'claimed' | DirectoryConflict> {
    const { PutCommand } = await commands();
    const nowMs = this.#now();
    let current: Record<string, unknown> | undefined;
    // A claim released between the put and the read is tried again, a few times.
    for (let attempt = 0; current === undefined; attempt += 1) {
      const put = () =>
        this.#client.send(new PutCommand(params.putClaim(this.#table, tenant, claim.sk, id, rev, nowMs)));
      if (await this.#conditional(put)) return 'claimed';
      current = await this.#get(tenant, claim.sk);
      if (current === undefined && attempt === 2) throw busy();
    }
    const holder = String(current.holder);
    const refused = { conflict: claim.conflict, value: claim.value, heldBy: holder };
    const atMs = Number(current.at);
    if (nowMs - atMs < CLAIM_STALE_MS || (await holds(holder))) return refused;
    const taken = await this.#conditional(() =>
      this.#client.send(
        new PutCommand(
          params.takeOverClaim(this.#table, tenant, claim.sk, { holder: id, rev, atMs: nowMs }, { holder, atMs }),
        ),
      ),
    );
    return taken ? 'claimed' : refused;
  }

  // Reads.

  async #read(tenant: string, id: string): Promise<Held | undefined> {
    const item = await this.#get(tenant, DirectoryKeys.person(id));
    return item === undefined ? undefined : { person: JSON.parse(String(item.person)), rev: Number(item.rev) };
  }

  async #get(tenant: string, sk: string): Promise<Record<string, unknown> | undefined> {
    const { GetCommand } = await commands();
    const output = await this.#call(() => this.#client.send(new GetCommand(params.getItem(this.#table, tenant, sk))));
    return output.Item;
  }

  /** The persons of `ids`, by id: each read strongly consistent, as `get` reads one. */
  async #people(tenant: string, ids: string[]): Promise<Person[]> {
    const found = await Promise.all([...new Set(ids)].sort().map((id) => this.#read(tenant, id)));
    return found.filter((held): held is Held => held !== undefined).map((held) => held.person);
  }

  async #query(tenant: string, prefix: string): Promise<Array<Record<string, unknown>>> {
    const { QueryCommand } = await commands();
    const items: Array<Record<string, unknown>> = [];
    let after: Record<string, unknown> | undefined;
    do {
      const page = await this.#call(() =>
        this.#client.send(new QueryCommand(params.queryPrefix(this.#table, tenant, prefix, after))),
      );
      items.push(...(page.Items ?? []));
      after = page.LastEvaluatedKey;
    } while (after !== undefined);
    return items;
  }

  /** A revision no earlier write of this id can have reached: a recreated person's clean-up never meets the old. */
  #firstRev(): number {
    return this.#now() * 1000;
  }

  /** Sends; a failed condition is `false`. */
  async #conditional(send: () => Promise<unknown>): Promise<boolean> {
    try {
      await this.#call(send);
      return true;
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  async #call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException') throw error;
      throw storageError(error, 'The directory’s table did not answer in time; retry the same request.');
    }
  }
}

/** Whether a write's answer is the person written. */
function isWritten(answer: { person: Person } | 'missing' | DirectoryConflict): answer is { person: Person } {
  return typeof answer === 'object' && 'person' in answer;
}

/** Many writes of one person at once: the caller may retry. */
function busy(): StorageUnavailableError {
  return new StorageUnavailableError('The directory’s person was changed by other writes meanwhile; retry.');
}

/** A document's unique name: a User's userName, a Group's displayName. */
function nameOf(kind: DocumentKind, doc: Record<string, unknown>): string {
  return String(kind === 'User' ? doc.userName : doc.displayName);
}

/** `person` as the port keeps it: parsed by its one schema (400 naming each bad field). */
function parsed(person: Person): Person {
  return parseInput(personSchema, person, 'person');
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
