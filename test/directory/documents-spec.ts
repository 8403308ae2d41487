import { describe, expect, it } from 'vitest';
import type { DirectoryDocuments } from '../../functions/directory/documents.ts';

/** SCIM's documents (§20), one suite for the memory and the table's. */
export function documentsSpec(name: string, create: () => DirectoryDocuments): void {
  describe(`SCIM documents on ${name}`, () => {
    const tenant = () => `tenant-${crypto.randomUUID()}`;

    it('writes, reads, lists and deletes a document, its name unique (a userName folded)', async () => {
      const documents = create();
      const t = tenant();
      expect(
        await documents.putDocument(t, 'User', 'u1', { userName: 'Ann@Example.com' }, 'Ann@Example.com', undefined),
      ).toBe('written');
      expect(await documents.document(t, 'User', 'u1')).toMatchObject({ doc: { userName: 'Ann@Example.com' } });
      expect(await documents.named(t, 'User', 'ann@example.COM')).toBe('u1');
      expect(
        await documents.putDocument(t, 'User', 'u2', { userName: 'ann@example.com' }, 'ann@example.com', undefined),
      ).toEqual({ nameHeldBy: 'u1' });
      expect(await documents.document(t, 'User', 'u2')).toBeUndefined();
      expect((await documents.documents(t, 'User')).map((one) => one.id)).toEqual(['u1']);
      // Groups' names are exact; kinds and tenants apart.
      expect(await documents.putDocument(t, 'Group', 'g1', { displayName: 'Fin' }, 'Fin', undefined)).toBe('written');
      expect(await documents.named(t, 'Group', 'fin')).toBeUndefined();
      expect(await documents.named(`${t}-other`, 'User', 'ann@example.com')).toBeUndefined();
      await documents.deleteDocument(t, 'User', 'u1');
      expect(await documents.document(t, 'User', 'u1')).toBeUndefined();
      expect(await documents.named(t, 'User', 'ann@example.com')).toBeUndefined();
      expect(
        await documents.putDocument(t, 'User', 'u2', { userName: 'ann@example.com' }, 'ann@example.com', undefined),
      ).toBe('written');
    });

    it('changes a document only at the revision read, and frees a name it gave up', async () => {
      const documents = create();
      const t = tenant();
      await documents.putDocument(t, 'User', 'u1', { userName: 'a' }, 'a', undefined);
      const read = await documents.document(t, 'User', 'u1');
      expect(await documents.putDocument(t, 'User', 'u1', { userName: 'b' }, 'b', read?.rev)).toBe('written');
      expect(await documents.putDocument(t, 'User', 'u1', { userName: 'c' }, 'c', read?.rev)).toBe('stale');
      expect(await documents.putDocument(t, 'User', 'u1', { userName: 'x' }, 'x', undefined)).toBe('stale');
      expect((await documents.document(t, 'User', 'u1'))?.doc).toEqual({ userName: 'b' });
      expect(await documents.named(t, 'User', 'a')).toBeUndefined();
      expect(await documents.putDocument(t, 'User', 'u2', { userName: 'a' }, 'a', undefined)).toBe('written');
    });
  });
}
