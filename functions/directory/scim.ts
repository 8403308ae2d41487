import { randomUUID } from 'node:crypto';
import { ScimError as ScimPatchError, type ScimPatchOperation, scimPatch } from 'scim-patch';
import { type Filter, filter as matches, parse as parseFilter } from 'scim2-parse-filter';
import { BadRequestError } from '../errors.ts';
import { emailAddress, foldEmail } from '../fields.ts';
import { parseInput } from '../inputs.ts';
import { LIMITS } from '../vocabulary.ts';
import type { Person } from '../wire.ts';
import type { DirectoryDocuments, KeptDocument } from './documents.ts';
import { conflictText, type DirectoryStore, isConflict } from './port.ts';
import { MAX_RESULTS, resourceTypes, schemas, serviceProviderConfig } from './scim-discovery.ts';
import { type ScimGroupInput, type ScimUserInput, scimGroup, scimPatchOp, scimUser, URN } from './scim-inputs.ts';

/**
 * SCIM 2.0 (RFC 7643/7644) over the directory (§20): Users and Groups created, read, listed with a filter, replaced,
 * patched and deleted, and the discovery resources, for one tenant. A User is a `Person` (its id; `displayName` or
 * its name as the person's name; its emails; its `externalId` as the person's issuer subject; `active`; the
 * enterprise extension's `manager`) and a document of what a person does not hold (`userName`, the structured name,
 * the emails' types); a Group is a name the persons it holds carry in their `groups`, and a document. Filters are
 * parsed by `scim2-parse-filter`, patches applied by `scim-patch` to the resource as it is served and the result read
 * as a replacement is: one mapping for PUT and PATCH. Every answer is a SCIM body or a SCIM Error; what is refused
 * changes nothing.
 */

/** The media type of every SCIM body (RFC 7644 section 3.1). */
export const SCIM_MEDIA_TYPE = 'application/scim+json';

/** What SCIM keeps: the directory's persons, and the resources' documents beside them. */
export interface ScimKeep {
  directory: DirectoryStore;
  documents: DirectoryDocuments;
}

/** One SCIM request, as the edge read it. */
export interface ScimRequest {
  tenant: string;
  method: string;
  /** The path under `/scim/v2`, e.g. `/Users/123`. */
  path: string;
  query: Readonly<Record<string, string | undefined>>;
  /** The parsed JSON body, for POST, PUT and PATCH. */
  body?: unknown;
  /** The absolute URL of `/scim/v2`, for `meta.location`. */
  base: string;
  /** The clock. @default Date.now */
  now?: () => number;
}

/** A SCIM answer: its status and body (none for 204). */
export interface ScimAnswer {
  status: number;
  body?: object;
  headers?: Record<string, string>;
}

/** A SCIM Error (RFC 7644 section 3.12): its status, `scimType` where the RFC names one, and detail. */
export class ScimProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly scimType?: string,
  ) {
    super(message);
  }
}

/** An RFC 7644 section 3.12 error body: `status` is a string. */
export function errorBody(status: number, detail: string, scimType?: string) {
  return { schemas: [URN.error], status: String(status), ...(scimType === undefined ? {} : { scimType }), detail };
}

/** Answers one SCIM request. */
export async function scimRequest(keep: ScimKeep, request: ScimRequest): Promise<ScimAnswer> {
  try {
    return await route(keep, request);
  } catch (error) {
    if (error instanceof ScimProblem) {
      return { status: error.status, body: errorBody(error.status, error.message, error.scimType) };
    }
    if (error instanceof BadRequestError) return { status: 400, body: errorBody(400, error.message, 'invalidValue') };
    if (error instanceof ScimPatchError) {
      return { status: 400, body: errorBody(400, error.message, error.scimCode) };
    }
    throw error;
  }
}

async function route(keep: ScimKeep, request: ScimRequest): Promise<ScimAnswer> {
  const segments = request.path.split('/').filter((segment) => segment !== '');
  const [resource, id, ...rest] = segments.map((segment) => safeDecode(segment));
  const { method } = request;
  const only = (allowed: string, answer: () => Promise<ScimAnswer> | ScimAnswer) => {
    if (method !== allowed) throw new ScimProblem(405, `${method} is not allowed on ${request.path}; use ${allowed}.`);
    return answer();
  };
  if (rest.length > 0 || resource === undefined) throw notFound(request.path);
  const users = new Users(keep, request);
  const groups = new Groups(keep, request);
  switch (resource) {
    case 'ServiceProviderConfig':
      if (id !== undefined) throw notFound(request.path);
      return only('GET', () => ok(serviceProviderConfig(request.base)));
    case 'ResourceTypes':
      return only('GET', () => discovery(resourceTypes(request.base), id, request.path));
    case 'Schemas':
      return only('GET', () => discovery(schemas(request.base), id, request.path));
    case 'Users':
    case 'Groups': {
      const kind = resource === 'Users' ? users : groups;
      if (id === undefined) {
        if (method === 'GET') return kind.list();
        return only('POST', () => kind.create(request.body));
      }
      switch (method) {
        case 'GET':
          return ok(projected(await kind.get(id), request.query));
        case 'PUT':
          return kind.replace(id, request.body);
        case 'PATCH':
          return kind.patch(id, request.body);
        case 'DELETE':
          return kind.delete(id);
        default:
          throw new ScimProblem(405, `${method} is not allowed on ${request.path}; use GET, PUT, PATCH or DELETE.`);
      }
    }
    default:
      throw notFound(request.path);
  }
}

/** A discovery listing, or one of its resources by id. */
function discovery(resources: Array<{ id: string }>, id: string | undefined, path: string): ScimAnswer {
  if (id === undefined) return ok(listResponse(resources, resources.length, 1));
  const found = resources.find((resource) => resource.id === id);
  if (found === undefined) throw notFound(path);
  return ok(found);
}

/** An RFC 7644 section 3.4.2 ListResponse. */
function listResponse(resources: object[], total: number, startIndex: number) {
  return {
    schemas: [URN.list],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

const ok = (body: object, status = 200): ScimAnswer => ({ status, body });
const notFound = (what: string) => new ScimProblem(404, `No resource ${what}.`);

/** `startIndex` and `count` (RFC 7644 section 3.4.2.4): 1-based, a count cut to `MAX_RESULTS`. */
function pageOf(query: ScimRequest['query']): { start: number; count: number } {
  const number = (name: string, fallback: number) => {
    const given = query[name];
    if (given === undefined || given === '') return fallback;
    if (!/^-?\d{1,9}$/.test(given)) throw new ScimProblem(400, `${name} must be an integer.`, 'invalidValue');
    return Number(given);
  };
  return {
    start: Math.max(1, number('startIndex', 1)),
    count: Math.min(MAX_RESULTS, Math.max(0, number('count', 100))),
  };
}

/** The request's `filter`, parsed (400 `invalidFilter` naming what is wrong), or undefined. */
function filterOf(query: ScimRequest['query']): Filter | undefined {
  const given = query.filter;
  if (given === undefined || given === '') return undefined;
  if (given.length > 4096) throw new ScimProblem(400, 'The filter is over 4,096 characters.', 'invalidFilter');
  try {
    return parseFilter(given);
  } catch (error) {
    throw new ScimProblem(400, `The filter cannot be read: ${(error as Error).message}`, 'invalidFilter');
  }
}

/** A filter that is `<attribute> eq "<text>"` on one of `attributes` (any case): the attribute and the text. */
function equality(
  filter: Filter | undefined,
  attributes: readonly string[],
): { at: string; value: string } | undefined {
  if (filter?.op !== 'eq' || typeof filter.compValue !== 'string') return undefined;
  const at = attributes.find((name) => name.toLowerCase() === filter.attrPath.toLowerCase());
  return at === undefined ? undefined : { at, value: filter.compValue };
}

/** `attributes` / `excludedAttributes` (RFC 7644 section 3.4.2.5), on top-level attributes; id, schemas and meta stay. */
function projected(resource: Record<string, unknown>, query: ScimRequest['query']): Record<string, unknown> {
  const names = (text: string | undefined) =>
    text === undefined || text === ''
      ? undefined
      : new Set(text.split(',').map((name) => name.trim().split('.')[0]?.toLowerCase() ?? ''));
  const kept = names(query.attributes);
  const dropped = names(query.excludedAttributes);
  const always = new Set(['id', 'schemas', 'meta']);
  return Object.fromEntries(
    Object.entries(resource).filter(
      ([name]) =>
        always.has(name) || ((kept === undefined || kept.has(name.toLowerCase())) && !dropped?.has(name.toLowerCase())),
    ),
  );
}

/** What a resource kind answers: the same five operations for Users and Groups. */
abstract class Resources<Input> {
  constructor(
    protected readonly keep: ScimKeep,
    protected readonly request: ScimRequest,
  ) {}

  protected get tenant() {
    return this.request.tenant;
  }

  protected nowIso(): string {
    return new Date((this.request.now ?? Date.now)()).toISOString();
  }

  abstract get(id: string): Promise<Record<string, unknown>>;
  abstract create(body: unknown): Promise<ScimAnswer>;
  abstract replace(id: string, body: unknown): Promise<ScimAnswer>;
  abstract delete(id: string): Promise<ScimAnswer>;
  /** The ids a filter may match: a few by an index for an equality the kind knows, else every one. */
  protected abstract candidates(filter: Filter | undefined): Promise<string[]>;
  /** The input a served resource reads as, for PATCH. */
  protected abstract inputOf(resource: Record<string, unknown>): unknown;
  protected abstract write(id: string, input: Input, held: KeptDocument): Promise<ScimAnswer>;
  protected abstract parse(body: unknown): Input;

  async list(): Promise<ScimAnswer> {
    const filter = filterOf(this.request.query);
    const { start, count } = pageOf(this.request.query);
    const resources: Record<string, unknown>[] = [];
    for (const id of await this.candidates(filter)) {
      const resource = await this.get(id).catch((error: unknown) => {
        if (error instanceof ScimProblem && error.status === 404) return undefined;
        throw error;
      });
      if (resource !== undefined && (filter === undefined || this.matches(filter, resource))) {
        resources.push(resource);
      }
    }
    const page = resources.slice(start - 1, start - 1 + count).map((one) => projected(one, this.request.query));
    return ok(listResponse(page, resources.length, start));
  }

  /** Whether a served resource meets `filter`: the library's, after an equality the kind answered by its index. */
  protected matches(filter: Filter, resource: Record<string, unknown>): boolean {
    return matches(filter)(resource);
  }

  async patch(id: string, body: unknown): Promise<ScimAnswer> {
    const patch = parseInput(scimPatchOp, body, 'PatchOp');
    const held = await this.keep.documents.document(this.tenant, this.kindName, id);
    if (held === undefined) throw notFound(`${this.kindName}s/${id}`);
    const served = await this.get(id);
    let patched = structuredClone(served);
    for (const given of patch.Operations) {
      const operation = normalised({ ...given, op: given.op.toLowerCase() } as ScimPatchOperation);
      patched =
        removedMembers(patched, operation) ??
        (scimPatch(patched as never, [operation]) as unknown as Record<string, unknown>);
    }
    return this.write(id, this.parse(this.inputOf(patched)), held);
  }

  protected abstract readonly kindName: 'User' | 'Group';
}

/** A User's document: what a person does not hold. */
interface UserDoc {
  userName: string;
  externalId?: string;
  name?: { formatted?: string; givenName?: string; familyName?: string };
  displayName?: string;
  emails: Array<{ value: string; type?: string; primary?: boolean }>;
  created: string;
  lastModified: string;
}

/** Users (RFC 7644 section 3): persons and their documents. */
class Users extends Resources<ScimUserInput> {
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

/** A Group's document. */
interface GroupDoc {
  displayName: string;
  externalId?: string;
  created: string;
  lastModified: string;
}

/** Groups (RFC 7644 section 3): a name the persons it holds carry, and a document. */
class Groups extends Resources<ScimGroupInput> {
  protected readonly kindName = 'Group' as const;

  protected parse(body: unknown): ScimGroupInput {
    return parseInput(scimGroup, body, 'Group');
  }

  async get(id: string): Promise<Record<string, unknown>> {
    const held = await this.keep.documents.document(this.tenant, 'Group', id);
    if (held === undefined) throw notFound(`Groups/${id}`);
    const doc = held.doc as unknown as GroupDoc;
    const { base } = this.request;
    const members = await this.keep.directory.members(this.tenant, doc.displayName);
    return {
      schemas: [URN.group],
      id,
      ...(doc.externalId === undefined ? {} : { externalId: doc.externalId }),
      displayName: doc.displayName,
      members: members.map((person) => ({
        value: person.id,
        display: person.name,
        $ref: `${base}/Users/${encodeURIComponent(person.id)}`,
      })),
      meta: {
        resourceType: 'Group',
        created: doc.created,
        lastModified: doc.lastModified,
        location: `${base}/Groups/${encodeURIComponent(id)}`,
      },
    };
  }

  protected inputOf(resource: Record<string, unknown>): unknown {
    const { meta: _, id: __, schemas: ___, ...input } = resource;
    return input;
  }

  protected async candidates(filter: Filter | undefined): Promise<string[]> {
    const eq = equality(filter, ['displayName', 'id']);
    if (eq?.at === 'displayName') {
      return [await this.keep.documents.named(this.tenant, 'Group', eq.value)].filter(isString);
    }
    if (eq?.at === 'id') return [eq.value];
    return (await this.keep.documents.documents(this.tenant, 'Group')).map((one) => one.id);
  }

  /** The members' ids, each a User of the tenant (400 naming those that are not). */
  async #memberIds(input: ScimGroupInput): Promise<string[]> {
    const ids = [...new Set((input.members ?? []).map((member) => member.value))];
    const found = await Promise.all(ids.map((id) => this.keep.directory.get(this.tenant, id)));
    const unknown = ids.filter((_, index) => found[index] === undefined);
    if (unknown.length > 0) {
      throw new ScimProblem(
        400,
        `No User ${unknown
          .slice(0, 5)
          .map((id) => JSON.stringify(id))
          .join(
            ', ',
          )}${unknown.length > 5 ? ` (and ${unknown.length - 5} more)` : ''}: a member must be a User of this directory.`,
        'invalidValue',
      );
    }
    return ids;
  }

  async create(body: unknown): Promise<ScimAnswer> {
    const input = this.parse(body);
    const members = await this.#memberIds(input);
    const id = randomUUID();
    const now = this.nowIso();
    const doc: GroupDoc = {
      displayName: input.displayName,
      ...(input.externalId == null ? {} : { externalId: input.externalId }),
      created: now,
      lastModified: now,
    };
    const put = await this.keep.documents.putDocument(this.tenant, 'Group', id, { ...doc }, doc.displayName, undefined);
    if (put !== 'written') throw this.#nameTaken(input.displayName);
    await this.keep.directory.addToGroup(this.tenant, doc.displayName, members);
    return ok(await this.get(id), 201);
  }

  async replace(id: string, body: unknown): Promise<ScimAnswer> {
    const input = this.parse(body);
    const held = await this.keep.documents.document(this.tenant, 'Group', id);
    if (held === undefined) throw notFound(`Groups/${id}`);
    return this.write(id, input, held);
  }

  protected async write(id: string, input: ScimGroupInput, held: KeptDocument): Promise<ScimAnswer> {
    const before = held.doc as unknown as GroupDoc;
    const members = await this.#memberIds(input);
    const doc: GroupDoc = {
      displayName: input.displayName,
      ...(input.externalId == null ? {} : { externalId: input.externalId }),
      created: before.created,
      lastModified: this.nowIso(),
    };
    const { directory, documents } = this.keep;
    const put = await documents.putDocument(this.tenant, 'Group', id, { ...doc }, doc.displayName, held.rev);
    if (put === 'stale') throw new ScimProblem(409, 'The Group was changed meanwhile; read it and retry.');
    if (put !== 'written') throw this.#nameTaken(input.displayName);
    const current = (await directory.members(this.tenant, before.displayName)).map((person) => person.id);
    if (before.displayName !== doc.displayName) {
      // Renamed: every member carries the new name, and no one the old.
      await directory.addToGroup(this.tenant, doc.displayName, members);
      await directory.removeFromGroup(this.tenant, before.displayName, current);
    } else {
      const wanted = new Set(members);
      const now = new Set(current);
      await directory.addToGroup(
        this.tenant,
        doc.displayName,
        members.filter((member) => !now.has(member)),
      );
      await directory.removeFromGroup(
        this.tenant,
        doc.displayName,
        current.filter((member) => !wanted.has(member)),
      );
    }
    return ok(await this.get(id));
  }

  async delete(id: string): Promise<ScimAnswer> {
    const held = await this.keep.documents.document(this.tenant, 'Group', id);
    if (held === undefined) throw notFound(`Groups/${id}`);
    const { displayName } = held.doc as unknown as GroupDoc;
    const members = await this.keep.directory.members(this.tenant, displayName);
    await this.keep.directory.removeFromGroup(
      this.tenant,
      displayName,
      members.map((person) => person.id),
    );
    await this.keep.documents.deleteDocument(this.tenant, 'Group', id);
    return { status: 204 };
  }

  #nameTaken(displayName: string): ScimProblem {
    return new ScimProblem(409, `The displayName ${JSON.stringify(displayName)} is another Group's.`, 'uniqueness');
  }
}

/** The enterprise manager's attribute path, in lower case. */
const MANAGER_PATH = `${URN.enterprise}:manager`.toLowerCase();

/**
 * An operation as `scim-patch` applies it: a manager given as its id alone (as Entra ID sends it) is the complex
 * attribute RFC 7643 defines, `{value}`.
 */
function normalised(operation: ScimPatchOperation): ScimPatchOperation {
  const { path, value } = operation as { path?: string; value?: unknown };
  if (operation.op !== 'remove' && path?.toLowerCase() === MANAGER_PATH && typeof value === 'string') {
    return { ...operation, value: { value } } as ScimPatchOperation;
  }
  return operation;
}

/**
 * A `remove` of `members` naming the members to remove as its value (Entra ID's form, RFC 7644 section 3.5.2.2 names only
 * the filter): those members, by `value` alone, removed — `scim-patch` would compare whole members, `display` and
 * `$ref` too. Undefined for any other operation.
 */
function removedMembers(
  resource: Record<string, unknown>,
  operation: ScimPatchOperation,
): Record<string, unknown> | undefined {
  const { path, value } = operation as { path?: string; value?: unknown };
  if (operation.op !== 'remove' || path?.toLowerCase() !== 'members' || !Array.isArray(value)) return undefined;
  const removed = new Set(value.map((member) => (member as { value?: unknown } | null)?.value));
  const members = Array.isArray(resource.members) ? (resource.members as Array<{ value?: unknown }>) : [];
  return { ...resource, members: members.filter((member) => !removed.has(member.value)) };
}

const isString = (value: unknown): value is string => typeof value === 'string';

function nonEmpty(text: string | null | undefined): string | undefined {
  return typeof text === 'string' && text.trim() !== '' ? text : undefined;
}

/** A structured name's parts Handback keeps, each a string. */
function plainName(name: NonNullable<ScimUserInput['name']>): NonNullable<UserDoc['name']> {
  return Object.fromEntries(
    (['formatted', 'givenName', 'familyName'] as const)
      .map((part) => [part, name[part]] as const)
      .filter((entry): entry is readonly [(typeof entry)[0], string] => typeof entry[1] === 'string'),
  );
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ScimProblem(404, `No resource ${segment}.`);
  }
}
