import { errors, jwtVerify, SignJWT } from 'jose';
import { LinkKeyUnavailableError } from '../errors.ts';
import type { Actor } from '../wire.ts';
import { type CachedReadOptions, createCachedRead } from './cached-read.ts';
import { type AnswerLinks, LinkClosedError, type LinkDelivery, LinkRefusedError, linkPrincipal } from './links.ts';

/**
 * Answer links (§11, §13): a link to the inbox page with a signed token in the URL's fragment (never in a path or
 * query that reaches server logs), so that a person without an account can decide one pause from an email or a chat
 * message. The token is a JWT signed HS256 with the deployment's link key; it names exactly one pause of one tenant
 * and grants exactly one thing — to see that pause's asks and context and decide them — until the pause closes (its
 * `exp` is the pause's expiry, and every use checks the pause is still open). It lists nothing, reads no other pause
 * and works for no other tenant. A link is a capability: whoever holds it decides with it, as what its delivery
 * proves (§16) — its grantor, the address Handback delivered it to, or no one. Tokens are never logged.
 *
 * This module is the signing and verifying, with jose, and the key: what a link names, the port and its errors are
 * in `links.ts` (re-exported here), which imports neither, so the API loads this module on first use.
 */

export {
  type AnswerLinks,
  answerLinksOnFirstUse,
  checkNamesOnlyItsPause,
  grantorOf,
  LINK_HEADER,
  LinkClosedError,
  type LinkDelivery,
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

/** The longest link token verified: more than any link this module signs (a grantor's groups are bounded). */
const MAX_TOKEN_CHARS = 16_384;

/** A link token's `how` (§16): granted to a person who holds it, or delivered by Handback to an address. */
const HOW = { granted: 'g', delivered: 'd' } as const;

/** The grantor as a token carries them: subject, email, verified, name, the groups that matter. */
interface GrantorClaim {
  s: string;
  e?: string;
  ev?: true;
  n?: string;
  g?: string[];
}

/** Answer links signed with `key` (at least 32 bytes, or a function reading it); `clock` for tests. */
export function createAnswerLinks(key: LinkKey, clock: () => Date = () => new Date()): AnswerLinks {
  if (key instanceof Uint8Array) checkKeyLength(key);
  const keyNow = key instanceof Uint8Array ? async () => key : key;
  return {
    async linkFor(pause, inboxUrl, delivery) {
      const secret = await keyNow();
      const now = Math.floor(clock().getTime() / 1000);
      const claims: Record<string, unknown> = { tnt: pause.tenant, run: pause.runId, pid: pause.interruptId };
      const recipient = delivery?.recipient;
      if (recipient !== undefined) {
        claims.eml = recipient.email;
        if (recipient.name !== undefined) claims.nam = recipient.name;
      }
      if (delivery?.kind === 'delivered') claims.how = HOW.delivered;
      if (delivery?.kind === 'granted') {
        const { subject, email, emailVerified, name, groups } = delivery.grantor;
        const grantor: GrantorClaim = { s: subject };
        if (email !== undefined) grantor.e = email;
        if (emailVerified === true && email !== undefined) grantor.ev = true;
        if (name !== undefined) grantor.n = name;
        if (groups !== undefined && groups.length > 0) grantor.g = [...groups];
        claims.how = HOW.granted;
        claims.gby = grantor;
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
      if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) {
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
        const { tnt, run, pid, eml, nam } = payload as Record<string, unknown>;
        if (
          protectedHeader.typ !== TYPE ||
          typeof tnt !== 'string' ||
          typeof run !== 'string' ||
          typeof pid !== 'string' ||
          (eml !== undefined && typeof eml !== 'string') ||
          (nam !== undefined && typeof nam !== 'string')
        ) {
          throw new LinkRefusedError();
        }
        const recipient = eml === undefined ? undefined : { email: eml, ...(nam === undefined ? {} : { name: nam }) };
        const delivery = deliveryOf(payload as Record<string, unknown>, recipient);
        return {
          tenant: tnt,
          runId: run,
          interruptId: pid,
          ...(recipient === undefined ? {} : { recipient }),
          principal: linkPrincipal(pid, delivery),
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
 * How a verified token's link reached its holder (§16). Tokens signed before §16 have no `how`, and prove only what
 * their making proves: one with a recipient and its maker's subject (`gby`, part three's `POST …/links`) was granted
 * by that subject, and decides as them — by subject alone, their email and groups unknown; one with a recipient and
 * no maker was mailed by the email channel (or made where auth was off, where no one else could be named) and decides
 * as that delivered address; one without a recipient (the 201's `answerUrl` and the events' alike, which cannot be
 * told apart) is unattributed. A malformed claim refuses the token.
 */
function deliveryOf(
  payload: Record<string, unknown>,
  recipient: { email: string; name?: string } | undefined,
): LinkDelivery | undefined {
  const { how, gby } = payload;
  if (how === HOW.delivered) {
    if (recipient === undefined || gby !== undefined) throw new LinkRefusedError();
    return { kind: 'delivered', recipient };
  }
  if (how === HOW.granted) {
    const grantor = grantorOf(gby);
    return { kind: 'granted', grantor, ...(recipient === undefined ? {} : { recipient }) };
  }
  if (how !== undefined) throw new LinkRefusedError();
  if (gby !== undefined) {
    if (typeof gby !== 'string' || recipient === undefined) throw new LinkRefusedError();
    return { kind: 'granted', grantor: { kind: 'person', subject: gby, via: 'api' }, recipient };
  }
  return recipient === undefined ? undefined : { kind: 'delivered', recipient };
}

/** The grantor a token names, checked field by field. */
function grantorOf(claim: unknown): Actor {
  if (typeof claim !== 'object' || claim === null || Array.isArray(claim)) throw new LinkRefusedError();
  const { s, e, ev, n, g } = claim as Record<string, unknown>;
  const text = (value: unknown) => value === undefined || typeof value === 'string';
  if (typeof s !== 'string' || s === '' || !text(e) || !text(n) || (ev !== undefined && ev !== true)) {
    throw new LinkRefusedError();
  }
  if (g !== undefined && (!Array.isArray(g) || !g.every((group) => typeof group === 'string'))) {
    throw new LinkRefusedError();
  }
  return {
    kind: 'person',
    subject: s,
    ...(typeof e === 'string' ? { email: e } : {}),
    ...(ev === true && typeof e === 'string' ? { emailVerified: true as const } : {}),
    ...(typeof n === 'string' ? { name: n } : {}),
    via: 'api',
    ...(Array.isArray(g) ? { groups: g as string[] } : {}),
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
