import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { agentTenant, groups } from '../functions/settings.ts';
import { CONTEXT, ConfigurationError, contextBoolean, contextList, contextString } from './context.ts';
import type { HandbackStackProps } from './stack-props.ts';

/**
 * Who signs the API's tokens, from the props and context: an issuer the deployment already has (checked as API
 * Gateway would use it), or the Cognito user pool the stack creates, with its groups, sign-in domain and agents'
 * tenant; fails naming what to set.
 */

/**
 * The issuer older `cdk.json` files shipped with, to mark where the real one goes: synthesis refuses it (and every
 * other documentation host), since an HTTP API whose authorizer trusts it would refuse every token.
 */
export const PLACEHOLDER_ISSUER = 'https://issuer.example.com/';

/**
 * Who signs the API's tokens: an issuer the deployment already has, or a Cognito user pool the stack creates (the
 * default), whose issuer and clients become the authorizer's.
 */
export type AuthSettings = { kind: 'issuer'; jwtIssuer: string; jwtAudience: string[] } | UserPoolSettings;

/** The user pool the stack creates, as context configures it (`infra/user-pool.ts`). */
export interface UserPoolSettings {
  kind: 'userPool';
  /** The groups the pool has, for approvers by group (`handback:groups`; default `approvers`). */
  groups: string[];
  /** The prefix of the managed-login domain, `<prefix>.auth.<region>.amazoncognito.com`. */
  domainPrefix: string;
  /** The tenant of every client-credentials (agent) token of the pool (`handback:agentTenant`; default `default`). */
  agentTenant: string;
}

/** The groups a created pool has when `handback:groups` is not set: the one the deploy docs add people to. */
export const DEFAULT_GROUPS: string[] = [groups.default];

/** The tenant of the pool's agent tokens when `handback:agentTenant` is not set: the local service's, with auth off. */
export const DEFAULT_AGENT_TENANT: string = agentTenant.default;

/** What to do about a missing or unusable issuer, said once for every message that needs it. */
const SET_AN_ISSUER = `set -c ${CONTEXT.jwtIssuer}=https://<your OIDC issuer> (e.g. https://cognito-idp.<region>.amazonaws.com/<pool id>, in cdk.json or on the command line), or remove ${CONTEXT.jwtIssuer} and ${CONTEXT.jwtAudience} to have the stack create a Cognito user pool.`;

/** RFC 2606 names, kept for documentation: no real issuer lives there. */
const EXAMPLE_HOST = /(^|\.)example\.(com|net|org)$|\.example$/i;

/**
 * Refuses an issuer API Gateway could never use: the JWT authorizer fetches `<issuer>/.well-known/openid-configuration`
 * over https, so anything but an https URL of a real host fails every request; the placeholder of `cdk.json` too.
 */
function checkIssuer(issuer: string, fromProps: boolean): void {
  const named = fromProps ? 'The jwtIssuer prop' : `Context ${CONTEXT.jwtIssuer}`;
  const advice = fromProps
    ? 'pass the https URL of your OIDC issuer (e.g. https://cognito-idp.<region>.amazonaws.com/<pool id>), or leave jwtIssuer and jwtAudience out to have the stack create a Cognito user pool.'
    : SET_AN_ISSUER;
  let url: URL | undefined;
  try {
    url = new URL(issuer);
  } catch {
    url = undefined;
  }
  if (url === undefined || url.protocol !== 'https:') {
    throw new ConfigurationError(`${named} must be an https URL, not ${JSON.stringify(issuer)}: ${advice}`);
  }
  if (isPlaceholder(issuer)) {
    throw new ConfigurationError(`${named} is the placeholder ${issuer}: ${advice}`);
  }
}

/** Whether an issuer is cdk.json's placeholder, or another documentation name (RFC 2606) that no issuer uses. */
function isPlaceholder(issuer: string): boolean {
  try {
    return EXAMPLE_HOST.test(new URL(issuer).hostname);
  } catch {
    return false;
  }
}

/**
 * Claims Cognito will not let a pre-token-generation trigger add or override (its own and the standard JWT ones): a
 * tenant claim by one of these names could never be set.
 */
const COGNITO_RESERVED_CLAIMS = new Set([
  'acr',
  'amr',
  'at_hash',
  'aud',
  'auth_time',
  'azp',
  'client_id',
  'device_key',
  'event_id',
  'exp',
  'iat',
  'identities',
  'iss',
  'jti',
  'nbf',
  'nonce',
  'origin_jti',
  'scope',
  'sub',
  'token_use',
  'username',
]);

/**
 * Who signs the tokens: the issuer given, or else a user pool the stack creates (a first deploy needs no flags); fails
 * naming what to set. `createUserPool=true` next to cdk.json's old placeholder issuer still creates the pool.
 */
export function resolveAuth(scope: Construct, props: HandbackStackProps, tenantClaim: string): AuthSettings {
  const createUserPool = props.createUserPool ?? contextBoolean(scope, CONTEXT.createUserPool);
  const contextIssuer = contextString(scope, CONTEXT.jwtIssuer);
  const contextAudience = contextList(scope, CONTEXT.jwtAudience);
  if (createUserPool === true) {
    if (props.jwtIssuer !== undefined || props.jwtAudience !== undefined) {
      throw new ConfigurationError(
        'createUserPool makes the new user pool the issuer and its clients the audience: drop the jwtIssuer and jwtAudience props, or createUserPool.',
      );
    }
    // An old cdk.json's placeholder may stay where it is; any real issuer next to createUserPool is a contradiction.
    if (contextIssuer !== undefined && !isPlaceholder(contextIssuer)) {
      throw new ConfigurationError(
        `Context ${CONTEXT.createUserPool}=true creates the issuer, but ${CONTEXT.jwtIssuer} is also set (${contextIssuer}): keep one of the two.`,
      );
    }
    return userPoolSettings(scope, tenantClaim);
  }
  const jwtIssuer = props.jwtIssuer ?? contextIssuer;
  const jwtAudience = props.jwtAudience ?? contextAudience;
  if (jwtIssuer === undefined) {
    if (createUserPool === false) {
      throw new ConfigurationError(
        props.createUserPool === false
          ? 'createUserPool: false needs an issuer to trust: pass jwtIssuer and jwtAudience, or leave createUserPool out to have the stack create a Cognito user pool.'
          : `Context ${CONTEXT.createUserPool}=false needs an issuer to trust: set -c ${CONTEXT.jwtIssuer}=https://<your OIDC issuer> and -c ${CONTEXT.jwtAudience}=<client ids> (cdk.json or -c), or drop ${CONTEXT.createUserPool}=false to have the stack create a Cognito user pool.`,
      );
    }
    if (jwtAudience !== undefined) {
      throw new ConfigurationError(
        props.jwtAudience !== undefined
          ? 'The jwtAudience prop is set without jwtIssuer: pass the issuer those audiences belong to, or leave both out to have the stack create a Cognito user pool.'
          : `Context ${CONTEXT.jwtAudience} is set without ${CONTEXT.jwtIssuer}: set the issuer those audiences belong to, or remove ${CONTEXT.jwtAudience} to have the stack create a Cognito user pool.`,
      );
    }
    return userPoolSettings(scope, tenantClaim);
  }
  checkIssuer(jwtIssuer, props.jwtIssuer !== undefined);
  if (!jwtAudience || jwtAudience.length === 0) {
    throw new ConfigurationError(
      `The HTTP API needs the audiences its issuer's tokens carry: pass jwtAudience, or set context ${CONTEXT.jwtAudience} (cdk.json or -c) next to ${CONTEXT.jwtIssuer}.`,
    );
  }
  return { kind: 'issuer', jwtIssuer, jwtAudience };
}

/** A group name: a part of what Cognito takes (1–128 characters), which construct ids and approvers' entries take as they are. */
const GROUP_NAME = /^[\p{L}\p{N}_.@+=,-]{1,128}$/u;

/** Cognito's rule for a domain prefix: lower-case letters, digits and hyphens, and none of its reserved words. */
const DOMAIN_PREFIX = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const RESERVED_IN_PREFIX = /aws|amazon|cognito/;
const MAX_PREFIX = 63;
/** What the default prefix adds to the stack name: `-` and the 12-digit account id, known only at deploy. */
const ACCOUNT_SUFFIX = 13;

/** The settings of the user pool the stack creates, from context; fails naming the key that cannot work. */
function userPoolSettings(scope: Construct, tenantClaim: string): UserPoolSettings {
  if (COGNITO_RESERVED_CLAIMS.has(tenantClaim) || tenantClaim.startsWith('cognito:')) {
    throw new ConfigurationError(
      `Context ${CONTEXT.tenantClaim} is ${tenantClaim}, a claim Cognito does not let a trigger set: choose another name (e.g. tenant) for the user pool the stack creates.`,
    );
  }
  const groups = contextList(scope, CONTEXT.groups) ?? DEFAULT_GROUPS;
  for (const group of groups) {
    if (!GROUP_NAME.test(group)) {
      throw new ConfigurationError(
        `Context ${CONTEXT.groups} names the group ${JSON.stringify(group)}: a group name is 1 to 128 letters, digits or _.@+=,- characters.`,
      );
    }
  }
  if (new Set(groups).size !== groups.length) {
    throw new ConfigurationError(`Context ${CONTEXT.groups} names a group twice: ${groups.join(', ')}.`);
  }
  const stack = Stack.of(scope);
  const given = contextString(scope, CONTEXT.signInDomainPrefix);
  // By default unique per stack and account: <stack name>-<account id>.
  const checked = given ?? stack.stackName.toLowerCase();
  const room = given === undefined ? MAX_PREFIX - ACCOUNT_SUFFIX : MAX_PREFIX;
  if (!DOMAIN_PREFIX.test(checked) || checked.length > room || RESERVED_IN_PREFIX.test(checked)) {
    const why = `a Cognito domain prefix is at most ${MAX_PREFIX} lower-case letters, digits and inner hyphens, without "aws", "amazon" or "cognito"`;
    throw new ConfigurationError(
      given === undefined
        ? `The stack name ${stack.stackName} makes the sign-in domain prefix ${checked}-<account id>, but ${why}: set -c ${CONTEXT.signInDomainPrefix}=<prefix>.`
        : `Context ${CONTEXT.signInDomainPrefix} must be a domain prefix, not ${JSON.stringify(given)}: ${why}.`,
    );
  }
  const agentTenant = contextString(scope, CONTEXT.agentTenant) ?? DEFAULT_AGENT_TENANT;
  return {
    kind: 'userPool',
    groups,
    domainPrefix: given ?? `${checked}-${stack.account}`,
    agentTenant,
  };
}
