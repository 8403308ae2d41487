import { SCOPES } from '../vocabulary.ts';
import type { Actor } from '../wire.ts';

/**
 * Who a bearer token is (§13), from its claims alone: pure, so the Lambda and the local service read tokens the same
 * way, and the rules can be tested without one.
 */

/** The claims of a verified token, as API Gateway's JWT authorizer (or the local server) passes them. */
export type TokenClaims = Readonly<Record<string, unknown>>;

/** How claims are read. */
export interface PrincipalOptions {
  /** The claim holding the groups. @default 'cognito:groups' */
  groupsClaim?: string;
  /** No tokens at all (the local service without auth): every request is the same anonymous person. */
  anonymous?: boolean;
}

/** The groups claim Cognito writes. */
export const DEFAULT_GROUPS_CLAIM = 'cognito:groups';

/** The principal of an unauthenticated local service, and of a token without `sub`. */
const ANONYMOUS = 'anonymous';

/** The principal a request's token makes: `kind: 'agent'` for a token scoped to the agent's part only. */
export function principalOf(claims: TokenClaims | undefined, options: PrincipalOptions = {}): Actor {
  if (options.anonymous || claims === undefined) return { kind: 'person', subject: ANONYMOUS, via: 'api' };
  const scopes = scopesOf(claims);
  const agentOnly = scopes?.includes(SCOPES.agent) === true && !scopes.includes(SCOPES.decide);
  const { sub, email, name } = claims;
  return {
    kind: agentOnly ? 'agent' : 'person',
    subject: typeof sub === 'string' && sub !== '' ? sub : ANONYMOUS,
    ...(typeof email === 'string' && email !== '' ? { email } : {}),
    ...(typeof name === 'string' && name !== '' ? { name } : {}),
    via: 'api',
    groups: listClaim(claims[options.groupsClaim ?? DEFAULT_GROUPS_CLAIM]),
  };
}

/** The token's scopes (its space-separated `scope` claim), or undefined when it has no `scope` claim (an ID token). */
export function scopesOf(claims: TokenClaims | undefined): string[] | undefined {
  const scope = claims?.scope;
  if (scope === undefined || scope === null) return undefined;
  return listClaim(scope);
}

/**
 * A claim holding a list: a JSON array, a space-separated string, or the `[a b]` string API Gateway's JWT authorizer
 * makes of an array claim (it passes every claim as a string).
 */
function listClaim(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string' && item !== '');
  if (typeof value !== 'string') return [];
  const text = /^\[(.*)\]$/s.exec(value.trim())?.[1] ?? value;
  return text.split(/[\s,]+/).filter(Boolean);
}
