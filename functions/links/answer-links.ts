import { errors, jwtVerify, SignJWT } from 'jose';
import { ForbiddenError, LinkKeyUnavailableError } from '../errors.ts';
import { LIMITS, LINK_HEADER } from '../vocabulary.ts';
import type { Principal } from '../wire.ts';
import { type CachedReadOptions, createCachedRead } from './cached-read.ts';

/**
 * Answer links (§11, §13): a link to the inbox page with a signed token in the URL's fragment (never in a path or
 * query that reaches server logs), so that a person without an account can decide one pause from an email or a chat
 * message. The token is a JWT signed HS256 with the deployment's link key; it names exactly one pause of one tenant
 * and grants exactly one thing — to see that pause's asks and context and decide them — until the pause closes (its
 * `exp` is the pause's expiry, and every use checks the pause is still open). It lists nothing, reads no other pause
 * and works for no other tenant. A link is a capability: whoever holds it decides with it, as its principal — the
 * recipient it was made for, or the pause's own link. Tokens are never logged.
 */

export { LINK_HEADER };

/** Whom a link was made for (§13): its decisions are recorded as theirs. */
export interface LinkRecipient {
  email: string;
  name?: string;
}

/** What a valid link token names, and who decides with it. */
export interface LinkGrant {
  tenant: string;
  runId: string;
  interruptId: string;
  /** The recipient it was made for; none on the pause's own `answerUrl`. */
  recipient?: LinkRecipient;
  /** Who decides with it (§13): `email:<address>` for a recipient's link, `link:<interruptId>` for the pause's own. */
  principal: Principal;
}

/** The pause a link is signed for. */
export interface LinkedPause {
  tenant: string;
  runId: string;
  interruptId: string;
  /** The pause's expiry: the token's. */
  expiresAt: string;
}

/** The audience and type of a link token: no other token of the deployment verifies as one, nor one as another. */
const AUDIENCE = 'handback:answer-link';
const TYPE = 'handback-link+jwt';
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

/** A link asked for where the deployment has no link key or no inbox (the HTTP edge answers 404, as the link routes). */
export class LinksNotConfiguredError extends Error {
  constructor() {
    super('Answer links are not configured.');
    this.name = 'LinksNotConfiguredError';
  }
}

/** Signs and verifies answer links with one key. */
export interface AnswerLinks {
  /**
   * `<inboxUrl>#<token>` for a pause (its token expires with the pause); with `recipient`, that person's own link,
   * whose decisions are recorded as theirs (§13). `LinkKeyUnavailableError` when the key cannot be had just now.
   */
  linkFor(
    pause: LinkedPause,
    inboxUrl: string,
    options?: { recipient?: LinkRecipient; grantedBy?: string },
  ): Promise<string>;
  /**
   * The grant of a token; `LinkRefusedError` (401), `LinkClosedError` (410, its time has passed), or
   * `LinkKeyUnavailableError` (503) when the key cannot be had just now.
   */
  verify(token: unknown): Promise<LinkGrant>;
}

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

/**
 * Who decides with a link (§13): its recipient, by email (lower case), with the subject of the person who made it;
 * or the pause's own link.
 */
export function linkPrincipal(
  interruptId: string,
  recipient: LinkRecipient | undefined,
  grantedBy?: string,
): Principal {
  if (recipient === undefined) return { kind: 'link', subject: `link:${interruptId}`, via: 'link' };
  return {
    kind: 'link',
    subject: `email:${recipient.email.toLowerCase()}`,
    email: recipient.email,
    ...(recipient.name === undefined ? {} : { name: recipient.name }),
    via: 'link',
    ...(grantedBy === undefined ? {} : { grantedBy }),
  };
}

/**
 * Refuses a link request that names another pause than its token's (§11 amendment): a `runId` or `interruptId` in the
 * body or the query that differs from the grant's is 403 `forbidden`, before anything is read or written. It is never
 * applied to the token's own pause instead.
 */
export function checkNamesOnlyItsPause(
  grant: Pick<LinkGrant, 'runId' | 'interruptId'>,
  request: { body?: unknown; query?: Record<string, string | undefined> | undefined },
): void {
  const sources = [request.query ?? {}, isRecord(request.body) ? request.body : {}];
  for (const source of sources) {
    for (const field of ['runId', 'interruptId'] as const) {
      if (!Object.hasOwn(source, field)) continue;
      if (source[field] !== grant[field]) {
        throw new ForbiddenError(
          `This answer link is for one pause only; the request names another ${field}. Nothing was changed.`,
        );
      }
    }
  }
}

/** A plausible email address: one `@`, something on each side, no spaces, a dot in the domain, at most 256 chars. */
export function isPlausibleEmail(value: string): boolean {
  return value.length <= LIMITS.recipientChars && /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value);
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
