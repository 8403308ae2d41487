import { describe, expect, it } from 'vitest';
import { MemoryDocuments } from '../../functions/directory/documents.ts';
import { MemoryDirectory } from '../../functions/directory/memory.ts';
import { type ScimKeep, scimRequest } from '../../functions/directory/scim.ts';
import {
  ENTRA_DEACTIVATE,
  entraRemoveMember,
  entraSetManager,
  OKTA_DEACTIVATE,
  RFC7643_FULL_ENTERPRISE_USER,
  RFC7643_GROUP,
  RFC7643_MINIMAL_USER,
  RFC7644_ADD_MEMBER,
  RFC7644_ERROR,
  RFC7644_LIST_RESPONSE,
  removeMember,
} from './scim-rfc-examples.ts';

const BASE = 'https://handback.example.com/scim/v2';
const TENANT = 'acme';

/** A SCIM client on a fresh memory keep. */
function client() {
  const keep: ScimKeep = { directory: new MemoryDirectory(), documents: new MemoryDocuments() };
  const call = async (method: string, path: string, body?: unknown, query: Record<string, string> = {}) => {
    const answer = await scimRequest(keep, { tenant: TENANT, method, path, query, body, base: BASE });
    // biome-ignore lint/suspicious/noExplicitAny: a test reads the JSON bodies it asserts on
    return { status: answer.status, body: answer.body as Record<string, any> };
  };
  return { keep, call };
}

const user = (userName: string, more: Record<string, unknown> = {}) => ({ ...RFC7643_MINIMAL_USER, userName, ...more });

describe('SCIM Users (RFC 7643 section 4.1, RFC 7644 section 3)', () => {
  it('creates RFC 7643’s full enterprise User: a person with its emails, externalId as subject, and its shape', async () => {
    const { keep, call } = client();
    const created = await call('POST', '/Users', RFC7643_FULL_ENTERPRISE_USER);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id,
      externalId: '701984',
      userName: 'bjensen@example.com',
      name: { formatted: 'Ms. Barbara J Jensen, III', familyName: 'Jensen', givenName: 'Barbara' },
      displayName: 'Babs Jensen',
      emails: [
        { value: 'bjensen@example.com', type: 'work', primary: true },
        { value: 'babs@jensen.org', type: 'home' },
      ],
      active: true,
      groups: [],
      meta: {
        resourceType: 'User',
        created: expect.any(String),
        lastModified: expect.any(String),
        location: `${BASE}/Users/${id}`,
      },
    });
    expect(await keep.directory.get(TENANT, id)).toEqual({
      id,
      name: 'Babs Jensen',
      emails: ['bjensen@example.com', 'babs@jensen.org'],
      subjects: ['701984'],
      slack: [],
      groups: [],
      active: true,
      tenant: TENANT,
    });
    expect((await keep.directory.find(TENANT, { email: 'BABS@jensen.org' }))?.id).toBe(id);
    expect((await call('GET', `/Users/${id}`)).body).toEqual(created.body);
  });

  it('lists by filter on userName (any case), externalId and emails.value, as RFC 7644’s ListResponse', async () => {
    const { call } = client();
    const ann = (
      await call(
        'POST',
        '/Users',
        user('ann@example.com', { externalId: 'u-ann', emails: [{ value: 'ann@example.com' }] }),
      )
    ).body;
    await call('POST', '/Users', user('bob@example.com', { emails: [{ value: 'bob@example.com' }] }));
    for (const filter of [
      'userName eq "ANN@example.com"',
      'externalId eq "u-ann"',
      'emails.value eq "Ann@Example.com"',
      'emails eq "ann@example.com"',
    ]) {
      const listed = await call('GET', '/Users', undefined, { filter });
      expect(Object.keys(listed.body).sort(), filter).toEqual(
        [...Object.keys(RFC7644_LIST_RESPONSE), 'startIndex', 'itemsPerPage'].sort(),
      );
      expect(listed.body, filter).toMatchObject({
        schemas: RFC7644_LIST_RESPONSE.schemas,
        totalResults: 1,
        startIndex: 1,
        itemsPerPage: 1,
      });
      expect(
        listed.body.Resources.map((one: { id: string }) => one.id),
        filter,
      ).toEqual([ann.id]);
    }
    expect((await call('GET', '/Users', undefined, { filter: 'userName eq "carol@example.com"' })).body).toMatchObject({
      totalResults: 0,
      Resources: [],
    });
    // A filter the indexes do not answer is the library's, over every User.
    const started = await call('GET', '/Users', undefined, { filter: 'userName sw "bob"' });
    expect(started.body.Resources.map((one: { userName: string }) => one.userName)).toEqual(['bob@example.com']);
    const page = await call('GET', '/Users', undefined, { startIndex: '2', count: '1' });
    expect(page.body).toMatchObject({ totalResults: 2, startIndex: 2, itemsPerPage: 1 });
    expect((await call('GET', '/Users', undefined, { count: '0' })).body).toMatchObject({
      totalResults: 2,
      itemsPerPage: 0,
    });
  });

  it('answers RFC 7644’s Error shape: 404, a filter it cannot read, a bad count', async () => {
    const { call } = client();
    const missing = await call('GET', '/Users/2819c223-7f76-453a-919d-413861904646');
    expect(missing.status).toBe(404);
    expect(Object.keys(missing.body).sort()).toEqual(Object.keys(RFC7644_ERROR).sort());
    expect(missing.body).toMatchObject({ schemas: RFC7644_ERROR.schemas, status: '404' });
    const filter = await call('GET', '/Users', undefined, { filter: 'userName eq' });
    expect(filter).toMatchObject({ status: 400, body: { status: '400', scimType: 'invalidFilter' } });
    expect((await call('GET', '/Users', undefined, { count: 'many' })).body).toMatchObject({
      status: '400',
      scimType: 'invalidValue',
    });
    expect((await call('DELETE', '/Users')).status).toBe(405);
    expect((await call('GET', '/Nothing')).status).toBe(404);
  });

  it('refuses a User without a userName, or with an address that is none, writing nothing', async () => {
    const { keep, call } = client();
    const refused = await call('POST', '/Users', {
      schemas: RFC7643_MINIMAL_USER.schemas,
      emails: [{ value: 'ann@example.com' }],
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { scimType: 'invalidValue', detail: expect.stringContaining('userName') },
    });
    const bad = await call('POST', '/Users', user('ann', { emails: [{ value: 'not an address' }] }));
    expect(bad).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect((await call('GET', '/Users')).body.totalResults).toBe(0);
    expect(await keep.documents.named(TENANT, 'User', 'ann')).toBeUndefined();
  });

  it('refuses a userName (folded) or an email another User holds: 409 uniqueness, nothing changed', async () => {
    const { keep, call } = client();
    const ann = (await call('POST', '/Users', user('ann@example.com', { emails: [{ value: 'ann@example.com' }] })))
      .body;
    expect(await call('POST', '/Users', user('ANN@example.com'))).toMatchObject({
      status: 409,
      body: { scimType: 'uniqueness' },
    });
    const sharing = await call('POST', '/Users', user('other@example.com', { emails: [{ value: 'Ann@example.com' }] }));
    expect(sharing).toMatchObject({ status: 409, body: { status: '409', scimType: 'uniqueness' } });
    expect(await keep.documents.named(TENANT, 'User', 'other@example.com')).toBeUndefined();
    expect((await call('GET', '/Users')).body.totalResults).toBe(1);
    const bob = (await call('POST', '/Users', user('bob@example.com'))).body;
    const replaced = await call(
      'PUT',
      `/Users/${bob.id}`,
      user('bob@example.com', { emails: [{ value: 'ann@example.com' }] }),
    );
    expect(replaced.status).toBe(409);
    expect((await keep.directory.get(TENANT, bob.id))?.emails).toEqual([]);
    expect((await keep.directory.find(TENANT, { email: 'ann@example.com' }))?.id).toBe(ann.id);
  });

  it('replaces a User whole: the emails it no longer holds find no one', async () => {
    const { keep, call } = client();
    const ann = (
      await call(
        'POST',
        '/Users',
        user('ann@example.com', { emails: [{ value: 'ann@example.com' }, { value: 'a2@example.com' }] }),
      )
    ).body;
    const replaced = await call(
      'PUT',
      `/Users/${ann.id}`,
      user('ann@example.com', { emails: [{ value: 'ann@example.com' }], displayName: 'Ann E.' }),
    );
    expect(replaced).toMatchObject({
      status: 200,
      body: { displayName: 'Ann E.', emails: [{ value: 'ann@example.com' }] },
    });
    expect(await keep.directory.find(TENANT, { email: 'a2@example.com' })).toBeUndefined();
    expect((await call('PUT', '/Users/nobody', user('x'))).status).toBe(404);
  });

  it.each([
    ['Okta’s replace without a path', OKTA_DEACTIVATE],
    ['Entra ID’s capitalised op with "False"', ENTRA_DEACTIVATE],
  ])('deactivates by %s: the person is inactive at once', async (_form, patch) => {
    const { keep, call } = client();
    const ann = (await call('POST', '/Users', user('ann@example.com', { externalId: 'u-ann' }))).body;
    const patched = await call('PATCH', `/Users/${ann.id}`, patch);
    expect(patched).toMatchObject({ status: 200, body: { active: false, userName: 'ann@example.com' } });
    expect((await keep.directory.find(TENANT, { subject: 'u-ann' }))?.active).toBe(false);
  });

  it('sets and clears the enterprise extension’s manager, which must be a User', async () => {
    const { keep, call } = client();
    const boss = (await call('POST', '/Users', user('boss@example.com'))).body;
    const ann = (await call('POST', '/Users', user('ann@example.com'))).body;
    const set = await call('PATCH', `/Users/${ann.id}`, entraSetManager(boss.id));
    expect(set.body).toMatchObject({
      schemas: [
        'urn:ietf:params:scim:schemas:core:2.0:User',
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
      ],
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { manager: { value: boss.id } },
    });
    expect((await keep.directory.manager(TENANT, ann.id))?.id).toBe(boss.id);
    const unknown = await call('PATCH', `/Users/${ann.id}`, entraSetManager('nobody'));
    expect(unknown).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect((await keep.directory.get(TENANT, ann.id))?.manager).toBe(boss.id);
    await call('PATCH', `/Users/${ann.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'remove', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager' }],
    });
    expect(await keep.directory.manager(TENANT, ann.id)).toBeUndefined();
  });

  it('refuses a PatchOp that is not one, changing nothing', async () => {
    const { keep, call } = client();
    const ann = (await call('POST', '/Users', user('ann@example.com'))).body;
    expect((await call('PATCH', `/Users/${ann.id}`, { Operations: [] })).body).toMatchObject({ status: '400' });
    const bad = await call('PATCH', `/Users/${ann.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'move', path: 'active' }],
    });
    expect(bad.status).toBe(400);
    const noTarget = await call('PATCH', `/Users/${ann.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'remove' }],
    });
    expect(noTarget).toMatchObject({ status: 400, body: { scimType: 'noTarget' } });
    expect((await keep.directory.get(TENANT, ann.id))?.active).toBe(true);
  });

  it('deletes a User: the person is gone from the directory and its groups', async () => {
    const { keep, call } = client();
    const ann = (await call('POST', '/Users', user('ann@example.com', { emails: [{ value: 'ann@example.com' }] })))
      .body;
    await call('POST', '/Groups', { ...RFC7643_GROUP, members: [{ value: ann.id }] });
    expect((await call('DELETE', `/Users/${ann.id}`)).status).toBe(204);
    expect(await keep.directory.get(TENANT, ann.id)).toBeUndefined();
    expect(await keep.directory.find(TENANT, { email: 'ann@example.com' })).toBeUndefined();
    expect(await keep.directory.members(TENANT, 'Tour Guides')).toEqual([]);
    expect((await call('GET', `/Users/${ann.id}`)).status).toBe(404);
    expect((await call('DELETE', `/Users/${ann.id}`)).status).toBe(404);
    // Its userName is free again.
    expect((await call('POST', '/Users', user('ann@example.com'))).status).toBe(201);
  });
});

describe('SCIM Groups (RFC 7643 section 4.2)', () => {
  it('keeps members as the persons’ groups: create, add, remove by filter and by value, rename, delete', async () => {
    const { keep, call } = client();
    const ann = (await call('POST', '/Users', user('ann@example.com'))).body;
    const bob = (await call('POST', '/Users', user('bob@example.com'))).body;
    const created = await call('POST', '/Groups', { ...RFC7643_GROUP, members: [{ value: ann.id }] });
    expect(created).toMatchObject({
      status: 201,
      body: {
        schemas: RFC7643_GROUP.schemas,
        displayName: 'Tour Guides',
        members: [{ value: ann.id, $ref: `${BASE}/Users/${ann.id}` }],
      },
    });
    const id = created.body.id as string;
    expect((await keep.directory.get(TENANT, ann.id))?.groups).toEqual(['Tour Guides']);
    expect((await call('GET', `/Users/${ann.id}`)).body.groups).toEqual([
      { value: id, display: 'Tour Guides', $ref: `${BASE}/Groups/${id}` },
    ]);
    const add = structuredClone(RFC7644_ADD_MEMBER);
    (add.Operations[0]?.value[0] as { value: string }).value = bob.id;
    await call('PATCH', `/Groups/${id}`, add);
    const members = async () => (await keep.directory.members(TENANT, 'Tour Guides')).map((person) => person.id).sort();
    expect(await members()).toEqual([ann.id, bob.id].sort());
    await call('PATCH', `/Groups/${id}`, removeMember(ann.id));
    expect(await members()).toEqual([bob.id]);
    await call('PATCH', `/Groups/${id}`, entraRemoveMember(bob.id));
    expect(await members()).toEqual([]);
    // Renamed by PUT: members carry the new name only.
    await call('PUT', `/Groups/${id}`, { ...RFC7643_GROUP, displayName: 'Guides', members: [{ value: ann.id }] });
    expect((await keep.directory.get(TENANT, ann.id))?.groups).toEqual(['Guides']);
    expect((await call('GET', '/Groups', undefined, { filter: 'displayName eq "Guides"' })).body.Resources[0].id).toBe(
      id,
    );
    expect((await call('GET', `/Groups/${id}`, undefined, { excludedAttributes: 'members' })).body).not.toHaveProperty(
      'members',
    );
    expect((await call('DELETE', `/Groups/${id}`)).status).toBe(204);
    expect((await keep.directory.get(TENANT, ann.id))?.groups).toEqual([]);
    expect((await call('GET', `/Groups/${id}`)).status).toBe(404);
  });

  it('refuses a member who is no User and a name another Group holds, changing nothing', async () => {
    const { keep, call } = client();
    const ann = (await call('POST', '/Users', user('ann@example.com'))).body;
    const refused = await call('POST', '/Groups', {
      ...RFC7643_GROUP,
      members: [{ value: ann.id }, { value: 'nobody' }],
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { scimType: 'invalidValue', detail: expect.stringContaining('"nobody"') },
    });
    expect((await keep.directory.get(TENANT, ann.id))?.groups).toEqual([]);
    expect((await call('GET', '/Groups')).body.totalResults).toBe(0);
    await call('POST', '/Groups', RFC7643_GROUP);
    expect(await call('POST', '/Groups', RFC7643_GROUP)).toMatchObject({
      status: 409,
      body: { scimType: 'uniqueness' },
    });
  });
});

describe('SCIM discovery (RFC 7644 section 4)', () => {
  it('says what it supports: patch and filter, no bulk, sort, etag or password change', async () => {
    const { call } = client();
    const config = await call('GET', '/ServiceProviderConfig');
    expect(config.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      sort: { supported: false },
      etag: { supported: false },
      changePassword: { supported: false },
      authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken' })],
    });
    const types = await call('GET', '/ResourceTypes');
    expect(types.body.Resources.map((type: { id: string; endpoint: string }) => [type.id, type.endpoint])).toEqual([
      ['User', '/Users'],
      ['Group', '/Groups'],
    ]);
    expect((await call('GET', '/ResourceTypes/User')).body.schemaExtensions).toEqual([
      { schema: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', required: false },
    ]);
    const schemas = await call('GET', '/Schemas');
    expect(schemas.body.totalResults).toBe(3);
    const userSchema = await call('GET', '/Schemas/urn:ietf:params:scim:schemas:core:2.0:User');
    expect(userSchema.body.attributes.map((attribute: { name: string }) => attribute.name)).toContain('userName');
    expect((await call('POST', '/Schemas')).status).toBe(405);
  });
});
