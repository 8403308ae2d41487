/**
 * The handlers' configuration, read from the environment once, at cold start, through one helper that fails fast:
 * a missing variable stops the function at init with a message naming it, never at the first request.
 */

import { parseRecipientDomains } from '../checkpoints/recipients.ts';
import type { HandoffConfig } from '../handoff/handoff.ts';
import { type PolicySettings, policySettingsOf } from '../policies/config.ts';
import { HANDOFF_TARGETS, isOneOf } from '../vocabulary.ts';

export type { HandoffConfig };

/** Everything the Lambda handlers read from the environment. */
export interface Config {
  /** `TABLE_NAME`: the checkpoint table. */
  tableName: string;
  /** `TENANT_CLAIM`: the JWT claim that names the tenant; default `tenant`. */
  tenantClaim: string;
  /** `GROUPS_CLAIM`: the JWT claim holding a principal's groups; default `cognito:groups`. */
  groupsClaim: string;
  /** `DYNAMODB_ENDPOINT`: another DynamoDB endpoint (DynamoDB Local, the embedded store); unset = AWS. */
  dynamodbEndpoint: string | undefined;
  /** `HANDOFF_TARGET` and its variable; default `none`. */
  handoff: HandoffConfig;
  /** `INBOX_URL`: the inbox page's public URL, for answer links; unset = the API's own `/inbox` (from the request). */
  inboxUrl: string | undefined;
  /** `LINK_SECRET_ARN`: the Secrets Manager secret holding the answer-link key; unset = no answer links. */
  linkSecretArn: string | undefined;
  /** `RECIPIENT_DOMAINS`: where an agent may name approvers and email recipients by address (§16); unset = none. */
  recipientDomains: string[];
  /** `OWN_USER_POOL_ISSUER`: the stack's own Cognito pool, whose access tokens carry only verified emails (§16). */
  verifiedEmailIssuer: string | undefined;
  /** `HANDBACK_RETENTION_DAYS`, in seconds: how long a pause and its audit trail are kept after it expires. */
  retentionSeconds: number | undefined;
  /**
   * `HANDBACK_POLICIES` (with `HANDBACK_POLICY_SCHEMA`, `_MODE`, `_DEFAULT`): the deployment's Cedar policies (§17),
   * bundled with the functions that pause; unset = no policy applies, and no Cedar is loaded.
   */
  policies: PolicySettings | undefined;
}

/** A variable's value; throws naming the variable when it is unset or empty. */
export function requireEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new Error(`Environment variable ${name} is not set: set it in the function's configuration.`);
  }
  return value;
}

/** A variable's value, or `fallback` when it is unset or empty. */
export function optionalEnv(env: NodeJS.ProcessEnv, name: string, fallback: string): string;
export function optionalEnv(env: NodeJS.ProcessEnv, name: string): string | undefined;
export function optionalEnv(env: NodeJS.ProcessEnv, name: string, fallback?: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? fallback : value;
}

/**
 * `HANDBACK_RETENTION_DAYS` in seconds: how long a pause's items (its decisions, votes and who made them) are kept
 * after its `expiresAt` before DynamoDB's TTL may delete them; unset = the store's default (30 days).
 */
export function retentionSecondsOf(env: NodeJS.ProcessEnv): number | undefined {
  const days = optionalEnv(env, 'HANDBACK_RETENTION_DAYS');
  if (days === undefined) return undefined;
  if (!/^\d{1,5}$/.test(days.trim()) || Number(days) < 1) {
    throw new Error(
      `Environment variable HANDBACK_RETENTION_DAYS is ${JSON.stringify(days)}: a whole number of days (at least 1) a pause is kept after it expires.`,
    );
  }
  return Number(days) * 24 * 60 * 60;
}

/** The hand-off configuration: `HANDOFF_TARGET` and, for each target, the variable it needs. */
export function loadHandoffConfig(env: NodeJS.ProcessEnv): HandoffConfig {
  const target = optionalEnv(env, 'HANDOFF_TARGET', 'none');
  if (!isOneOf(HANDOFF_TARGETS, target)) {
    throw new Error(
      `Environment variable HANDOFF_TARGET is ${JSON.stringify(target)}: use one of ${HANDOFF_TARGETS.join(', ')}.`,
    );
  }
  switch (target) {
    case 'sqs':
      return { target, queueUrl: requireEnv(env, 'HANDOFF_QUEUE_URL') };
    case 'eventbridge':
      return { target, eventBusName: requireEnv(env, 'HANDOFF_EVENT_BUS_NAME') };
    case 'lambda':
      return { target, functionName: requireEnv(env, 'HANDOFF_FUNCTION_NAME') };
    case 'none':
      return { target };
  }
}

/** The whole configuration; throws at the first missing or invalid variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    tableName: requireEnv(env, 'TABLE_NAME'),
    tenantClaim: optionalEnv(env, 'TENANT_CLAIM', 'tenant'),
    groupsClaim: optionalEnv(env, 'GROUPS_CLAIM', 'cognito:groups'),
    dynamodbEndpoint: optionalEnv(env, 'DYNAMODB_ENDPOINT'),
    handoff: loadHandoffConfig(env),
    inboxUrl: optionalEnv(env, 'INBOX_URL'),
    linkSecretArn: optionalEnv(env, 'LINK_SECRET_ARN'),
    recipientDomains: parseRecipientDomains(optionalEnv(env, 'RECIPIENT_DOMAINS')),
    verifiedEmailIssuer: optionalEnv(env, 'OWN_USER_POOL_ISSUER'),
    retentionSeconds: retentionSecondsOf(env),
    policies: policySettingsOf(env),
  };
}
