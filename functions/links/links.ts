import { foldEmail } from '../checkpoints/identity.ts';
import { ForbiddenError } from '../errors.ts';
import { once } from '../once.ts';
import { LIMITS, LINK_HEADER } from '../vocabulary.ts';
import type { Actor, Approvers, LinkRecipient } from '../wire.ts';

/**
 * Answer links (§11, §13) as every entry point knows them, without the code that signs and verifies them: what a
 * link names and who decides with it, the port that signs and verifies (`AnswerLinks`), its errors, and the rules the
 * HTTP edge applies. It imports neither jose nor a key store, so a function that only sometimes needs a link (the
 * API) can load `answer-links.ts` on first use (`answerLinksOnFirstUse`) and still name these at init.
 */

export type { LinkRecipient };
export { LINK_HEADER };

/**
 * How a link reaches its holder (§16), which is all it proves:
 * - `granted`: handed to a person who holds it — the URL answered to `POST …/links`, or the pause's own `answerUrl`
 *   (granted to the person who paused, then without a `recipient`). It decides as its grantor, and the recipient is
 *   a label (`for`).
 * - `delivered`: mailed by Handback to the recipient's address (the email channel, `deliver: true`): it decides as
 *   that address, verified.
 * Without one, a link is unattributed (the lifecycle events' `answerUrl`): it proves no one, so it decides only asks
 * without approvers or a quorum, on a pause without four eyes.
 */
export type LinkDelivery =
  | { kind: 'granted'; grantor: Actor; recipient?: LinkRecipient }
  | { kind: 'delivered'; recipient: LinkRecipient };

/** What a valid link token names, and who decides with it. */
export interface LinkGrant {
  tenant: string;
  runId: string;
  interruptId: string;
  /** Whom it was made for: a granted link's label, a delivered link's address; none on the pause's own links. */
  recipient?: LinkRecipient;
  /** Who decides with it (§16): the grantor, the delivered address (`email:<address>`), or `link:<interruptId>`. */
  principal: Actor;
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
   * `<inboxUrl>#<token>` for a pause (its token expires with the pause), deciding as `delivery` says (§16);
   * without it, an unattributed link. `LinkKeyUnavailableError` when the key cannot be had just now.
   */
  linkFor(pause: LinkedPause, inboxUrl: string, delivery?: LinkDelivery): Promise<string>;
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
 * Who decides with a link (§16): a granted link as its grantor (through the link, with the recipient as `for`); a
 * delivered link as the address it was delivered to, verified; an unattributed link as the pause's link.
 */
export function linkPrincipal(interruptId: string, delivery: LinkDelivery | undefined): Actor {
  if (delivery === undefined) return { kind: 'link', subject: `link:${interruptId}`, via: 'link' };
  if (delivery.kind === 'delivered') {
    const { email, name } = delivery.recipient;
    return {
      kind: 'link',
      subject: `email:${foldEmail(email)}`,
      email,
      emailVerified: true,
      ...(name === undefined ? {} : { name }),
      via: 'link',
    };
  }
  const { grantor, recipient } = delivery;
  return {
    kind: 'person',
    subject: grantor.subject,
    ...(grantor.email === undefined ? {} : { email: grantor.email }),
    ...(grantor.emailVerified === true && grantor.email !== undefined ? { emailVerified: true as const } : {}),
    ...(grantor.name === undefined ? {} : { name: grantor.name }),
    via: 'link',
    ...(recipient === undefined ? {} : { for: recipient }),
    groups: grantor.groups ?? [],
  };
}

/**
 * The grantor as a link carries them (§16): what they may decide by — subject, verified email, name — and, of their
 * groups, only those the pause's approvers name (the link may do only what its grantor may, and no more is signed).
 */
export function grantorOf(actor: Actor, approvers: ReadonlyArray<Approvers | undefined>): Actor {
  const named = new Set(approvers.flatMap((entry) => entry?.groups ?? []));
  const groups = (actor.groups ?? []).filter((group) => named.has(group)).slice(0, LIMITS.approvers.entries);
  return {
    kind: actor.kind,
    subject: actor.subject,
    ...(actor.email === undefined ? {} : { email: actor.email }),
    ...(actor.emailVerified === true && actor.email !== undefined ? { emailVerified: true as const } : {}),
    ...(actor.name === undefined ? {} : { name: actor.name }),
    via: actor.via,
    ...(groups.length === 0 ? {} : { groups }),
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
