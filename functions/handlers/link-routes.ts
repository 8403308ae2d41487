import type { PauseView } from '../checkpoints/checkpoint-store.ts';
import { LinkKeyUnavailableError, PauseNotFoundError } from '../errors.ts';
import {
  checkNamesOnlyItsPause,
  LINK_HEADER,
  LinkClosedError,
  type LinkGrant,
  LinkRefusedError,
} from '../links/links.ts';
import type { Decision } from '../rehydrate/decisions.ts';
import { HTTP_MESSAGES_LIMIT_BYTES, resumeBody } from '../resume/fit.ts';
import { decideTurn, getPause, resumeTurn, type UseCaseDeps } from '../resume/resume.ts';
import type { RouteHandlers } from './http-api.ts';
import { EdgeCode, HttpProblem } from './problem.ts';
import { type ApiEvent, decided, json, withMessages } from './serve.ts';

/**
 * The answer-link routes (§11): the one pause a link opens, read and decided as the link's own principal — its
 * recipient, or the pause's link. No bearer token: the link's token, in a header, is the credential, and anything
 * wrong with it is 401 or 410 without saying why, before the request's input is checked.
 */

/** An answer link's grant and the open pause it opens (§11). */
export type OpenLink = LinkGrant & { view: PauseView };

/**
 * The one pause an answer link opens, still open; read with its messages when the query asks for them, so a route
 * that shows them reads the pause once.
 */
export function linkOpener(deps: UseCaseDeps) {
  return async (event: ApiEvent): Promise<OpenLink> => {
    if (deps.links === undefined) throw new HttpProblem(404, EdgeCode.NotFound, 'Answer links are not configured.');
    let grant: LinkGrant;
    try {
      grant = await deps.links.verify(event.headers?.[LINK_HEADER]);
    } catch (error) {
      throw linkProblem(error);
    }
    // A link names only its own pause (§11): another one in the body or query is 403, and nothing changes.
    checkNamesOnlyItsPause(grant, { body: event.body, query: event.queryStringParameters });
    const includeMessages = event.queryStringParameters?.include === 'messages';
    let view: PauseView;
    try {
      view = await getPause(deps, grant, { ...(includeMessages ? { includeMessages } : {}), by: grant.principal });
    } catch (error) {
      if (error instanceof PauseNotFoundError) throw linkProblem(new LinkRefusedError());
      throw error;
    }
    if (view.status !== 'paused') throw linkProblem(new LinkClosedError());
    return { ...grant, view };
  };
}

/** The link routes' handlers: the pause as the link shows it, and its answer or decisions. */
export function linkRoutes(deps: UseCaseDeps): Pick<RouteHandlers, 'linkPause' | 'linkResume'> {
  return {
    linkPause: async ({ query }, { view }) => {
      if (query.include !== 'messages') return json(200, view, { 'Cache-Control': 'no-store' });
      return json(200, withMessages(view, query.from, query.limit), { 'Cache-Control': 'no-store' });
    },
    linkResume: async ({ body }, link) => {
      // Decided as the link's own principal (§13): its recipient, or the pause's link.
      const key = { tenant: link.tenant, runId: link.runId, interruptId: link.interruptId, by: link.principal };
      if (body.decisions === undefined) {
        const result = await resumeTurn(deps, { ...key, answer: body.answer }, 'link');
        return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
      }
      return decided(await decideTurn(deps, { ...key, decisions: body.decisions as Decision[] }, 'link'));
    },
  };
}

function linkProblem(error: unknown): HttpProblem | LinkKeyUnavailableError {
  // A key that cannot be read now is the deployment's trouble, not the link's: 503 with Retry-After.
  if (error instanceof LinkKeyUnavailableError) return error;
  if (error instanceof LinkClosedError) return new HttpProblem(410, EdgeCode.LinkClosed, error.message);
  return new HttpProblem(401, EdgeCode.Unauthorized, new LinkRefusedError().message);
}
