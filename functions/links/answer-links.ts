import { errors, jwtVerify, SignJWT } from 'jose';

/**
 * Answer links (§11): a link to the inbox page with a signed token in the URL's fragment (never in a path or query
 * that reaches server logs), so that a person without an account can decide one pause from an email or a chat
 * message. The token is a JWT signed HS256 with the deployment's link key; it names exactly one pause of one tenant
 * and grants exactly one thing — to see that pause's asks and context and decide them — until the pause closes (its
 * `exp` is the pause's expiry, and every use checks the pause is still open). It lists nothing, reads no other pause
 * and works for no other tenant. Tokens are never logged.
 */

/** What a valid link token names. */
export interface LinkGrant {
  tenant: string;
  runId: string;
  interruptId: string;
}

/** The audience and type of a link token: no other token of the deployment verifies as one, nor one as another. */
const AUDIENCE = 'handback:answer-link';
const TYPE = 'handback-link+jwt';
/** The header the inbox page sends a link token in (never a query string). */
export const LINK_HEADER = 'x-handback-link';
/** The smallest link key: HS256 wants 256 bits. */
export const MIN_LINK_SECRET_BYTES = 32;

/** A link token that does not verify: tampered, foreign, made with another key, or malformed (never says which). */
export class LinkRefusedError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('This answer link is not valid.', options);
    this.name = 'LinkRefusedError';
  }
}

/** A link token that verified but whose pause has closed, or whose time has passed. */
export class LinkClosedError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('This answer link is closed: what it was for has been settled or has expired.', options);
    this.name = 'LinkClosedError';
  }
}

/** Signs and verifies answer links with one key. */
export interface AnswerLinks {
  /** `<inboxUrl>#<token>` for a pause (its token expires with the pause). */
  linkFor(grant: LinkGrant & { expiresAt: string }, inboxUrl: string): Promise<string>;
  /** The grant of a token; `LinkRefusedError` (401) or `LinkClosedError` (410, its time has passed). */
  verify(token: unknown): Promise<LinkGrant>;
}

/** Answer links signed with `secret` (at least 32 bytes); `clock` for tests. */
export function createAnswerLinks(secret: Uint8Array, clock: () => Date = () => new Date()): AnswerLinks {
  if (secret.length < MIN_LINK_SECRET_BYTES) {
    throw new Error(`The answer-link key must be at least ${MIN_LINK_SECRET_BYTES} bytes (HS256 wants 256 bits).`);
  }
  return {
    async linkFor(grant, inboxUrl) {
      const now = Math.floor(clock().getTime() / 1000);
      const token = await new SignJWT({ tnt: grant.tenant, run: grant.runId, pid: grant.interruptId })
        .setProtectedHeader({ alg: 'HS256', typ: TYPE })
        .setAudience(AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(Math.ceil(Date.parse(grant.expiresAt) / 1000))
        .sign(secret);
      return `${inboxUrl.split('#')[0]}#${token}`;
    },

    async verify(token) {
      // A JWT is three base64url parts; anything longer than any link we make is refused before any work.
      if (typeof token !== 'string' || token.length > 4096 || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) {
        throw new LinkRefusedError();
      }
      try {
        const { payload, protectedHeader } = await jwtVerify(token, secret, {
          algorithms: ['HS256'],
          audience: AUDIENCE,
          typ: TYPE,
          currentDate: clock(),
          requiredClaims: ['exp', 'tnt', 'run', 'pid'],
        });
        const { tnt, run, pid } = payload as Record<string, unknown>;
        if (
          protectedHeader.typ !== TYPE ||
          typeof tnt !== 'string' ||
          typeof run !== 'string' ||
          typeof pid !== 'string'
        ) {
          throw new LinkRefusedError();
        }
        return { tenant: tnt, runId: run, interruptId: pid };
      } catch (error) {
        if (error instanceof errors.JWTExpired) throw new LinkClosedError({ cause: error });
        if (error instanceof LinkRefusedError) throw error;
        throw new LinkRefusedError({ cause: error });
      }
    },
  };
}
