import { ForbiddenError } from '../errors.ts';
import { once } from '../once.ts';
import { LIMITS, LINK_HEADER } from '../vocabulary.ts';
import type { Principal } from '../wire.ts';

/**
 * Answer links (§11, §13) as every entry point knows them, without the code that signs and verifies them: what a
 * link names and who decides with it, the port that signs and verifies (`AnswerLinks`), its errors, and the rules the
 * HTTP edge applies. It imports neither jose nor a key store, so a function that only sometimes needs a link (the
 * API) can load `answer-links.ts` on first use (`answerLinksOnFirstUse`) and still name these at init.
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

/**
 * Answer links made by `load` when a request first signs or verifies one: the promise is kept, so a container loads
 * them once however many requests wait (and keeps the key cache they hold); a load that fails is not kept, so the
 * next request tries again. Each call answers as the loaded links do.
 */
export function answerLinksOnFirstUse(load: () => Promise<AnswerLinks>): AnswerLinks {
  const links = once(load);
  return {
    linkFor: async (pause, inboxUrl, options) => (await links()).linkFor(pause, inboxUrl, options),
    verify: async (token) => (await links()).verify(token),
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
