import { LIMITS } from '../../vocabulary.ts';
import type {
  ContinuationBody,
  Decision,
  DecisionStats,
  MessagesSlice,
  PausePage,
  PauseView,
  PendingDecisions,
  PersonView,
  Problem,
} from './types.ts';

export { problemText } from './problems.ts';

/**
 * The page's calls to the API, on its own origin. Signed in, they carry the bearer token the person pasted (kept in
 * `sessionStorage`, so it lasts for the browser session only), or none when the API asks for none. From an answer
 * link, they carry the link's token in the `x-handback-link` header, on the link routes only (§11). Every failure
 * comes back as a problem, a request that got no answer too.
 */

/** Where the page's data comes from: a signed-in person's tenant, or one answer link. */
export type Access = { kind: 'signed-in' } | { kind: 'link'; token: string };

/** Names one pause. */
export interface PauseRef {
  runId: string;
  interruptId: string;
}

/** A call's outcome. */
export type Result<T> = { ok: true; status: number; body: T } | { ok: false; problem: Problem };

const TOKEN_KEY = 'handback.token';
/** Transcript messages per slice. */
export const SLICE = 50;
/** Pauses per page of the list (§12: the API's default page). */
export const PAGE_SIZE = LIMITS.pageSize.default;

/** The bearer token of this browser session, if one was pasted. */
export function savedToken(): string | undefined {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Keeps (or, with `undefined`, forgets) the bearer token for this browser session. */
export function saveToken(token: string | undefined): void {
  try {
    if (token === undefined) sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Storage refused (a private mode): the token lasts until the page is left.
  }
}

/** The API's calls for one kind of access; `base` is the API's root (the page's URL without `/inbox`). */
export function createApi(base: URL, access: Access) {
  const url = (path: string) => new URL(path, base).toString();
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Result<T>> => {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (access.kind === 'link') headers['x-handback-link'] = access.token;
    else {
      const token = savedToken();
      if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    }
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url(path), {
        method,
        headers,
        credentials: 'omit',
        cache: 'no-store',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      return problem(0, 'network', 'The service could not be reached. Check your connection and try again.');
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (response.ok) return { ok: true, status: response.status, body: parsed as T };
    const given = typeof parsed === 'object' && parsed !== null ? (parsed as Partial<Problem>) : {};
    return {
      ok: false,
      problem: {
        ...given,
        status: response.status,
        code: typeof given.code === 'string' ? given.code : `http_${response.status}`,
      },
    };
  };
  const pausePath = (ref: PauseRef) =>
    `runs/${encodeURIComponent(ref.runId)}/pauses/${encodeURIComponent(ref.interruptId)}`;

  return {
    access,
    /** The API's root. */
    base,
    /** How decisions went for the tenant's asks of the pauses made in a window (§21). */
    stats: (since: string, until: string) =>
      call<DecisionStats>('GET', `stats?${new URLSearchParams({ since, until })}`),
    /** The tenant's open pauses, newest first; `mine`: only those waiting for the requester's decision (§13). */
    list: (cursor?: string, mine = false) =>
      call<PausePage>(
        'GET',
        `pauses?status=paused&limit=${PAGE_SIZE}${mine ? '&mine=true' : ''}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      ),
    /** One pause (the link's own, from a link). */
    pause: (ref: PauseRef) => call<PauseView>('GET', access.kind === 'link' ? 'links/pause' : pausePath(ref)),
    /** A slice of the pause's transcript. */
    messages: (ref: PauseRef, from: number) =>
      call<PauseView & MessagesSlice>(
        'GET',
        `${access.kind === 'link' ? 'links/pause' : pausePath(ref)}?include=messages&from=${from}&limit=${SLICE}`,
      ),
    /** Decisions for some or all of the pause's asks. */
    decide: (ref: PauseRef, decisions: Decision[]) =>
      access.kind === 'link'
        ? call<PendingDecisions | ContinuationBody>('POST', 'links/resume', { decisions })
        : call<PendingDecisions | ContinuationBody>('POST', `runs/${encodeURIComponent(ref.runId)}/resume`, {
            interruptId: ref.interruptId,
            decisions,
          }),
    /** The signed-in person as the directory has them (§20), their delegation and whose approvals they hold. */
    me: () => call<PersonView>('GET', 'people/me'),
    /** Cancels the pause (signed in only). */
    cancel: (ref: PauseRef, reason: string | undefined) =>
      call<ContinuationBody>('POST', `${pausePath(ref)}/cancel`, reason === undefined ? {} : { reason }),
  };
}

/** The API's calls. */
export type Api = ReturnType<typeof createApi>;

function problem(status: number, code: string, detail: string): { ok: false; problem: Problem } {
  return { ok: false, problem: { status, code, detail } };
}
