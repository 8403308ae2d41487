import { LIMITS } from '../vocabulary.ts';
import { URN } from './scim-inputs.ts';

/**
 * SCIM's discovery resources (RFC 7644 section 4, RFC 7643 section 5–§7): what this service provider supports, its resource types
 * and their schemas — the attributes Handback keeps and serves, nothing more, so a client learns the truth.
 */

/** Most resources a list answers at once (`count` past it is cut to it). */
export const MAX_RESULTS = 200;

/** `/ServiceProviderConfig`. */
export function serviceProviderConfig(base: string) {
  return {
    schemas: [URN.serviceProviderConfig],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: "The deployment's SCIM secret (HANDBACK_SCIM_TOKEN), sent as Authorization: Bearer <secret>.",
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

/** `/ResourceTypes`: Users (with the enterprise extension) and Groups. */
export function resourceTypes(base: string) {
  return [
    {
      schemas: [URN.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A person of the directory (§20).',
      schema: URN.user,
      schemaExtensions: [{ schema: URN.enterprise, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [URN.resourceType],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A group: its members decide as the group for approvers and policies (§20).',
      schema: URN.group,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

/** An attribute's definition (RFC 7643 section 7), with the defaults most attributes share. */
function attribute(name: string, more: Record<string, unknown> = {}) {
  return {
    name,
    type: 'string',
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...more,
  };
}

const subAttributes = (...names: string[]) => names.map((name) => attribute(name));

/** `/Schemas`: the User, Group and enterprise User schemas, as far as Handback keeps them. */
export function schemas(base: string) {
  const schema = (id: string, name: string, attributes: unknown[]) => ({
    schemas: [URN.schema],
    id,
    name,
    attributes,
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  });
  return [
    schema(URN.user, 'User', [
      attribute('userName', { required: true, uniqueness: 'server' }),
      attribute('externalId', { caseExact: true, description: "The person's issuer subject (a token's sub)." }),
      attribute('name', {
        type: 'complex',
        subAttributes: subAttributes('formatted', 'givenName', 'familyName'),
      }),
      attribute('displayName'),
      attribute('emails', {
        type: 'complex',
        multiValued: true,
        description: `At most ${LIMITS.directory.emails}; each finds this person, folded (ASCII case).`,
        subAttributes: [...subAttributes('value', 'type'), attribute('primary', { type: 'boolean' })],
      }),
      attribute('active', { type: 'boolean', description: 'A person not active decides nothing.' }),
      attribute('groups', {
        type: 'complex',
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: subAttributes('value', '$ref', 'display'),
      }),
    ]),
    schema(URN.group, 'Group', [
      attribute('displayName', { required: true, uniqueness: 'server', caseExact: true }),
      attribute('externalId', { caseExact: true }),
      attribute('members', {
        type: 'complex',
        multiValued: true,
        subAttributes: subAttributes('value', '$ref', 'display'),
      }),
    ]),
    schema(URN.enterprise, 'EnterpriseUser', [
      attribute('manager', { type: 'complex', subAttributes: subAttributes('value', '$ref', 'displayName') }),
    ]),
  ];
}
