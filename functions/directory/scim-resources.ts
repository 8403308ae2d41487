import { type ScimPatchOperation, scimPatch } from 'scim-patch';
import { type Filter, filter as matches, parse as parseFilter } from 'scim2-parse-filter';
import { parseInput } from '../inputs.ts';
import type { DirectoryDocuments, KeptDocument } from './documents.ts';
import type { DirectoryStore } from './port.ts';
import { MAX_RESULTS } from './scim-discovery.ts';
import { scimPatchOp, URN } from './scim-inputs.ts';

/**
 * What SCIM's resources share (§20, RFC 7643/7644): the request and answer, the SCIM Error, a ListResponse and its
 * paging, filters and projections, and the five operations a resource kind answers (`Resources`), which
 * `scim-users.ts` and `scim-groups.ts` implement; `scim.ts` routes a request to them.
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

/** An RFC 7644 section 3.4.2 ListResponse. */
export function listResponse(resources: object[], total: number, startIndex: number) {
  return {
    schemas: [URN.list],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/** A SCIM answer of `body`, 200 unless told. */
export const ok = (body: object, status = 200): ScimAnswer => ({ status, body });
/** The 404 SCIM Error for a resource there is none of. */
export const notFound = (what: string) => new ScimProblem(404, `No resource ${what}.`);

/** `startIndex` and `count` (RFC 7644 section 3.4.2.4): 1-based, a count cut to `MAX_RESULTS`. */
export function pageOf(query: ScimRequest['query']): { start: number; count: number } {
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
export function filterOf(query: ScimRequest['query']): Filter | undefined {
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
export function equality(
  filter: Filter | undefined,
  attributes: readonly string[],
): { at: string; value: string } | undefined {
  if (filter?.op !== 'eq' || typeof filter.compValue !== 'string') return undefined;
  const at = attributes.find((name) => name.toLowerCase() === filter.attrPath.toLowerCase());
  return at === undefined ? undefined : { at, value: filter.compValue };
}

/** `attributes` / `excludedAttributes` (RFC 7644 section 3.4.2.5), on top-level attributes; id, schemas and meta stay. */
export function projected(resource: Record<string, unknown>, query: ScimRequest['query']): Record<string, unknown> {
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
export abstract class Resources<Input> {
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

/** The enterprise manager's attribute path, in lower case. */
export const MANAGER_PATH = `${URN.enterprise}:manager`.toLowerCase();

/**
 * An operation as `scim-patch` applies it: a manager given as its id alone (as Entra ID sends it) is the complex
 * attribute RFC 7643 defines, `{value}`.
 */
export function normalised(operation: ScimPatchOperation): ScimPatchOperation {
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
export function removedMembers(
  resource: Record<string, unknown>,
  operation: ScimPatchOperation,
): Record<string, unknown> | undefined {
  const { path, value } = operation as { path?: string; value?: unknown };
  if (operation.op !== 'remove' || path?.toLowerCase() !== 'members' || !Array.isArray(value)) return undefined;
  const removed = new Set(value.map((member) => (member as { value?: unknown } | null)?.value));
  const members = Array.isArray(resource.members) ? (resource.members as Array<{ value?: unknown }>) : [];
  return { ...resource, members: members.filter((member) => !removed.has(member.value)) };
}

/** Whether `value` is a string. */
export const isString = (value: unknown): value is string => typeof value === 'string';

/** `text` when it holds more than white space, else undefined. */
export function nonEmpty(text: string | null | undefined): string | undefined {
  return typeof text === 'string' && text.trim() !== '' ? text : undefined;
}
