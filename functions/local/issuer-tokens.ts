import { createRemoteJWKSet, decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';

/**
 * Tokens of an OIDC issuer, checked as API Gateway's JWT authorizer checks them (§13): an RSA signature (RS256,
 * RS384, RS512) by a key of the issuer's JWKS, found through its discovery document; `iss` the issuer; `aud` or
 * `client_id` one of the audiences; `exp` and `nbf`. jose's remote key set caches the keys and refetches them, at most
 * once per cooldown, when a token names a key it does not hold (the issuer rotated).
 */

/** The only signatures API Gateway's JWT authorizer accepts. */
export const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512'];

/** Where the local server finds and checks an issuer's tokens. */
export interface IssuerOptions {
  /** `HANDBACK_JWT_ISSUER`: the `iss` tokens must carry; its discovery document names the JWKS. */
  issuer: string;
  /** `HANDBACK_JWT_AUDIENCE`: a token's `aud` or `client_id` must be one of these. */
  audiences: readonly string[];
}

/** A token refused, with a reason that names the kind of failure and nothing of the token. */
export class TokenRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenRefused';
  }
}

/** A checker of the issuer's tokens: resolves with the claims of a valid one, rejects with a `TokenRefused`. */
export function issuerTokens(options: IssuerOptions): (token: string) => Promise<JWTPayload> {
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  // Discovered once; a failed discovery is retried by the next request rather than remembered.
  const keySet = () => {
    keys ??= discover(options.issuer).catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    return keys;
  };
  return async (token) => {
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new TokenRefused('The bearer token is malformed: it is not a JWT.');
    }
    if (typeof alg !== 'string' || !RSA_ALGORITHMS.includes(alg)) {
      throw new TokenRefused(
        `The bearer token is signed ${typeof alg === 'string' ? alg : 'with no algorithm'}: this server takes only RS256, RS384 or RS512 tokens of its issuer.`,
      );
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await keySet(), {
        issuer: options.issuer,
        algorithms: RSA_ALGORITHMS,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw error instanceof TokenRefused ? error : new TokenRefused(rejectionOf(error));
    }
    checkAudience(payload, options.audiences);
    return payload;
  };
}

/**
 * Refuses a token none of whose audiences (`aud`, or `client_id` as Cognito's access tokens carry it) is one of
 * `audiences`, as API Gateway does; nothing is refused when no audience is configured (`audiences` empty).
 */
export function checkAudience(payload: JWTPayload, audiences: readonly string[]): void {
  if (audiences.length === 0) return;
  const given = [payload.aud ?? [], payload.client_id ?? []].flat();
  if (!given.some((audience) => typeof audience === 'string' && audiences.includes(audience))) {
    throw new TokenRefused(
      'The bearer token is for another audience: its aud or client_id is not one this server takes.',
    );
  }
}

/** The issuer's key set, from the `jwks_uri` of its discovery document. */
async function discover(issuer: string) {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let document: { issuer?: unknown; jwks_uri?: unknown };
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    document = (await response.json()) as typeof document;
  } catch {
    throw new TokenRefused("The issuer's discovery document could not be read, so no token can be checked now.");
  }
  if (document.issuer !== issuer || typeof document.jwks_uri !== 'string') {
    throw new TokenRefused("The issuer's discovery document names another issuer or no jwks_uri.");
  }
  return createRemoteJWKSet(new URL(document.jwks_uri));
}

/**
 * Why jose refused a token, in words that name the kind of failure and nothing of the token; `badSignature` says what
 * a signature that does not verify means on the path that checked it (the issuer's keys, or the local secret).
 */
export function rejectionOf(
  error: unknown,
  badSignature = "The bearer token's signature does not verify with the issuer's keys.",
): string {
  const { code, claim } = error as { code?: unknown; claim?: unknown };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'The bearer token has expired.';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return badSignature;
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JOSE_GENERIC':
      return "The issuer's keys could not be read, so no token can be checked now.";
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'iss') return 'The bearer token is from another issuer.';
      if (claim === 'exp') return 'The bearer token has no valid exp claim: a token must expire.';
      if (claim === 'nbf' || claim === 'iat') return 'The bearer token is not valid yet.';
      return 'The bearer token is malformed: its claims are not valid JWT claims.';
    default:
      return 'The bearer token is malformed: it is not a JWT.';
  }
}
