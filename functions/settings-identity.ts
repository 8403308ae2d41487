// Who is who: the settings of who may call (§13, §16) and of the persons a directory knows (§20).

import { BOTH, LAMBDA, LOCAL } from './settings-readers.ts';
import { LIMITS } from './vocabulary.ts';

// Who may call (§13, §16).

export const jwtSecret = { env: 'HANDBACK_JWT_SECRET', read: LOCAL, type: 'secret' } as const;
export const jwtIssuer = {
  env: 'HANDBACK_JWT_ISSUER',
  read: BOTH,
  type: 'url',
  context: 'handback:jwtIssuer',
} as const;
export const jwtAudience = {
  env: 'HANDBACK_JWT_AUDIENCE',
  read: LOCAL,
  type: 'list',
  context: 'handback:jwtAudience',
} as const;
export const createUserPool = { type: 'boolean', context: 'handback:createUserPool' } as const;
export const groups = { type: 'list', context: 'handback:groups', default: 'approvers' } as const;
export const agentTenant = {
  env: 'AGENT_TENANT',
  read: LAMBDA,
  type: 'string',
  context: 'handback:agentTenant',
  default: LIMITS.defaultTenant,
  setBy: 'stack',
} as const;
export const signInDomainPrefix = { type: 'string', context: 'handback:signInDomainPrefix' } as const;
export const oidcClientId = { env: 'HANDBACK_OIDC_CLIENT_ID', read: BOTH, type: 'string', setBy: 'stack' } as const;
export const oidcScopes = {
  env: 'HANDBACK_OIDC_SCOPES',
  read: BOTH,
  type: 'string',
  default: 'openid email profile',
  setBy: 'stack',
} as const;
export const oidcEndpointOrigins = {
  env: 'HANDBACK_OIDC_ENDPOINT_ORIGINS',
  read: BOTH,
  type: 'string',
  setBy: 'stack',
} as const;
export const ownUserPoolIssuer = { env: 'OWN_USER_POOL_ISSUER', read: LAMBDA, type: 'url', setBy: 'stack' } as const;
export const requireScopes = {
  env: 'HANDBACK_REQUIRE_SCOPES',
  read: LOCAL,
  type: 'boolean',
  context: 'handback:requireScopes',
  default: false,
} as const;
export const tenantClaim = {
  env: 'TENANT_CLAIM',
  read: BOTH,
  type: 'string',
  context: 'handback:tenantClaim',
  default: 'tenant',
} as const;
export const groupsClaim = {
  env: 'HANDBACK_GROUPS_CLAIM',
  read: BOTH,
  type: 'string',
  context: 'handback:groupsClaim',
  default: 'cognito:groups',
} as const;
export const recipientDomains = {
  env: 'HANDBACK_RECIPIENT_DOMAINS',
  read: BOTH,
  type: 'list',
  context: 'handback:recipientDomains',
} as const;

// §20: persons known to a directory (docs/identities.md).

export const directory = {
  env: 'HANDBACK_DIRECTORY',
  read: BOTH,
  type: 'path',
  context: 'handback:directory',
} as const;
// §20 SCIM: provisioning from an identity provider (docs/identities.md).
export const scimToken = { env: 'HANDBACK_SCIM_TOKEN', read: LOCAL, type: 'secret' } as const;
export const scim = { type: 'string', context: 'handback:scim' } as const;
export const scimSecretArn = { env: 'SCIM_SECRET_ARN', read: LAMBDA, type: 'string', setBy: 'stack' } as const;
export const scimTenant = {
  env: 'HANDBACK_SCIM_TENANT',
  read: BOTH,
  type: 'string',
  default: LIMITS.defaultTenant,
  setBy: 'stack',
} as const;
