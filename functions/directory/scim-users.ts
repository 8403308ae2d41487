import { randomUUID } from 'node:crypto';
import type { Filter } from 'scim2-parse-filter';
import { emailAddress, foldEmail } from '../fields.ts';
import { parseInput } from '../inputs.ts';
import { LIMITS } from '../vocabulary.ts';
import type { Person } from '../wire.ts';
import type { KeptDocument } from './documents.ts';
import { conflictText, type DirectoryStore, isConflict } from './port.ts';
import { type ScimUserInput, scimUser, URN } from './scim-inputs.ts';
import {
  equality,
  isString,
  nonEmpty,
  notFound,
  ok,
  Resources,
  type ScimAnswer,
  ScimProblem,
} from './scim-resources.ts';

/** SCIM's Users (§20): a User is a person of the directory and a document of what a person does not hold. */

/** A User's document: what a person does not hold. */
export interface UserDoc {
  userName: string;
  externalId?: string;
  name?: { formatted?: string; givenName?: string; familyName?: string };
  displayName?: string;
  emails: Array<{ value: string; type?: string; primary?: boolean }>;
  created: string;
  lastModified: string;
}

/** Users (RFC 7644 section 3): persons and their documents. */
export class Users extends Resources<ScimUserInput> {
  protected readonly kindName = 'User' as const;

  protected parse(body: unknown): ScimUserInput {
    return parseInput(scimUser, body, 'User');
  }

  async get(id: string): Promise<Record<string, unknown>> {
    const [held, person] = await Promise.all([
      this.keep.documents.document(this.tenant, 'User', id),
      this.keep.directory.get(this.tenant, id),
    ]);
    // A document whose person was never written (its create stopped half-way) is no User.
    if (held === undefined || person === undefined) throw notFound(`Users/${id}`);
    return this.#served(person, held.doc as unknown as UserDoc);
  }

  async #served(person: Person, doc: UserDoc): Promise<Record<string, unknown>> {
    const { base } = this.request;
    const groups = await Promise.all(
      person.groups.map(async (group) => {
        const groupId = await this.keep.documents.named(this.tenant, 'Group', group);
        return groupId === undefined
          ? undefined
          : { value: groupId, display: group, $ref: `${base}/Groups/${encodeURIComponent(groupId)}` };
      }),
    );
    const emails = person.emails.map((value) => {
      const given = doc.emails.find((email) => foldEmail(email.value) === foldEmail(value));
      return {
        value,
        ...(given?.type === undefined ? {} : { type: given.type }),
        ...(given?.primary ? { primary: true } : {}),
      };
    });
    return {
      schemas: person.manager === undefined ? [URN.user] : [URN.user, URN.enterprise],
      id: person.id,
      ...(doc.externalId === undefined ? {} : { externalId: doc.externalId }),
      userName: doc.userName,
      ...(doc.name === undefined ? {} : { name: doc.name }),
      displayName: person.name,
      emails,
      active: person.active,
      groups: groups.filter((group) => group !== undefined),
      ...(person.manager === undefined
        ? {}
        : {
            [URN.enterprise]: {
              manager: { value: person.manager, $ref: `${base}/Users/${encodeURIComponent(person.manager)}` },
            },
          }),
      meta: {
        resourceType: 'User',
        created: doc.created,
        lastModified: doc.lastModified,
        location: `${base}/Users/${encodeURIComponent(person.id)}`,
      },
    };
  }

  protected inputOf(resource: Record<string, unknown>): unknown {
    const { groups: _, meta: __, id: ___, schemas: ____, ...input } = resource;
    return input;
  }

  protected async candidates(filter: Filter | undefined): Promise<string[]> {
    const eq = equality(filter, ['userName', 'externalId', 'emails.value', 'emails', 'id']);
    const { directory, documents } = this.keep;
    if (eq?.at === 'userName') return [await documents.named(this.tenant, 'User', eq.value)].filter(isString);
    if (eq?.at === 'externalId')
      return [(await directory.find(this.tenant, { subject: eq.value }))?.id].filter(isString);
    if (eq?.at === 'emails.value' || eq?.at === 'emails') {
      return [(await directory.find(this.tenant, { email: eq.value }))?.id].filter(isString);
    }
    if (eq?.at === 'id') return [eq.value];
    return (await documents.documents(this.tenant, 'User')).map((one) => one.id);
  }

  protected override matches(filter: Filter, resource: Record<string, unknown>): boolean {
    // userName and emails are not case-exact (RFC 7643 section 4.1): their equalities were answered by the folded indexes.
    const eq = equality(filter, ['userName', 'emails.value', 'emails']);
    return eq !== undefined || super.matches(filter, resource);
  }

  /** The person and document a User input makes, keeping what SCIM does not say (groups, Slack users, delegation). */
  #mapped(
    id: string,
    input: ScimUserInput,
    held: Person | undefined,
    created: string,
  ): { person: Person; doc: UserDoc } {
    const emails: UserDoc['emails'] = [];
    for (const email of input.emails ?? []) {
      if (!emailAddress.safeParse(email.value).success) {
        throw new ScimProblem(400, `The email ${JSON.stringify(email.value)} is not an address.`, 'invalidValue');
      }
      if (emails.some((kept) => foldEmail(kept.value) === foldEmail(email.value))) continue;
      emails.push({
        value: email.value,
        ...(typeof email.type === 'string' ? { type: email.type } : {}),
        ...(email.primary === true ? { primary: true } : {}),
      });
    }
    const name = input.name ?? undefined;
    const personName =
      nonEmpty(input.displayName) ??
      nonEmpty(name?.formatted) ??
      nonEmpty([name?.givenName, name?.familyName].filter(nonEmpty).join(' ')) ??
      input.userName;
    const extension = input[URN.enterprise];
    const managerGiven = extension?.manager;
    const manager = typeof managerGiven === 'string' ? managerGiven : (managerGiven?.value ?? undefined);
    const externalId = input.externalId ?? undefined;
    const person: Person = {
      id,
      name: personName.slice(0, LIMITS.directory.nameChars),
      emails: emails.map((email) => email.value),
      subjects: externalId === undefined ? [] : [externalId],
      slack: held?.slack ?? [],
      groups: held?.groups ?? [],
      active: input.active ?? true,
      tenant: this.tenant,
      ...(manager === undefined || manager === '' ? {} : { manager }),
      ...(held?.delegation === undefined ? {} : { delegation: held.delegation }),
    };
    const doc: UserDoc = {
      userName: input.userName,
      ...(externalId === undefined ? {} : { externalId }),
      ...(name === undefined ? {} : { name: plainName(name) }),
      ...(nonEmpty(input.displayName) === undefined ? {} : { displayName: input.displayName as string }),
      emails,
      created,
      lastModified: this.nowIso(),
    };
    return { person, doc };
  }

  async create(body: unknown): Promise<ScimAnswer> {
    const input = this.parse(body);
    const id = randomUUID();
    const { person, doc } = this.#mapped(id, input, undefined, this.nowIso());
    await this.#managerKnown(person);
    const { documents, directory } = this.keep;
    // The document first: one whose person is never written is no User, and frees its name once found stale.
    await this.#freeStaleName(input.userName);
    const put = await documents.putDocument(this.tenant, 'User', id, { ...doc }, doc.userName, undefined);
    if (put !== 'written') throw this.#nameTaken(input.userName);
    let created: Awaited<ReturnType<DirectoryStore['create']>>;
    try {
      created = await directory.create(person);
    } catch (error) {
      await documents.deleteDocument(this.tenant, 'User', id);
      throw error;
    }
    if (isConflict(created)) {
      await documents.deleteDocument(this.tenant, 'User', id);
      throw new ScimProblem(409, `This User cannot be created: ${conflictText(created)}.`, 'uniqueness');
    }
    return ok(await this.get(id), 201);
  }

  async replace(id: string, body: unknown): Promise<ScimAnswer> {
    const input = this.parse(body);
    const held = await this.keep.documents.document(this.tenant, 'User', id);
    if (held === undefined) throw notFound(`Users/${id}`);
    return this.write(id, input, held);
  }

  protected async write(id: string, input: ScimUserInput, held: KeptDocument): Promise<ScimAnswer> {
    const { documents, directory } = this.keep;
    const before = await directory.get(this.tenant, id);
    if (before === undefined) throw notFound(`Users/${id}`);
    const heldDoc = held.doc as unknown as UserDoc;
    const { person, doc } = this.#mapped(id, input, before, heldDoc.created);
    await this.#managerKnown(person);
    const holder = await documents.named(this.tenant, 'User', input.userName);
    if (holder !== undefined && holder !== id) throw this.#nameTaken(input.userName);
    // The person first (its identities' conflicts refuse here, changing nothing), then the document; a document
    // refused puts the person back as it was.
    const replaced = await directory.replace(person);
    if (replaced === 'missing') throw notFound(`Users/${id}`);
    if (isConflict(replaced)) {
      throw new ScimProblem(409, `This User cannot be changed so: ${conflictText(replaced)}.`, 'uniqueness');
    }
    const put = await documents.putDocument(this.tenant, 'User', id, { ...doc }, doc.userName, held.rev);
    if (put !== 'written') {
      await directory.replace(before);
      if (put === 'stale') throw new ScimProblem(409, 'The User was changed meanwhile; read it and retry.');
      throw this.#nameTaken(input.userName);
    }
    return ok(await this.get(id));
  }

  async delete(id: string): Promise<ScimAnswer> {
    const { documents, directory } = this.keep;
    const [held, person] = await Promise.all([
      documents.document(this.tenant, 'User', id),
      directory.get(this.tenant, id),
    ]);
    if (held === undefined && person === undefined) throw notFound(`Users/${id}`);
    // The person first: from this moment they decide nothing.
    await directory.delete(this.tenant, id);
    await documents.deleteDocument(this.tenant, 'User', id);
    return { status: 204 };
  }

  /** A manager names a User of the tenant, and not the person themselves (their schema says it too). */
  async #managerKnown(person: Person): Promise<void> {
    if (person.manager === undefined || person.manager === person.id) return;
    if ((await this.keep.directory.get(this.tenant, person.manager)) === undefined) {
      throw new ScimProblem(
        400,
        `The manager ${JSON.stringify(person.manager)} is no User of this directory.`,
        'invalidValue',
      );
    }
  }

  /** A userName held by a document whose person was never written, long enough ago, is freed. */
  async #freeStaleName(userName: string): Promise<void> {
    const holder = await this.keep.documents.named(this.tenant, 'User', userName);
    if (holder === undefined) return;
    const [held, person] = await Promise.all([
      this.keep.documents.document(this.tenant, 'User', holder),
      this.keep.directory.get(this.tenant, holder),
    ]);
    const created = Date.parse(String(held?.doc.created));
    if (person === undefined && (this.request.now ?? Date.now)() - created > STALE_DOCUMENT_MS) {
      await this.keep.documents.deleteDocument(this.tenant, 'User', holder);
    }
  }

  #nameTaken(userName: string): ScimProblem {
    return new ScimProblem(409, `The userName ${JSON.stringify(userName)} is another User's.`, 'uniqueness');
  }
}

/** How old a User's document without its person must be before its userName is freed: longer than any create. */
const STALE_DOCUMENT_MS = 5 * 60_000;

/** A structured name's parts Handback keeps, each a string. */
function plainName(name: NonNullable<ScimUserInput['name']>): NonNullable<UserDoc['name']> {
  return Object.fromEntries(
    (['formatted', 'givenName', 'familyName'] as const)
      .map((part) => [part, name[part]] as const)
      .filter((entry): entry is readonly [(typeof entry)[0], string] => typeof entry[1] === 'string'),
  );
}
