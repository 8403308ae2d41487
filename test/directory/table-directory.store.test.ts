import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { MemoryDocuments } from '../../functions/directory/documents.ts';
import { CLAIM_STALE_MS, TableDirectory } from '../../functions/directory/table-directory.ts';
import { tableDirectoryOnFirstUse } from '../../functions/directory/table-directory-lazy.ts';
import { DirectoryKeys, keyOf } from '../../functions/directory/table-params.ts';
import { directorySpec, personOf } from '../../functions/testing/index.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { documentsSpec } from './documents-spec.ts';

const table = useTestTable();

directorySpec({
  name: 'the table-kept directory (dynalite)',
  create: () => new TableDirectory({ client: table.client, tableName: table.tableName }),
});

documentsSpec(
  'the table-kept documents (dynalite)',
  () => new TableDirectory({ client: table.client, tableName: table.tableName }),
);
documentsSpec('the memory documents', () => new MemoryDocuments());
directorySpec({
  name: 'the table-kept directory loaded on first use (dynalite)',
  create: () => tableDirectoryOnFirstUse(table.client, table.tableName),
});

describe('the table-kept directory without transactions', () => {
  const tenant = () => `tenant-${crypto.randomUUID()}`;

  it('finds no one by a claim its holder does not hold (a writer stopped before writing the person)', async () => {
    const directory = new TableDirectory({ client: table.client, tableName: table.tableName });
    const t = tenant();
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...keyOf(t, DirectoryKeys.claim({ subject: 'u-ann' })), holder: 'ann', rev: 1, at: Date.now() },
      }),
    );
    expect(await directory.find(t, { subject: 'u-ann' })).toBeUndefined();
    // Fresh, it may be a writer still writing: refused to another.
    expect(await directory.create(personOf(t, { id: 'bob', emails: [], slack: [] }))).toMatchObject({
      conflict: 'subject',
      heldBy: 'ann',
    });
    expect(await directory.get(t, 'bob')).toBeUndefined();
    // Ann herself takes it at once.
    expect(await directory.create(personOf(t))).toBe('created');
    expect((await directory.find(t, { subject: 'u-ann' }))?.id).toBe('ann');
  });

  it('takes over a claim left behind once it is older than any write takes, and not before', async () => {
    let nowMs = Date.parse('2030-01-01T00:00:00Z');
    const directory = new TableDirectory({ client: table.client, tableName: table.tableName, now: () => nowMs });
    const t = tenant();
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...keyOf(t, DirectoryKeys.claim({ email: 'ann@example.com' })), holder: 'ghost', rev: 1, at: nowMs },
      }),
    );
    const bob = personOf(t, { id: 'bob', subjects: [], slack: [], emails: ['Ann@example.com'] });
    nowMs += CLAIM_STALE_MS - 1;
    expect(await directory.create(bob)).toMatchObject({ conflict: 'email', heldBy: 'ghost' });
    nowMs += 1;
    expect(await directory.create(bob)).toBe('created');
    expect((await directory.find(t, { email: 'ann@example.com' }))?.id).toBe('bob');
  });

  it('lets one of two persons created at once with one email have it', async () => {
    const directory = new TableDirectory({ client: table.client, tableName: table.tableName });
    const t = tenant();
    const answers = await Promise.all(
      ['a', 'b', 'c', 'd'].map((id) => directory.create(personOf(t, { id, subjects: [], slack: [] }))),
    );
    expect(answers.filter((answer) => answer === 'created')).toHaveLength(1);
    const holder = (await directory.find(t, { email: 'ann@example.com' }))?.id;
    const kept = await Promise.all(['a', 'b', 'c', 'd'].map((id) => directory.get(t, id)));
    expect(kept.filter((person) => person !== undefined).map((person) => person?.id)).toEqual([holder]);
  });

  it('keeps every one of many concurrent patches of one person (linearised by revision)', async () => {
    const directory = new TableDirectory({ client: table.client, tableName: table.tableName });
    const t = tenant();
    await directory.create(personOf(t, { groups: [] }));
    await Promise.all(['g1', 'g2', 'g3', 'g4'].map((group) => directory.addToGroup(t, group, ['ann'])));
    expect((await directory.get(t, 'ann'))?.groups.sort()).toEqual(['g1', 'g2', 'g3', 'g4']);
    for (const group of ['g1', 'g4']) {
      expect((await directory.members(t, group)).map((person) => person.id)).toEqual(['ann']);
    }
  });
});
