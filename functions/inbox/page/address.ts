import { INBOX_PAUSE_QUERY } from '../../vocabulary.ts';
import type { PauseRef } from './api.ts';
import type { LinkMemory } from './screen.ts';

/**
 * Where the page is, as its address says: a pause (`?run=…&pause=…`) or the list, signed in; an answer link's token
 * from the fragment, kept for this tab's session; and what this tab decided on the link's pause.
 */

const LINK_KEY = 'handback.link';
/** What this tab decided on the link's pause once that closed it (`LinkMemory`), forgotten with a new link. */
const LINK_MEMORY_KEY = 'handback.link.decided';

/** The link's memory in `sessionStorage` (nothing, where the browser gives no storage). */
export const linkMemory = {
  read(): LinkMemory | undefined {
    try {
      const saved = sessionStorage.getItem(LINK_MEMORY_KEY);
      return saved === null ? undefined : (JSON.parse(saved) as LinkMemory);
    } catch {
      return undefined;
    }
  },
  write(memory: LinkMemory): void {
    try {
      sessionStorage.setItem(LINK_MEMORY_KEY, JSON.stringify(memory));
    } catch {
      // No storage: a reload says only that the request is closed.
    }
  },
};

/** Where the page is, signed in: a pause, the list, or how decisions are going (`?view=stats`, §21). */
export type Route = { kind: 'pause'; ref: PauseRef } | { kind: 'list' } | { kind: 'stats' };

/** The page's own address of how decisions are going. */
export const STATS_SEARCH = '?view=stats';

/** Where the address `search` puts the page, signed in. */
export function routeOf(search: string): Route {
  const params = new URLSearchParams(search);
  const runId = params.get(INBOX_PAUSE_QUERY.runId);
  const interruptId = params.get(INBOX_PAUSE_QUERY.interruptId);
  if (runId !== null && interruptId !== null) return { kind: 'pause', ref: { runId, interruptId } };
  return params.get('view') === 'stats' ? { kind: 'stats' } : { kind: 'list' };
}

/** The link token from the fragment (then removed from the address bar), or the one this tab already opened. */
export function linkToken(): string | undefined {
  const fragment = decodeURIComponent(location.hash.slice(1));
  if (fragment !== '') {
    history.replaceState(history.state, '', `${location.pathname}${location.search}`);
    try {
      sessionStorage.setItem(LINK_KEY, fragment);
      sessionStorage.removeItem(LINK_MEMORY_KEY);
    } catch {
      // No storage: the link lasts until the page is left.
    }
    return fragment;
  }
  try {
    return sessionStorage.getItem(LINK_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The page's own address of a pause: `?run=…&pause=…`. */
export function hrefOf(ref: PauseRef): string {
  return `?${new URLSearchParams({ [INBOX_PAUSE_QUERY.runId]: ref.runId, [INBOX_PAUSE_QUERY.interruptId]: ref.interruptId })}`;
}
