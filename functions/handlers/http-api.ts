import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpRouterHandler, { type Route as MiddyRoute } from '@middy/http-router';
import type { SlackInteractions } from '../channels/slack-clicks.ts';
import { BadRequestError, ForbiddenError, StorageUnavailableError } from '../errors.ts';
import { isIdempotencyKey } from '../inputs.ts';
import { LinksNotConfiguredError } from '../links/links.ts';
import type { Decision } from '../rehydrate/decisions.ts';
import { HTTP_MESSAGES_LIMIT_BYTES, resumeBody } from '../resume/fit.ts';
import {
  cancelTurn,
  claimExecution,
  claimHandoff,
  createLink,
  decideTurn,
  finishExecution,
  getContinuation,
  getPause,
  getStats,
  listPauses,
  pauseTurn,
  resumeTurn,
  type UseCaseDeps,
} from '../resume/resume.ts';
import type { Scope } from '../vocabulary.ts';
import type { PolicySetView } from '../wire-reports.ts';
import type * as z from '../zod.ts';
import { linkOpener, linkRoutes, type OpenLink } from './link-routes.ts';
import { peopleRoutes } from './people.ts';
import { principalOf, scopesOf } from './principal.ts';
import { EdgeCode, HttpProblem, problemDetails } from './problem.ts';
import { type BearerRoute, missingScope, ROUTES, type Route, type RouteSpec } from './routes.ts';
import type { ScimEdge } from './scim-http.ts';
import {
  type ApiEvent,
  type ApiResult,
  type Caller,
  decided,
  json,
  notConfigured,
  notFound,
  type ServedHandler,
  serve,
  withMessages,
} from './serve.ts';
import { type EntryTelemetry, withTelemetry } from './telemetry.ts';

/**
 * The HTTP API (§5, §9–§13) for API Gateway HTTP API, payload v2: one handler for each route of the table in
 * `routes.ts`, each given its input typed, calling one use case and shaping the response; the rules are the store's.
 * A bearer route's caller — tenant, scopes, principal — is decided in one place (`callerOf`); how every route is
 * served (its body, its input parsed against the table's schemas) is `serve.ts`'s, the answer-link routes are
 * `link-routes.ts`'s, and `problemDetails` turns every error into a problem.
 */

/** The edge's shapes, for the modules that serve beside the API (the inbox's and the MCP routes). */
export type { ApiEvent, ApiResult, Caller, OpenLink };

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
  // §20 SCIM
  /** SCIM provisioning at `/scim/v2`, when configured: its secret, tenant and directory. */
  scim?: ScimEdge;
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
      // §21: the W3C trace the request came in; a malformed header is ignored by the pause's schema, never refused.
      const traceparent = event.headers?.traceparent;
      const created = await pauseTurn(
        deps,
        {
          tenant,
          runId: params.runId,
          ...body,
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
          ...(traceparent === undefined ? {} : { traceparent }),
          by,
        },
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
        const result = await resumeTurn(deps, { ...key, answer: body.answer }, 'api');
        return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
      }
      return decided(await decideTurn(deps, { ...key, decisions: body.decisions as Decision[] }, 'api'));
    },
    getContinuation: async ({ params, query }, { tenant }) => {
      const continuation = await getContinuation(deps, { tenant, ...params });
      return json(200, withMessages(continuation, query.from, query.limit));
    },
    listPauses: async ({ query: { mine, ...query } }, { tenant, by }) => {
      const page = await listPauses(deps, { tenant, ...query, ...(mine === 'true' ? { waitingFor: by } : {}) });
      return json(200, page.cursor === undefined ? { items: page.items } : page);
    },
    stats: async ({ query }, { tenant }) => json(200, await getStats(deps, { tenant, ...query })),
    cancel: async ({ params, body }, { tenant, by }) => {
      const result = await cancelTurn(deps, { tenant, ...params, ...body, by }, 'api');
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
    // §19: a dispatched call claimed before it runs, and how it ended; a retry under its Idempotency-Key is the claim.
    claimExecution: async ({ event, params, body }, { tenant, by }) => {
      const idempotencyKey = event.headers?.['idempotency-key'];
      if (idempotencyKey !== undefined && !isIdempotencyKey(idempotencyKey)) {
        throw new BadRequestError('The Idempotency-Key header must be 1–255 visible ASCII characters.', [
          { path: '/headers/idempotency-key', message: 'must be 1–255 visible ASCII characters' },
        ]);
      }
      const key = idempotencyKey === undefined ? {} : { idempotencyKey };
      const claimed = await claimExecution(deps, { tenant, ...params, toolCallId: body.toolCallId, ...key, by });
      return json(200, claimed, { 'Cache-Control': 'no-store' });
    },
    finishExecution: async ({ params, body }, { tenant, by }) =>
      json(200, await finishExecution(deps, { tenant, ...params, ...body, by })),
    // §19: what decides before people do, for anyone who may decide (the version names it on the audit trail).
    getPolicies: async () => {
      if (deps.policies === undefined) throw new HttpProblem(404, EdgeCode.NotFound, 'No policies are configured.');
      const { version, mode, default: fallback, timeZone, policies } = await deps.policies();
      return json(
        200,
        { version, mode, default: fallback, timeZone, policies: [...policies] } satisfies PolicySetView,
        {
          'Cache-Control': 'no-store',
        },
      );
    },
    // §19: shadow mode's would-be outcomes beside what people did, a page of the listing at a time.
    getPolicyShadow: async ({ query }, { tenant }) => {
      if (deps.policies === undefined) throw new HttpProblem(404, EdgeCode.NotFound, 'No policies are configured.');
      const { since, limit, cursor } = query;
      const page = await listPauses(deps, {
        tenant,
        ...(limit === undefined ? {} : { limit }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      const from = Date.parse(since);
      const within = page.items.filter((pause) => Date.parse(pause.createdAt) >= from);
      // Newest first: a page that reaches past `since` is the last one wanted.
      const next = within.length === page.items.length ? page.cursor : undefined;
      const { shadowReportOf } = await import('../checkpoints/policy-shadow.ts');
      return json(200, shadowReportOf(within, since, next), { 'Cache-Control': 'no-store' });
    },
    // Streamable HTTP (§18): on AWS the MCP function's own; the API function never loads the MCP SDK.
    mcp: options.handlers?.mcp ?? notConfigured('The MCP server is'),
    // The answer-link routes (§11): the only ones that take a link token, in a header; no bearer token.
    ...linkRoutes(deps),
    // §20 delegation: a person's own page of the directory.
    ...peopleRoutes(deps),
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
  const scim = deps.scim;
  const routes: Array<MiddyRoute<ApiEvent, ApiResult>> = [
    ...served.map((route) => ({
      method: route.method,
      path: route.path,
      handler: serve(route, handlers[route.id] as unknown as ServedHandler, { callerOf, linkOf: linkOpener(deps) }),
    })),
    // §20 SCIM: its own secret, no JWT (an open request, `isOpenRequest`); its code loads with its first request.
    ...(scim === undefined
      ? []
      : [
          {
            method: 'ANY' as const,
            path: '/scim/v2/{proxy+}',
            handler: async (event: ApiEvent) => (await import('./scim-http.ts')).serveScim(scim, event),
          },
        ]),
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
