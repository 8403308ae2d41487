/**
 * What a SCIM source keeps beside the persons (§20): each resource's own fields that a `Person` does not hold — a
 * User's `userName`, `externalId` and structured name, a Group's `displayName` and `externalId` — as a JSON document
 * per resource, with a name unique in its tenant and kind (a User's `userName`, ASCII case folded, as RFC 7643 says it
 * is not case-exact; a Group's `displayName`). `table-directory.ts` keeps them in the table beside the persons,
 * `MemoryDocuments` in memory for tests.
 */

/** The SCIM resource types kept. */
export type DocumentKind = 'User' | 'Group';

/** A document as kept: its fields, and the revision a write must name to change it. */
export interface KeptDocument {
  doc: Record<string, unknown>;
  rev: number;
}

/** Why a document's write was refused: its name is another's, or it changed since it was read. */
export type DocumentRefusal = { nameHeldBy: string } | 'stale';

/** The documents of a directory's SCIM source. */
export interface DirectoryDocuments {
  /** The document of `kind` with this id, or undefined. */
  document(tenant: string, kind: DocumentKind, id: string): Promise<KeptDocument | undefined>;
  /** Every document of `kind` in `tenant`, by id. */
  documents(tenant: string, kind: DocumentKind): Promise<Array<{ id: string; doc: Record<string, unknown> }>>;
  /** The id of the document whose name is `name`, or undefined. */
  named(tenant: string, kind: DocumentKind, name: string): Promise<string | undefined>;
  /**
   * Writes a document named `name`: a new one when `expected` is undefined, else over that revision. Refused when
   * another holds the name, or it changed since it was read; a refused write changes nothing.
   */
  putDocument(
    tenant: string,
    kind: DocumentKind,
    id: string,
    doc: Record<string, unknown>,
    name: string,
    expected: number | undefined,
  ): Promise<'written' | DocumentRefusal>;
  /** Removes a document and frees its name. */
  deleteDocument(tenant: string, kind: DocumentKind, id: string): Promise<void>;
}

/** A SCIM name as it is unique: a userName folded as an email is (RFC 7643: not case-exact), a group's as given. */
export function uniqueName(kind: DocumentKind, name: string): string {
  return kind === 'User' ? name.replace(/[A-Z]/g, (letter) => letter.toLowerCase()) : name;
}

/** The documents in memory: for tests and the memory directory. */
export class MemoryDocuments implements DirectoryDocuments {
  readonly #docs = new Map<string, { doc: Record<string, unknown>; rev: number; name: string }>();
  readonly #names = new Map<string, string>();

  async document(tenant: string, kind: DocumentKind, id: string): Promise<KeptDocument | undefined> {
    const held = this.#docs.get(key(tenant, kind, id));
    return held === undefined ? undefined : { doc: structuredClone(held.doc), rev: held.rev };
  }

  async documents(tenant: string, kind: DocumentKind): Promise<Array<{ id: string; doc: Record<string, unknown> }>> {
    const prefix = key(tenant, kind, '');
    return [...this.#docs]
      .filter(([at]) => at.startsWith(prefix))
      .map(([at, { doc }]) => ({ id: at.slice(prefix.length), doc: structuredClone(doc) }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async named(tenant: string, kind: DocumentKind, name: string): Promise<string | undefined> {
    return this.#names.get(key(tenant, kind, uniqueName(kind, name)));
  }

  async putDocument(
    tenant: string,
    kind: DocumentKind,
    id: string,
    doc: Record<string, unknown>,
    name: string,
    expected: number | undefined,
  ): Promise<'written' | DocumentRefusal> {
    const at = key(tenant, kind, id);
    const held = this.#docs.get(at);
    if ((expected === undefined && held !== undefined) || (expected !== undefined && held?.rev !== expected)) {
      return 'stale';
    }
    const nameKey = key(tenant, kind, uniqueName(kind, name));
    const holder = this.#names.get(nameKey);
    if (holder !== undefined && holder !== id) return { nameHeldBy: holder };
    if (held !== undefined) this.#names.delete(key(tenant, kind, held.name));
    this.#names.set(nameKey, id);
    this.#docs.set(at, { doc: structuredClone(doc), rev: (held?.rev ?? 0) + 1, name: uniqueName(kind, name) });
    return 'written';
  }

  async deleteDocument(tenant: string, kind: DocumentKind, id: string): Promise<void> {
    const at = key(tenant, kind, id);
    const held = this.#docs.get(at);
    if (held === undefined) return;
    this.#docs.delete(at);
    this.#names.delete(key(tenant, kind, held.name));
  }
}

const key = (tenant: string, kind: string, rest: string) => `${tenant}\u0000${kind}\u0000${rest}`;
