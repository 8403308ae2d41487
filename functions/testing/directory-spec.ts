import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DirectoryStore } from '../directory/port.ts';
import { BadRequestError } from '../errors.ts';
import type { Person } from '../wire.ts';
import type { SpecInitializer } from './persistence-spec.ts';

/**
 * The directory port's behaviour (§20), one suite for every source that keeps persons: `directorySpec(initializer)`
 * runs against the memory directory, the table's (SCIM's), and a user's own (`handback/testing`). Each case works in
 * a tenant of its own, so one backend may serve them all. What a write refuses leaves everything as it was.
 */

/** Ann, of `tenant`, with every kind of identity. */
export function personOf(tenant: string, overrides: Partial<Person> = {}): Person {
  return {
    id: 'ann',
    name: 'Ann Example',
    emails: ['ann@example.com', 'ann.private@example.org'],
    subjects: ['u-ann'],
    slack: [{ team: 'T0TEAM', user: 'U0ANN' }],
    groups: ['finance'],
    active: true,
    tenant,
    ...overrides,
  };
}

/** The directory suite (§20). */
export function directorySpec<T extends DirectoryStore>(initializer: SpecInitializer<T>): void {
  const made: T[] = [];
  beforeAll(async () => {
    await initializer.beforeAll?.();
  });
  afterAll(async () => {
    for (const backend of made) await initializer.destroy?.(backend);
    await initializer.afterAll?.();
  });
  const setup = async () => {
    const directory = await initializer.create();
    made.push(directory);
    return { directory, tenant: `tenant-${randomUUID()}` };
  };

  describe(`the directory (§20) on ${initializer.name}`, () => {
    it('finds a person by id, issuer subject, Slack user and each email', async () => {
      const { directory, tenant } = await setup();
      const ann = personOf(tenant);
      expect(await directory.create(ann)).toBe('created');
      expect(await directory.get(tenant, 'ann')).toEqual(ann);
      for (const key of [
        { subject: 'u-ann' },
        { slack: { team: 'T0TEAM', user: 'U0ANN' } },
        { email: 'ann@example.com' },
        { email: 'ann.private@example.org' },
      ]) {
        expect((await directory.find(tenant, key))?.id, JSON.stringify(key)).toBe('ann');
      }
      expect(await directory.find(tenant, { subject: 'u-bob' })).toBeUndefined();
      expect(await directory.find(tenant, { slack: { team: 'T0OTHER', user: 'U0ANN' } })).toBeUndefined();
      expect(await directory.get(tenant, 'bob')).toBeUndefined();
    });

    it('folds an email’s ASCII letters only: no look-alike finds anyone', async () => {
      const { directory, tenant } = await setup();
      await directory.create(personOf(tenant, { emails: ['kim@example.com'] }));
      expect((await directory.find(tenant, { email: 'KIM@Example.COM' }))?.id).toBe('ann');
      // The Kelvin sign (U+212A) folds to k in Unicode, never here.
      expect(await directory.find(tenant, { email: '\u212Aim@example.com' })).toBeUndefined();
      expect(await directory.find(tenant, { email: 'kim+1@example.com' })).toBeUndefined();
    });

    it.each([
      ['its id', { id: 'ann' }, 'id'],
      ['a subject', { id: 'bob', emails: [], slack: [], subjects: ['u-ann'] }, 'subject'],
      ['a Slack user', { id: 'bob', emails: [], subjects: [] }, 'slack'],
      ['an email, folded', { id: 'bob', subjects: [], slack: [], emails: ['ANN@example.com'] }, 'email'],
    ])('refuses a second person sharing %s, and keeps the first as it was', async (_what, overrides, conflict) => {
      const { directory, tenant } = await setup();
      await directory.create(personOf(tenant));
      const answer = await directory.create(personOf(tenant, { name: 'Bob', ...overrides }));
      expect(answer).toMatchObject({ conflict, heldBy: 'ann' });
      expect(await directory.get(tenant, 'ann')).toEqual(personOf(tenant));
      if (overrides.id === 'bob') expect(await directory.get(tenant, 'bob')).toBeUndefined();
    });

    it('keeps tenants apart: one identity may be a person in each', async () => {
      const { directory, tenant } = await setup();
      const other = `${tenant}-other`;
      await directory.create(personOf(tenant));
      expect(await directory.create(personOf(other, { id: 'ann-2' }))).toBe('created');
      expect((await directory.find(tenant, { subject: 'u-ann' }))?.id).toBe('ann');
      expect((await directory.find(other, { subject: 'u-ann' }))?.id).toBe('ann-2');
      expect(await directory.get(other, 'ann')).toBeUndefined();
    });

    it('replaces a person whole: identities they no longer hold find no one', async () => {
      const { directory, tenant } = await setup();
      await directory.create(personOf(tenant));
      const replaced = personOf(tenant, { emails: ['ann@example.com'], subjects: [], slack: [] });
      expect(await directory.replace(replaced)).toBe('replaced');
      expect(await directory.get(tenant, 'ann')).toEqual(replaced);
      expect(await directory.find(tenant, { email: 'ann.private@example.org' })).toBeUndefined();
      expect(await directory.find(tenant, { subject: 'u-ann' })).toBeUndefined();
      expect(await directory.replace(personOf(tenant, { id: 'nobody' }))).toBe('missing');
    });

    it('patches fields: a deactivation is read at once, a manager cleared by naming it undefined', async () => {
      const { directory, tenant } = await setup();
      await directory.create(personOf(tenant, { id: 'boss', name: 'Boss', emails: [], subjects: [], slack: [] }));
      await directory.create(personOf(tenant, { manager: 'boss' }));
      expect((await directory.manager(tenant, 'ann'))?.id).toBe('boss');
      expect(await directory.patch(tenant, 'ann', { active: false })).toMatchObject({ id: 'ann', active: false });
      expect((await directory.find(tenant, { subject: 'u-ann' }))?.active).toBe(false);
      expect(await directory.patch(tenant, 'ann', { manager: undefined })).not.toHaveProperty('manager');
      expect(await directory.manager(tenant, 'ann')).toBeUndefined();
      expect(await directory.patch(tenant, 'nobody', { active: false })).toBe('missing');
    });

    it('refuses a patch that would share an identity, changing nothing', async () => {
      const { directory, tenant } = await setup();
      await directory.create(personOf(tenant));
      await directory.create(personOf(tenant, { id: 'bob', emails: ['bob@example.com'], subjects: [], slack: [] }));
      const answer = await directory.patch(tenant, 'bob', { emails: ['bob@example.com', 'Ann@Example.com'] });
      expect(answer).toMatchObject({ conflict: 'email', heldBy: 'ann' });
      expect((await directory.get(tenant, 'bob'))?.emails).toEqual(['bob@example.com']);
    });

    it('refuses a person its schema refuses (400 naming the field), writing nothing', async () => {
      const { directory, tenant } = await setup();
      const bad = { ...personOf(tenant), emails: ['not an address'] };
      await expect(directory.create(bad)).rejects.toBeInstanceOf(BadRequestError);
      expect(await directory.get(tenant, 'ann')).toBeUndefined();
      expect(await directory.find(tenant, { subject: 'u-ann' })).toBeUndefined();
    });

    it('deletes a person: nothing finds them, no group holds them', async () => {
      const { directory, tenant } = await setup();
      await directory.create(personOf(tenant));
      expect(await directory.delete(tenant, 'ann')).toBe('deleted');
      expect(await directory.get(tenant, 'ann')).toBeUndefined();
      expect(await directory.find(tenant, { email: 'ann@example.com' })).toBeUndefined();
      expect(await directory.members(tenant, 'finance')).toEqual([]);
      expect(await directory.delete(tenant, 'ann')).toBe('missing');
    });

    it('keeps group memberships: members, added and removed, ids that name no one answered', async () => {
      const { directory, tenant } = await setup();
      await directory.create(personOf(tenant));
      await directory.create(
        personOf(tenant, { id: 'bob', name: 'Bob', emails: [], subjects: [], slack: [], groups: [] }),
      );
      expect((await directory.members(tenant, 'finance')).map((person) => person.id)).toEqual(['ann']);
      expect(await directory.addToGroup(tenant, 'finance', ['bob', 'nobody'])).toEqual(['nobody']);
      expect((await directory.members(tenant, 'finance')).map((person) => person.id)).toEqual(['ann', 'bob']);
      expect((await directory.get(tenant, 'bob'))?.groups).toEqual(['finance']);
      expect(await directory.removeFromGroup(tenant, 'finance', ['ann'])).toEqual([]);
      expect((await directory.members(tenant, 'finance')).map((person) => person.id)).toEqual(['bob']);
      expect((await directory.get(tenant, 'ann'))?.groups).toEqual([]);
    });

    it('lists the persons who hold a delegation, and ends one', async () => {
      const { directory, tenant } = await setup();
      await directory.create(personOf(tenant));
      await directory.create(personOf(tenant, { id: 'bob', name: 'Bob', emails: [], subjects: [], slack: [] }));
      expect(await directory.delegations(tenant)).toEqual([]);
      const delegation = { to: 'bob', until: '2030-01-08T00:00:00Z', reason: 'On leave' };
      expect(await directory.setDelegation(tenant, 'ann', delegation)).toMatchObject({ id: 'ann', delegation });
      expect((await directory.delegations(tenant)).map((person) => [person.id, person.delegation?.to])).toEqual([
        ['ann', 'bob'],
      ]);
      const ended = await directory.setDelegation(tenant, 'ann', undefined);
      expect(ended).not.toHaveProperty('delegation');
      expect(await directory.delegations(tenant)).toEqual([]);
      expect(await directory.setDelegation(tenant, 'nobody', delegation)).toBe('missing');
    });

    it('answers copies: changing what a read returned changes nothing kept', async () => {
      const { directory, tenant } = await setup();
      await directory.create(personOf(tenant));
      const read = (await directory.get(tenant, 'ann')) as Person;
      read.emails.push('mallory@example.com');
      read.active = false;
      expect(await directory.get(tenant, 'ann')).toEqual(personOf(tenant));
    });
  });
}
