import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpRouterHandler, { type Method, type Route as MiddyRoute } from '@middy/http-router';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { SlackAnswer } from '../channels/slack.ts';
import type { DecideResult, PauseView } from '../checkpoints/checkpoint-store.ts';
import { stringifyWithMessages } from '../checkpoints/continuation-json.ts';
import {
  BadRequestError,
  ForbiddenError,
  LinkKeyUnavailableError,
  PauseNotFoundError,
  StorageUnavailableError,
} from '../errors.ts';
import { isIdempotencyKey, parseInput } from '../inputs.ts';
import {
  checkNamesOnlyItsPause,
  LINK_HEADER,
  LinkClosedError,
  type LinkGrant,
  LinkRefusedError,
  LinksNotConfiguredError,
} from '../links/links.ts';
import type { Decision } from '../rehydrate/decisions.ts';
import {
  fitMessages,
  HTTP_MESSAGES_LIMIT_BYTES,
  HTTP_SINGLE_MESSAGE_LIMIT_BYTES,
  pendingBody,
  resumeBody,
  sliceMessages,
} from '../resume/fit.ts';
import { checkJsonDepth } from '../resume/request.ts';
import {
  cancelTurn,
  claimHandoff,
  createLink,
  decideTurn,
  getContinuation,
  getPause,
  listPauses,
  pauseTurn,
  resumeTurn,
  type UseCaseDeps,
} from '../resume/resume.ts';
import type { Scope } from '../vocabulary.ts';
import type { Actor } from '../wire.ts';
import type * as z from '../zod.ts';
import { principalOf, scopesOf } from './principal.ts';
import { EdgeCode, HttpProblem, problemDetails } from './problem.ts';
import {
  type BearerRoute,
  type BodySpec,
  isBearer,
  missingScope,
  PATH_PATTERNS,
  pathPattern,
  ROUTES,
  type Route,
  type RouteId,
  type RouteSpec,
} from './routes.ts';
import { type EntryTelemetry, withTelemetry } from './telemetry.ts';

/**
 * The HTTP API (§5, §9–§13) for API Gateway HTTP API, payload v2: middy with the router and header normalizer, the
 * routes of the table in `routes.ts`, each caller's tenant, scopes and principal decided in one place (`callerOf`),
 * an answer link's pause in another (`linkOf`), the body read as the table says (size, media type, JSON, depth), the
 * path, query and body checked against the table's zod schemas in one place (`serve`), and `problemDetails` turning
 * every error into a problem. Each handler gets its input typed, calls one use case, and shapes the response; the
 * rules are the store's.
 */

/** An HTTP API event with a JWT authorizer; a POST route's body is JSON-parsed by the time its handler sees it. */
export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
/** A structured payload v2 response. */
export type ApiResult = Exclude<APIGatewayProxyResultV2, string>;

/** What the API runs on: the use cases' dependencies and how tokens are read. */
export interface ApiDeps extends UseCaseDeps {
  logger: EntryTelemetry['logger'];
  metrics: EntryTelemetry['metrics'];
  /** The authorizer claim holding the tenant; default `tenant`. */
  tenantClaim?: string;
  /** The claim holding a principal's groups (§13); default `cognito:groups`. */
  groupsClaim?: string;
  /** The stack's own Cognito pool's issuer: its access tokens' `email` is verified (§16, `PrincipalOptions`). */
  verifiedEmailIssuer?: string;
  /** Refuse tokens without a `scope` claim on every bearer route (403), as `AuthorizationScopes` do on AWS. */
  requireScopes?: boolean;
  /** No tokens at all (the local service without auth): every request is the anonymous person. */
  anonymous?: boolean;
  /** The OIDC issuer and the inbox's client id, for the inbox's sign-in (§13), when one is configured. */
  oidc?: { issuer: string; clientId?: string };
  /** Slack's interactions (§14), when the Slack channel is configured. */
  slack?: SlackInteractions;
}

/** What answers `POST /channels/slack/interactions`: the raw body and headers in, Slack's JSON or a refusal out. */
export interface SlackInteractions {
  interactions(request: { headers: Record<string, string | undefined>; body: string }): Promise<SlackAnswer>;
}

/** Who calls a bearer route: the tenant its token names and the principal it is (§13), known before the handler runs. */
export interface Caller {
  tenant: string;
  by: Actor;
}
/** The output of a route's schema, or undefined where the route has none. */
type Parsed<S> = S extends z.ZodMiniType ? z.output<S> : undefined;
/**
 * What a route's handler is given: the event (its body parsed, as the table says), and its path parameters, query and
 * body as the table's schemas parsed them.
 */
export interface RouteInput<R = RouteSpec> {
  event: ApiEvent;
  params: R extends { params: infer S } ? Parsed<S> : undefined;
  query: R extends { query: infer S } ? Parsed<S> : undefined;
  body: R extends { body: { schema: infer S } } ? Parsed<S> : undefined;
}
/** An answer link's grant and the open pause it opens (§11). */
export type OpenLink = LinkGrant & { view: PauseView };
/** Who a route's handler serves: a bearer route's caller, an answer-link route's open link (§11), else no one. */
export type WhoOf<R> = R extends BearerRoute ? Caller : R extends { scopes: 'link' } ? OpenLink : undefined;
/** A route's handler: its caller decided, its scopes checked, its body read and its input checked. */
export type RouteHandler<R = RouteSpec> = (input: RouteInput<R>, who: WhoOf<R>) => Promise<ApiResult>;
/** One handler per route of the table that the API function serves. */
export type RouteHandlers = {
  [R in ApiRoute as R['id']]: RouteHandler<R>;
};
/** The routes whose handlers other modules provide; until given, each answers 404 `not_found` (not configured). */
export type ProvidedRouteId = 'createLink' | 'slackInteractions' | 'mcp';

/** The routes of the table the API function serves (the inbox page's are its own function's). */
type ApiRoute = Exclude<Route, { served: 'inbox' }>;

/** Milliseconds before the function's own timeout at which a request still running answers 503 instead. */
const TIMEOUT_EARLY_MS = 1_500;

/** The API handler: every route of the table, errors as problems, metrics flushed after each request. */
export function createApiHandler(
  deps: ApiDeps,
  options: {
    /** More routes on the same handler: the local service adds the inbox page's (`INBOX_ROUTES`). */
    routes?: Array<MiddyRoute<ApiEvent, ApiResult>>;
    /** The handlers other modules provide (recipient links, Slack's interactions). */
    handlers?: Partial<Pick<RouteHandlers, ProvidedRouteId>>;
  } = {},
) {
  const tenantClaim = deps.tenantClaim ?? 'tenant';
  const tenantOf = (event: ApiEvent): string => {
    const tenant = event.requestContext.authorizer?.jwt?.claims?.[tenantClaim];
    if (typeof tenant !== 'string' || tenant === '') {
      throw new HttpProblem(401, EdgeCode.Unauthorized, `A token with a "${tenantClaim}" claim is required.`, {
        'WWW-Authenticate': 'Bearer',
      });
    }
    return tenant;
  };
  /**
   * The one place a bearer route's caller is decided (§13, §16): the tenant (401), the principal (401 without a
   * subject), the route's scopes (403).
   */
  const callerOf = (event: ApiEvent, route: RouteSpec & { scopes: readonly Scope[] }): Caller => {
    const tenant = tenantOf(event);
    const claims = event.requestContext.authorizer?.jwt?.claims;
    const by = principalOf(claims, {
      ...(deps.groupsClaim === undefined ? {} : { groupsClaim: deps.groupsClaim }),
      ...(deps.anonymous ? { anonymous: true } : {}),
      ...(deps.verifiedEmailIssuer === undefined ? {} : { verifiedEmailIssuer: deps.verifiedEmailIssuer }),
    });
    const missing = missingScope(route, scopesOf(claims), deps.requireScopes ?? false);
    if (missing !== undefined) {
      throw new ForbiddenError(
        `${route.method} ${route.path} needs a token with the scope ${missing}; this token's scopes do not include it.`,
        { scope: missing },
      );
    }
    return { tenant, by };
  };
  /**
   * The one pause an answer link opens (§11), still open; anything else is 401 or 410 without saying why, before the
   * request's input is checked. Read with its messages when the query asks for them, so a route that shows them reads
   * the pause once.
   */
  const linkOf = async (event: ApiEvent): Promise<OpenLink> => {
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
  const inboxUrlOf = (event: ApiEvent) => deps.inboxUrl ?? `https://${event.requestContext.domainName}/inbox`;

  const handlers: RouteHandlers = {
    health: async () => json(200, { status: 'ok' }),
    // The description (24 KB) is a chunk of its own, read by the one route that serves it.
    openapi: async () => json(200, (await import('./openapi.json', { with: { type: 'json' } })).default),
    pause: async ({ event, params, body }, { tenant, by }) => {
      const idempotencyKey = event.headers?.['idempotency-key'];
      if (idempotencyKey !== undefined && !isIdempotencyKey(idempotencyKey)) {
        throw new BadRequestError('The Idempotency-Key header must be 1–255 visible ASCII characters.', [
          { path: '/headers/idempotency-key', message: 'must be 1–255 visible ASCII characters' },
        ]);
      }
      const created = await pauseTurn(
        deps,
        { tenant, runId: params.runId, ...body, ...(idempotencyKey === undefined ? {} : { idempotencyKey }), by },
        { inboxUrl: inboxUrlOf(event) },
      );
      // Both ids are URL-safe by construction (the runId pattern, the server-made interruptId).
      const location = `/runs/${created.runId}/pauses/${created.interruptId}`;
      if (created.status === 'resumed') {
        // Every ask decided by the deployment's policies (§17): the closed pause, as the last decision would answer.
        const { toolCallId, asks, createdAt, expiresAt } = created;
        const closed = { status: created.status, toolCallId, asks, createdAt, expiresAt };
        return json(
          200,
          { ...closed, ...resumeBody(created, HTTP_MESSAGES_LIMIT_BYTES) },
          {
            Location: location,
            'Cache-Control': 'no-store',
          },
        );
      }
      const { replayed: _, ...response } = created;
      return json(201, response, { Location: location, 'Cache-Control': 'no-store' });
    },
    getPause: async ({ params, query }, { tenant, by }) => {
      // With who asks, so each ask says whether they may decide it (§13).
      const view = await getPause(deps, { tenant, ...params }, { includeMessages: query.include === 'messages', by });
      return json(200, withMessages(view, query.from, query.limit));
    },
    resume: async ({ params, body }, { tenant, by }) => {
      const key = { tenant, runId: params.runId, interruptId: body.interruptId, by };
      if (body.decisions === undefined) {
        const result = await resumeTurn(deps, { ...key, answer: body.answer }, 'http');
        return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
      }
      return decided(await decideTurn(deps, { ...key, decisions: body.decisions as Decision[] }, 'http'));
    },
    getContinuation: async ({ params, query }, { tenant }) => {
      const continuation = await getContinuation(deps, { tenant, ...params });
      return json(200, withMessages(continuation, query.from, query.limit));
    },
    listPauses: async ({ query: { mine, ...query } }, { tenant, by }) => {
      const page = await listPauses(deps, { tenant, ...query, ...(mine === 'true' ? { waitingFor: by } : {}) });
      return json(200, page.cursor === undefined ? { items: page.items } : page);
    },
    cancel: async ({ params, body }, { tenant, by }) => {
      const result = await cancelTurn(deps, { tenant, ...params, ...body, by }, 'http');
      return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
    },
    createLink:
      options.handlers?.createLink ??
      (async ({ event, params, body }, { tenant, by }) => {
        const recipient = { email: body.email, ...(body.name === undefined ? {} : { name: body.name }) };
        const deliver = body.deliver === true;
        try {
          const link = await createLink(
            deps,
            { tenant, ...params, recipient, deliver, by },
            { inboxUrl: inboxUrlOf(event) },
          );
          // A delivered link is the recipient's alone (§16): the answer says it went, never what it is.
          return json(deliver ? 202 : 201, link, { 'Cache-Control': 'no-store' });
        } catch (error) {
          if (error instanceof LinksNotConfiguredError) throw new HttpProblem(404, EdgeCode.NotFound, error.message);
          throw error;
        }
      }),
    claim: async ({ params, body }, { tenant }) => {
      if (deps.claims === undefined)
        throw new HttpProblem(404, EdgeCode.NotFound, 'Hand-off claims are not configured.');
      return json(200, await claimHandoff(deps, { tenant, ...params, claimant: body.claimant }));
    },
    // Streamable HTTP (§18): on AWS the MCP function's own; the API function never loads the MCP SDK.
    mcp: options.handlers?.mcp ?? notConfigured('The MCP server is'),
    // The answer-link routes (§11): the only ones that take a link token, in a header; no bearer token.
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
    // Slack's interactions (§14): no bearer token; the body is form-encoded and its signature is the check.
    slackInteractions:
      options.handlers?.slackInteractions ??
      (deps.slack === undefined
        ? notConfigured('Slack interactions are')
        : async ({ event }) => {
            const { body, isBase64Encoded } = event;
            const raw = body === undefined ? '' : isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
            const answer = await (deps.slack as SlackInteractions).interactions({
              headers: event.headers ?? {},
              body: raw,
            });
            if ('problem' in answer) throw new HttpProblem(answer.status, answer.problem.code, answer.problem.detail);
            if (answer.body === undefined) return { statusCode: answer.status, body: '' };
            return json(answer.status, answer.body);
          }),
  };

  const served = ROUTES.filter((route): route is ApiRoute => !('served' in route) || route.served !== 'inbox');
  const extra = options.routes ?? [];
  const routes: Array<MiddyRoute<ApiEvent, ApiResult>> = [
    ...served.map((route) => ({
      method: route.method,
      path: route.path,
      handler: serve(route, handlers[route.id] as unknown as ServedHandler, { callerOf, linkOf }),
    })),
    ...extra,
  ];

  const routed = middy<ApiEvent, ApiResult>({
    timeoutEarlyInMillis: TIMEOUT_EARLY_MS,
    // A request that runs out of time may still commit: say so, with the same retry semantics as a storage timeout.
    timeoutEarlyResponse: () => {
      throw new StorageUnavailableError(
        'The request ran out of time before it finished. What it asked may or may not have happened; retry the same request, which is safe.',
      );
    },
  })
    .use(httpHeaderNormalizer())
    .use(problemDetails(deps.logger))
    .handler(httpRouterHandler<ApiEvent, ApiResult>({ routes, notFoundResponse: notFound(served, extra) }));
  // Outside middy: the context is on every line before the router runs, the metrics written after a problem is made.
  return withTelemetry(deps, (event: ApiEvent, context): Promise<ApiResult> => routed(event, context));
}

/** A route's handler as `serve` calls it: each route's own types are checked where the handlers are written. */
type ServedHandler = (
  input: { event: ApiEvent; params: unknown; query: unknown; body: unknown },
  who: Caller | OpenLink | undefined,
) => Promise<ApiResult>;

/**
 * A route as the router runs it, in the order API Gateway would: the caller of a bearer route first (401, 403), then
 * its body (413, 415, 400), an answer link and its pause (401, 403, 404, 410), then the path, query and body against
 * the table's schemas — the one place a zod failure becomes a 400 `bad_request` naming each bad field — then the
 * handler, with the schemas' output.
 */
function serve(
  route: RouteSpec,
  handler: ServedHandler,
  who: {
    callerOf: (event: ApiEvent, route: RouteSpec & { scopes: readonly Scope[] }) => Caller;
    linkOf: (event: ApiEvent) => Promise<OpenLink>;
  },
) {
  return async (event: ApiEvent): Promise<ApiResult> => {
    const caller = isBearer(route) ? who.callerOf(event, route) : undefined;
    const read = route.body === undefined ? event : readBody(event, route.body);
    const link = route.scopes === 'link' ? await who.linkOf(read) : undefined;
    const input = {
      event: read,
      params: route.params === undefined ? undefined : parseInput(route.params, read.pathParameters, 'path'),
      query: route.query === undefined ? undefined : parseInput(route.query, read.queryStringParameters ?? {}, 'query'),
      body:
        route.body?.schema === undefined
          ? undefined
          : parseInput(route.body.schema, read.body, route.body.name ?? 'body'),
    };
    return handler(input, caller ?? link);
  };
}

/** A handler another module provides, until it is given: 404, as for a route this deployment does not have. */
function notConfigured(what: string): RouteHandler<never> {
  return async () => {
    throw new HttpProblem(404, EdgeCode.NotFound, `${what} not configured.`);
  };
}

/** 202 while asks wait (§9), 200 with the continuation once the last decision committed it. */
function decided(result: DecideResult): ApiResult {
  if (result.kind === 'pending') return json(202, pendingBody(result));
  return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
}

function linkProblem(error: unknown): HttpProblem | LinkKeyUnavailableError {
  // A key that cannot be read now is the deployment's trouble, not the link's: 503 with Retry-After.
  if (error instanceof LinkKeyUnavailableError) return error;
  if (error instanceof LinkClosedError) return new HttpProblem(410, EdgeCode.LinkClosed, error.message);
  return new HttpProblem(401, EdgeCode.Unauthorized, new LinkRefusedError().message);
}

/** `application/json` or `application/<x>+json`, in any case, with or without parameters (RFC 9110 media types). */
const JSON_MEDIA_TYPE = /^\s*application\/([\w.!#$&^-]+\+)?json\s*(;.*)?$/i;

/**
 * A route's body, read as its table entry says: held to its limit (413); for JSON, sent as JSON (415), parsed (400)
 * and nested at most 256 levels (400). An optional body that is absent is an empty object.
 */
function readBody(event: ApiEvent, spec: BodySpec): ApiEvent {
  const { body, isBase64Encoded } = event;
  const raw = body === undefined ? '' : isBase64Encoded ? Buffer.from(body, 'base64') : body;
  const bytes = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (bytes > spec.limit) {
    throw new HttpProblem(
      413,
      EdgeCode.PayloadTooLarge,
      `The body is ${bytes} bytes; this route takes at most ${spec.limit}.`,
    );
  }
  if (spec.media === 'raw') return event;
  if (bytes === 0 && spec.optional) return { ...event, body: {} as never };
  const contentType = event.headers?.['content-type'];
  if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType)) {
    throw new HttpProblem(
      415,
      EdgeCode.UnsupportedMediaType,
      'The body must be JSON, sent with Content-Type: application/json.',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    throw new BadRequestError('The body is missing or is not valid JSON.', [{ path: '', message: 'not valid JSON' }]);
  }
  checkJsonDepth(parsed, 'body');
  return { ...event, body: parsed as never };
}

/**
 * 405 with `Allow` when another method serves the path, else 404: the table's compiled paths of the routes served
 * (`PATH_PATTERNS`), and those of any route added beside them.
 */
function notFound(served: readonly RouteSpec[], extra: Array<MiddyRoute<ApiEvent, ApiResult>>) {
  const patterns = [
    ...served.map((route) => ({ method: route.method, regexp: PATH_PATTERNS[route.id as RouteId] })),
    ...extra.map((route) => ({ method: route.method, regexp: pathPattern(route.path) })),
  ];
  return ({ method, path }: { method: string; path: string }): never => {
    const allowed = [...new Set(patterns.filter((p) => p.regexp.test(path)).map((p) => p.method))] as Method[];
    if (allowed.length > 0) {
      throw new HttpProblem(
        405,
        EdgeCode.MethodNotAllowed,
        `${method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
        {
          Allow: allowed.join(', '),
        },
      );
    }
    throw new HttpProblem(404, EdgeCode.NotFound, `No route ${method} ${path}.`);
  };
}

/** A body with messages that fits a response: a slice when `from`/`limit` are given, omitted past 5 MB. */
function withMessages<T extends { messages?: unknown[] }>(
  body: T,
  from: number | undefined,
  limit: number | undefined,
) {
  // Without a slice, the messages are not read here: still JSON, they are sized and written unparsed.
  if ((from === undefined && limit === undefined) || body.messages === undefined) {
    return fitMessages(body, HTTP_MESSAGES_LIMIT_BYTES);
  }
  const slice = sliceMessages(
    body.messages,
    from ?? 0,
    limit ?? body.messages.length,
    HTTP_MESSAGES_LIMIT_BYTES - 64 * 1024,
  );
  // A slice holds at least one message; one message too big for 5 MB still travels alone, up to what Lambda returns.
  const bound = slice.messages.length === 1 ? HTTP_SINGLE_MESSAGE_LIMIT_BYTES : HTTP_MESSAGES_LIMIT_BYTES;
  return fitMessages({ ...body, ...slice }, bound);
}

/** A JSON response; a continuation's messages still held as JSON are written as they are, unparsed. */
function json(statusCode: number, body: object, headers: Record<string, string> = {}): ApiResult {
  return { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body: stringifyWithMessages(body) };
}
