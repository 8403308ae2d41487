import { describe, expect, it } from 'vitest';
import { DirectoryFileError, directoryOfText, readDirectoryFile } from '../../functions/directory/file.ts';
import { LIMITS } from '../../functions/vocabulary.ts';

const file = (people: unknown[]) => JSON.stringify({ people });

describe('a directory file (§20)', () => {
  it('gives each person the defaults: the default tenant, active, no lists', async () => {
    const directory = directoryOfText(file([{ id: 'ann', name: 'Ann', emails: ['ann@example.com'] }]), 'people.json');
    expect(await directory.get(LIMITS.defaultTenant, 'ann')).toEqual({
      id: 'ann',
      name: 'Ann',
      emails: ['ann@example.com'],
      subjects: [],
      slack: [],
      groups: [],
      active: true,
      tenant: LIMITS.defaultTenant,
    });
  });

  it('resolves a delegation to the delegate’s id, named by id or by an email of theirs (folded), in any order', async () => {
    const directory = directoryOfText(
      file([
        { id: 'ann', name: 'Ann', delegation: { to: 'BOB@example.com', until: '2030-01-01T00:00:00Z' } },
        { id: 'cyd', name: 'Cyd', delegation: { to: 'bob', until: '2030-01-01T00:00:00Z', reason: 'Leave' } },
        { id: 'bob', name: 'Bob', emails: ['bob@example.com'] },
      ]),
      'people.json',
    );
    const delegations = await directory.delegations(LIMITS.defaultTenant);
    expect(delegations.map((person) => [person.id, person.delegation?.to])).toEqual([
      ['ann', 'bob'],
      ['cyd', 'bob'],
    ]);
  });

  it('keeps tenants apart: a manager is a person of the same tenant', async () => {
    const text = file([
      { id: 'boss', name: 'Boss', tenant: 'acme' },
      { id: 'ann', name: 'Ann', tenant: 'acme', manager: 'boss' },
      { id: 'ann', name: 'Ann of globex', tenant: 'globex' },
    ]);
    const directory = directoryOfText(text, 'people.json');
    expect((await directory.manager('acme', 'ann'))?.id).toBe('boss');
    expect((await directory.get('globex', 'ann'))?.name).toBe('Ann of globex');
    expect(() =>
      directoryOfText(
        file([
          { id: 'boss', name: 'Boss', tenant: 'acme' },
          { id: 'ann', name: 'Ann', tenant: 'globex', manager: 'boss' },
        ]),
        'people.json',
      ),
    ).toThrow('The directory file people.json at /people/1/manager: names "boss", no person of its tenant.');
  });

  it.each([
    ['not JSON', '{"people": [', 'The directory file people.json: is not JSON'],
    ['without people', '{}', 'The directory file people.json at /people:'],
    ['a field it does not know', file([{ id: 'ann', name: 'Ann', email: 'ann@example.com' }]), 'at /people/0:'],
    ['a bad email', file([{ id: 'ann', name: 'Ann', emails: ['ann at example'] }]), 'at /people/0/emails/0:'],
    [
      'an email twice in one person, folded',
      file([{ id: 'ann', name: 'Ann', emails: ['ann@example.com', 'ANN@example.com'] }]),
      'at /people/0/emails/1: names an email twice',
    ],
    [
      'an email two persons hold',
      file([
        { id: 'ann', name: 'Ann', emails: ['ann@example.com'] },
        { id: 'bob', name: 'Bob', emails: ['Ann@Example.com'] },
      ]),
      'at /people/1: the email "Ann@Example.com" is already "ann"\'s.',
    ],
    [
      'an id twice',
      file([
        { id: 'ann', name: 'Ann' },
        { id: 'ann', name: 'Ann 2' },
      ]),
      'at /people/1: the id "ann" is taken.',
    ],
    [
      'a delegate who is no one',
      file([{ id: 'ann', name: 'Ann', delegation: { to: 'zed', until: '2030-01-01T00:00:00Z' } }]),
      'at /people/0/delegation/to: names "zed", no person of its tenant',
    ],
    [
      'a delegation that ends before it begins',
      file([
        {
          id: 'ann',
          name: 'Ann',
          delegation: { to: 'bob', from: '2030-02-01T00:00:00Z', until: '2030-01-01T00:00:00Z' },
        },
        { id: 'bob', name: 'Bob' },
      ]),
      'at /people/0/delegation: must begin (from) before it ends (until).',
    ],
    [
      'an end that is no date-time',
      file([
        { id: 'ann', name: 'Ann', delegation: { to: 'bob', until: 'next week' } },
        { id: 'bob', name: 'Bob' },
      ]),
      'at /people/0/delegation/until:',
    ],
    [
      'a person who is their own manager',
      file([{ id: 'ann', name: 'Ann', manager: 'ann' }]),
      'at /people/0: names themselves',
    ],
  ])('is refused with %s, naming where', (_what, text, message) => {
    expect(() => directoryOfText(text, 'people.json')).toThrow(DirectoryFileError);
    expect(() => directoryOfText(text, 'people.json')).toThrow(message);
  });

  it('is refused when it cannot be read, naming the file', () => {
    expect(() => readDirectoryFile('no-such-directory.json')).toThrow(
      /^The directory file no-such-directory\.json cannot be read: ENOENT/,
    );
  });
});
