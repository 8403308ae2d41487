import { randomUUID } from 'node:crypto';
import type { Filter } from 'scim2-parse-filter';
import { parseInput } from '../inputs.ts';
import type { KeptDocument } from './documents.ts';
import { type ScimGroupInput, scimGroup, URN } from './scim-inputs.ts';
import { equality, isString, notFound, ok, Resources, type ScimAnswer, ScimProblem } from './scim-resources.ts';

/** SCIM's Groups (§20): a Group is a name the persons it holds carry in their `groups`, and a document. */

/** A Group's document. */
interface GroupDoc {
  displayName: string;
  externalId?: string;
  created: string;
  lastModified: string;
}

/** Groups (RFC 7644 section 3): a name the persons it holds carry, and a document. */
export class Groups extends Resources<ScimGroupInput> {
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
