/**
 * RFC 7643 / RFC 7644's own examples, as fixtures: what an identity provider sends, and the shapes a service
 * provider answers with. Each is the RFC's text, with only its ids, dates and URLs (which a server assigns) left out.
 */

/** RFC 7643 section 8.2: the full enterprise User, as a client would POST it (id and meta are the server's). */
export const RFC7643_FULL_ENTERPRISE_USER = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
  externalId: '701984',
  userName: 'bjensen@example.com',
  name: {
    formatted: 'Ms. Barbara J Jensen, III',
    familyName: 'Jensen',
    givenName: 'Barbara',
    middleName: 'Jane',
    honorificPrefix: 'Ms.',
    honorificSuffix: 'III',
  },
  displayName: 'Babs Jensen',
  nickName: 'Babs',
  profileUrl: 'https://login.example.com/bjensen',
  emails: [
    { value: 'bjensen@example.com', type: 'work', primary: true },
    { value: 'babs@jensen.org', type: 'home' },
  ],
  addresses: [
    {
      streetAddress: '100 Universal City Plaza',
      locality: 'Hollywood',
      region: 'CA',
      postalCode: '91608',
      country: 'USA',
      formatted: '100 Universal City Plaza\nHollywood, CA 91608 USA',
      type: 'work',
      primary: true,
    },
  ],
  phoneNumbers: [{ value: '555-555-5555', type: 'work' }],
  userType: 'Employee',
  title: 'Tour Guide',
  preferredLanguage: 'en-US',
  locale: 'en-US',
  timezone: 'America/Los_Angeles',
  active: true,
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': {
    employeeNumber: '701984',
    costCenter: '4130',
    organization: 'Universal Studios',
    division: 'Theme Park',
    department: 'Tour Operations',
  },
};

/** RFC 7643 section 8.1: the minimal User. */
export const RFC7643_MINIMAL_USER = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName: 'bjensen@example.com',
};

/** RFC 7643 section 8.4: a Group (its members' values are the server's User ids, filled in by the test). */
export const RFC7643_GROUP = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
  displayName: 'Tour Guides',
};

/** RFC 7644 section 3.12: an error body's members. */
export const RFC7644_ERROR = {
  schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
  detail: 'Resource 2819c223-7f76-453a-919d-413861904646 not found',
  status: '404',
};

/** RFC 7644 section 3.4.2: a ListResponse's members. */
export const RFC7644_LIST_RESPONSE = {
  schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
  totalResults: 2,
  Resources: [{ id: '2819c223-7f76-453a-919d-413861904646', userName: 'bjensen' }],
};

/** RFC 7644 section 3.5.2.1: add members to a Group (the member's value is filled in by the test). */
export const RFC7644_ADD_MEMBER = {
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: [{ op: 'add', path: 'members', value: [{ display: 'Babs Jensen', $ref: '', value: '' }] }],
};

/** RFC 7644 section 3.5.2.2: remove one member by a value filter (its value filled in by the test). */
export const removeMember = (id: string) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
});

/** Okta's deactivation (its SCIM 2.0 guide): a replace without a path. */
export const OKTA_DEACTIVATE = {
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: [{ op: 'replace', value: { active: false } }],
};

/** Entra ID's deactivation: a capitalised op and the boolean as a string. */
export const ENTRA_DEACTIVATE = {
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
};

/** Entra ID's member removal: the members to remove as the value, no filter. */
export const entraRemoveMember = (id: string) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: [{ op: 'Remove', path: 'members', value: [{ value: id }] }],
});

/** Entra ID's manager, set by the extension's attribute path with the id alone. */
export const entraSetManager = (id: string) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: [{ op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager', value: id }],
});
