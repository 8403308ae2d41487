import { SCOPES } from '../vocabulary.ts';
import type { Actor } from '../wire.ts';
import { EdgeCode, HttpProblem } from './problem.ts';

/**
 * Who a bearer token is (§13, §16), from its claims alone: pure, so the Lambda and the local service read tokens the
 * same way, and the rules can be tested without one.
 */

/** The claims of a verified token, as API Gateway's JWT authorizer (or the local server) passes them. */
export type TokenClaims = Readonly<Record<string, unknown>>;

/** How claims are read. */
export interface PrincipalOptions {
  /** The claim holding the groups. @default 'cognito:groups' */
  groupsClaim?: string;
  /** No tokens at all (the local service without auth): every request is the same anonymous person. */
  anonymous?: boolean;
  /**
   * The issuer of the stack's own Cognito user pool (`OWN_USER_POOL_ISSUER`): its pre-token trigger adds `email` to an
   * access token only when the pool has verified it (`infra/tenant-claim/handler.ts`), so that email is verified.
   * @default none: only `email_verified` verifies an email
   */
  verifiedEmailIssuer?: string;
}

/** The groups claim Cognito writes. */
export const DEFAULT_GROUPS_CLAIM = 'cognito:groups';

/** The principal of an unauthenticated local service. */
const ANONYMOUS = 'anonymous';

/**
 * The principal a request's token makes: `kind: 'agent'` for a token scoped to the agent's part only. Its email is
 * verified (§16) when the token says so (`email_verified`: true, or the string "true" as API Gateway passes claims)
 * or comes from the stack's own pool; otherwise it is shown and matches no approver. A token without a string `sub`
 * names no one: 401, never a shared subject.
 */
export function principalOf(claims: TokenClaims | undefined, options: PrincipalOptions = {}): Actor {
  if (options.anonymous || claims === undefined) return { kind: 'person', subject: ANONYMOUS, via: 'api' };
  const { sub, email, name } = claims;
  if (typeof sub !== 'string' || sub === '') {
    throw new HttpProblem(401, EdgeCode.Unauthorized, 'The bearer token names no one: it has no sub claim.', {
      'WWW-Authenticate': 'Bearer error="invalid_token", error_description="The bearer token has no sub claim."',
    });
  }
  const scopes = scopesOf(claims);
  const agentOnly = scopes?.includes(SCOPES.agent) === true && !scopes.includes(SCOPES.decide);
  const hasEmail = typeof email === 'string' && email !== '';
  const person = {
    kind: 'person' as const,
    subject: sub,
    ...(hasEmail ? { email } : {}),
    ...(hasEmail && isEmailVerified(claims, options) ? { emailVerified: true as const } : {}),
    ...(typeof name === 'string' && name !== '' ? { name } : {}),
    via: 'api' as const,
  };
  const groups = listClaim(claims[options.groupsClaim ?? DEFAULT_GROUPS_CLAIM]);
  // RFC 8693's `act` (§20): the token is its actor's, an agent, acting for the person `sub` names.
  const actor = actorOf(claims.act);
  if (actor !== undefined) return { kind: 'agent', subject: actor, via: 'api', onBehalfOf: person, groups };
  return { ...person, kind: agentOnly ? 'agent' : 'person', groups };
}

/**
 * The current actor's subject of an RFC 8693 `act` claim (`{"sub": "<agent>"}`), or undefined without one: as an object,
 * its JSON text, or the `map[sub:<agent>]` text API Gateway's JWT authorizer makes of an object claim (Go's map
 * formatting, keys sorted, a nested `act` of earlier actors inside). An `act` that names no actor is 401: a token that
 * says someone acts, but not who, names no one.
 */
function actorOf(act: unknown): string | undefined {
  if (act === undefined || act === null) return undefined;
  let value: unknown = act;
  if (typeof act === 'string') value = act.startsWith('map[') ? { sub: goMapSub(act) } : jsonOf(act);
  const sub = typeof value === 'object' && value !== null ? (value as { sub?: unknown }).sub : undefined;
  if (typeof sub === 'string' && sub !== '') return sub;
  throw new HttpProblem(401, EdgeCode.Unauthorized, 'The bearer token has an act claim that names no actor (no sub).', {
    'WWW-Authenticate': 'Bearer error="invalid_token", error_description="The act claim names no actor."',
  });
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The top-level `sub` of Go's `map[k:v k2:map[…]]` text, read in one pass; undefined without one. */
function goMapSub(text: string): string | undefined {
  if (!text.endsWith(']')) return undefined;
  const inner = text.slice(4, -1);
  let depth = 0;
  let start = 0;
  for (let index = 0; index <= inner.length; index++) {
    const char = inner[index];
    if (char === '[') depth++;
    else if (char === ']') depth--;
    else if ((char === ' ' || char === undefined) && depth === 0) {
      const entry = inner.slice(start, index);
      if (entry.startsWith('sub:')) return entry.slice(4);
      start = index + 1;
    }
  }
  return undefined;
}

/** Whether the token vouches for its `email` (§16). */
function isEmailVerified(claims: TokenClaims, options: PrincipalOptions): boolean {
  const verified = claims.email_verified;
  if (verified === true || verified === 'true') return true;
  return (
    options.verifiedEmailIssuer !== undefined &&
    claims.iss === options.verifiedEmailIssuer &&
    claims.token_use === 'access'
  );
}

/**
 * The token's scopes (§16): its `scope` claim (space-separated) and its `scp` claim (a list, or a string, as Okta and
 * Azure write it), or undefined when it has neither (an ID token).
 */
export function scopesOf(claims: TokenClaims | undefined): string[] | undefined {
  const scope = claims?.scope;
  const scp = claims?.scp;
  const given = [scope, scp].filter((value) => value !== undefined && value !== null);
  if (given.length === 0) return undefined;
  return [...new Set(given.flatMap(listClaim))];
}

/**
 * A claim holding a list: a JSON array, a string split on spaces only (a comma is part of a name: `CN=finance,OU=x`
 * is one group), or the `[a b]` string API Gateway's JWT authorizer makes of an array claim (it passes every claim as
 * a string).
 */
function listClaim(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string' && item !== '');
  if (typeof value !== 'string') return [];
  const text = /^\[(.*)\]$/s.exec(value.trim())?.[1] ?? value;
  return text.split(' ').filter(Boolean);
}
