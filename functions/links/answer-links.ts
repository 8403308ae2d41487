import { errors, jwtVerify, SignJWT } from 'jose';
import { LinkKeyUnavailableError } from '../errors.ts';
import { type CachedReadOptions, createCachedRead } from './cached-read.ts';
import { type AnswerLinks, LinkClosedError, LinkRefusedError, linkPrincipal } from './links.ts';

/**
 * Answer links (§11, §13): a link to the inbox page with a signed token in the URL's fragment (never in a path or
 * query that reaches server logs), so that a person without an account can decide one pause from an email or a chat
 * message. The token is a JWT signed HS256 with the deployment's link key; it names exactly one pause of one tenant
 * and grants exactly one thing — to see that pause's asks and context and decide them — until the pause closes (its
 * `exp` is the pause's expiry, and every use checks the pause is still open). It lists nothing, reads no other pause
 * and works for no other tenant. A link is a capability: whoever holds it decides with it, as its principal — the
 * recipient it was made for, or the pause's own link. Tokens are never logged.
 *
 * This module is the signing and verifying, with jose, and the key: what a link names, the port and its errors are
 * in `links.ts` (re-exported here), which imports neither, so the API loads this module on first use.
 */

export {
  type AnswerLinks,
  answerLinksOnFirstUse,
  checkNamesOnlyItsPause,
  isPlausibleEmail,
  LINK_HEADER,
  LinkClosedError,
  type LinkedPause,
  type LinkGrant,
  type LinkRecipient,
  LinkRefusedError,
  LinksNotConfiguredError,
  linkPrincipal,
} from './links.ts';

/** The audience and type of a link token: no other token of the deployment verifies as one, nor one as another. */
const AUDIENCE = 'handback:answer-link';
const TYPE = 'handback-link+jwt';
/** The smallest link key: HS256 wants 256 bits. */
export const MIN_LINK_SECRET_BYTES = 32;

/** Where the key comes from: the bytes, or a function that reads them (see `createKeyCache`). */
export type LinkKey = Uint8Array | (() => Promise<Uint8Array>);

/** Answer links signed with `key` (at least 32 bytes, or a function reading it); `clock` for tests. */
export function createAnswerLinks(key: LinkKey, clock: () => Date = () => new Date()): AnswerLinks {
  if (key instanceof Uint8Array) checkKeyLength(key);
  const keyNow = key instanceof Uint8Array ? async () => key : key;
  return {
    async linkFor(pause, inboxUrl, options = {}) {
      const secret = await keyNow();
      const now = Math.floor(clock().getTime() / 1000);
      const { recipient, grantedBy } = options;
      const claims: Record<string, string> = { tnt: pause.tenant, run: pause.runId, pid: pause.interruptId };
      if (recipient !== undefined) {
        claims.eml = recipient.email;
        if (recipient.name !== undefined) claims.nam = recipient.name;
        if (grantedBy !== undefined) claims.gby = grantedBy;
      }
      const token = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: TYPE })
        .setAudience(AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(Math.ceil(Date.parse(pause.expiresAt) / 1000))
        .sign(secret);
      return `${inboxUrl.split('#')[0]}#${token}`;
    },

    async verify(token) {
      // A JWT is three base64url parts; anything longer than any link we make is refused before any work.
      if (typeof token !== 'string' || token.length > 4096 || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) {
        throw new LinkRefusedError();
      }
      const secret = await keyNow();
      try {
        const { payload, protectedHeader } = await jwtVerify(token, secret, {
          algorithms: ['HS256'],
          audience: AUDIENCE,
          typ: TYPE,
          currentDate: clock(),
          requiredClaims: ['exp', 'tnt', 'run', 'pid'],
        });
        const { tnt, run, pid, eml, nam, gby } = payload as Record<string, unknown>;
        if (
          protectedHeader.typ !== TYPE ||
          typeof tnt !== 'string' ||
          typeof run !== 'string' ||
          typeof pid !== 'string' ||
          (eml !== undefined && typeof eml !== 'string') ||
          (nam !== undefined && typeof nam !== 'string') ||
          (gby !== undefined && (typeof gby !== 'string' || eml === undefined))
        ) {
          throw new LinkRefusedError();
        }
        // A token made before links had recipients has no `eml`: it is the pause's own link, as it always was.
        const recipient = eml === undefined ? undefined : { email: eml, ...(nam === undefined ? {} : { name: nam }) };
        return {
          tenant: tnt,
          runId: run,
          interruptId: pid,
          ...(recipient === undefined ? {} : { recipient }),
          principal: linkPrincipal(pid, recipient, gby),
        };
      } catch (error) {
        if (error instanceof errors.JWTExpired) throw new LinkClosedError({ cause: error });
        if (error instanceof LinkRefusedError) throw error;
        throw new LinkRefusedError({ cause: error });
      }
    },
  };
}

/** How a key cache behaves; the defaults are the ones `docs/choices.md` explains. */
export type KeyCacheOptions = CachedReadOptions;

/**
 * The link key read on first use, not at cold start (`createCachedRead`): kept five minutes, a failed read remembered
 * five seconds and `LinkKeyUnavailableError` meanwhile, unless a key read before is still at hand. A key too short is
 * a failed read.
 */
export function createKeyCache(
  load: () => Promise<Uint8Array>,
  options: KeyCacheOptions = {},
): () => Promise<Uint8Array> {
  return createCachedRead(
    async () => {
      const loaded = await load();
      checkKeyLength(loaded);
      return loaded;
    },
    unavailable,
    options,
  );
}

function unavailable(retryInMs: number, cause?: unknown): LinkKeyUnavailableError {
  return new LinkKeyUnavailableError(undefined, {
    retryAfterSeconds: Math.max(1, Math.ceil(retryInMs / 1000)),
    ...(cause === undefined ? {} : { cause }),
  });
}

function checkKeyLength(key: Uint8Array): void {
  if (key.length < MIN_LINK_SECRET_BYTES) {
    throw new Error(`The answer-link key must be at least ${MIN_LINK_SECRET_BYTES} bytes (HS256 wants 256 bits).`);
  }
}
