import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpRouterHandler, { type Method, type Route } from '@middy/http-router';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { DecideResult, PauseView } from '../checkpoints/checkpoint-store.ts';
import { stringifyWithMessages } from '../checkpoints/continuation-json.ts';
import { isPlainObject } from '../checkpoints/json.ts';
import { isIdempotencyKey } from '../checkpoints/validation.ts';
import { BadRequestError, LinkKeyUnavailableError, PauseNotFoundError, StorageUnavailableError } from '../errors.ts';
import {
  checkNamesOnlyItsPause,
  isPlausibleEmail,
  LINK_HEADER,
  LinkClosedError,
  type LinkGrant,
  LinkRefusedError,
  LinksNotConfiguredError,
} from '../links/answer-links.ts';
import type { Decision } from '../rehydrate/decisions.ts';
import {
  fitMessages,
  HTTP_MESSAGES_LIMIT_BYTES,
  HTTP_SINGLE_MESSAGE_LIMIT_BYTES,
  pendingBody,
  resumeBody,
  sliceMessages,
} from '../resume/fit.ts';
import { checkJsonDepth, opaqueId, parseOrThrow, runId } from '../resume/request.ts';
import {
  cancelTurn,
  createLink,
  decideTurn,
  getContinuation,
  getPause,
  listPauses,
  pauseTurn,
  resumeTurn,
  type UseCaseDeps,
} from '../resume/resume.ts';
import { ASK_KINDS, FORMAT_NAMES, LIMITS, ON_EXPIRY, PAUSE_STATUSES, SCOPES } from '../vocabulary.ts';
import type { NotifyEntry, Principal } from '../wire.ts';
import * as z from '../zod.ts';
import openapi from './openapi.json' with { type: 'json' };
import { EdgeCode, HttpProblem, problemDetails } from './problem.ts';

/**
 * The HTTP API (§5, §9–§12) for API Gateway HTTP API, payload v2: middy with the router and header normalizer, the
 * body parsed here (size, media type, JSON, depth), zod at the edge, and `problemDetails` turning every error into a
 * problem. Each route parses, calls one use case, and shapes the response; the rules are the store's.
 */

/** An HTTP API event with a JWT authorizer; a POST route's body is JSON-parsed by the time its handler sees it. */
export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
/** A structured payload v2 response. */
export type ApiResult = Exclude<APIGatewayProxyResultV2, string>;

/** What the API runs on: the use cases' dependencies and the JWT claim that names the tenant. */
export interface ApiDeps extends UseCaseDeps {
  /** The authorizer claim holding the tenant; default `tenant`. */
  tenantClaim?: string;
  /** Slack's interactions (§14), when the Slack channel is configured. */
  slack?: SlackInteractions;
}

/** What answers `POST /channels/slack/interactions`: the raw body and headers in, a status and JSON body out. */
export interface SlackInteractions {
  interactions(request: {
    headers: Record<string, string | undefined>;
    body: string;
  }): Promise<{ status: number; body?: object }>;
}

/** The largest pause body (§5). */
export const MAX_PAUSE_BODY_BYTES = 6 * 1024 * 1024;
/** The largest resume or cancel body read before parsing; the answers themselves are then held to their limits. */
const MAX_DECISION_BODY_BYTES = 1024 * 1024;
/** Milliseconds before the function's own timeout at which a request still running answers 503 instead. */
const TIMEOUT_EARLY_MS = 1_500;

const jsonObject = z.custom<Record<string, unknown>>(isPlainObject, 'must be a JSON object');
// Checked, not rebuilt: a rebuilt record would lose an own "__proto__" key, which JSON may carry.
const jsonSchema = z.optional(z.union([jsonObject, z.boolean()]));

const askBody = z.object({
  toolCallId: z.string().check(z.minLength(1)),
  kind: z.optional(z.enum(ASK_KINDS)),
  prompt: z.optional(z.string()),
  answerSchema: jsonSchema,
  argsSchema: jsonSchema,
  editable: z.optional(z.boolean()),
});

const pauseBody = z.object({
  format: z.enum(FORMAT_NAMES),
  messages: z.array(z.unknown()).check(z.minLength(1)),
  toolCallId: z.optional(z.string().check(z.minLength(1))),
  prompt: z.optional(z.string()),
  answerSchema: jsonSchema,
  asks: z.optional(z.array(askBody).check(z.minLength(LIMITS.asks.min), z.maxLength(LIMITS.asks.max))),
  expiresInSeconds: z.optional(
    z.number().check(z.int(), z.minimum(LIMITS.expiresInSeconds.min), z.maximum(LIMITS.expiresInSeconds.max)),
  ),
  onExpiry: z.optional(z.enum(ON_EXPIRY)),
  remindBeforeSeconds: z.optional(z.number().check(z.int(), z.minimum(1))),
  taskToken: z.optional(z.string().check(z.minLength(1), z.maxLength(LIMITS.taskTokenChars))),
  callbackId: z.optional(z.string().check(z.minLength(1), z.maxLength(LIMITS.callbackIdChars))),
  metadata: z.optional(jsonObject),
  // Checked by the store with the pause's other fields (§14), each entry named.
  notify: z.optional(z.array(z.custom<NotifyEntry>(() => true))),
});

/** A resume body: part one's `answer`, or `decisions` (§9) — exactly one. */
const resumeBodySchema = z
  .object({ interruptId: opaqueId, answer: z.optional(z.unknown()), decisions: z.optional(z.array(z.unknown())) })
  .check(
    z.refine(
      (body) => 'answer' in body !== (body.decisions !== undefined),
      'give exactly one of answer (a pause with one answer ask) or decisions',
    ),
  );
const linkResumeBody = z
  .object({ answer: z.optional(z.unknown()), decisions: z.optional(z.array(z.unknown())) })
  .check(
    z.refine((body) => 'answer' in body !== (body.decisions !== undefined), 'give exactly one of answer or decisions'),
  );
const cancelBody = z.object({ reason: z.optional(z.string()) });
/** A recipient's link (§13): whom it is for. */
const linkBody = z.object({
  email: z
    .string()
    .check(z.refine(isPlausibleEmail, `must be an email address of at most ${LIMITS.recipientChars} characters`)),
  name: z.optional(z.string().check(z.minLength(1), z.maxLength(LIMITS.recipientChars))),
});
const runParams = z.object({ runId });
const pauseParams = z.object({ runId, interruptId: opaqueId });
const continuationParams = z.object({ runId, continuationId: opaqueId });
const sliceQuery = {
  from: z.optional(z.coerce.number().check(z.int(), z.minimum(0))),
  limit: z.optional(z.coerce.number().check(z.int(), z.minimum(1))),
};
const pauseQuery = z.object({ include: z.optional(z.enum(['messages'])), ...sliceQuery });
const continuationQuery = z.object(sliceQuery);
const listQuery = z.object({
  status: z.optional(z.enum(PAUSE_STATUSES)),
  limit: z.optional(z.coerce.number().check(z.int(), z.minimum(LIMITS.pageSize.min), z.maximum(LIMITS.pageSize.max))),
  cursor: z.optional(z.string().check(z.minLength(1))),
});

/** The API handler: every route, errors as problems, metrics flushed after each request. */
export function createApiHandler(
  deps: ApiDeps,
  options: {
    /** More routes on the same handler: the local service adds the inbox page's (`INBOX_ROUTES`). */
    routes?: Array<Route<ApiEvent, ApiResult>>;
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
   * The one pause an answer link opens (§11), still open; anything else is 401 or 410 without saying why. Read with
   * its messages when `includeMessages`, so a route that shows them reads the pause once.
   */
  const linkOf = async (event: ApiEvent, includeMessages = false): Promise<LinkGrant & { view: PauseView }> => {
    if (deps.links === undefined) throw new HttpProblem(404, EdgeCode.NotFound, 'Answer links are not configured.');
    let grant: LinkGrant;
    try {
      grant = await deps.links.verify(event.headers?.[LINK_HEADER]);
    } catch (error) {
      throw linkProblem(error);
    }
    checkNamesOnlyItsPause(grant, { body: event.body, query: event.queryStringParameters });
    const key = { tenant: grant.tenant, runId: grant.runId, interruptId: grant.interruptId };
    let view: PauseView;
    try {
      view = await getPause(deps, key, includeMessages ? { includeMessages } : undefined);
    } catch (error) {
      if (error instanceof PauseNotFoundError) throw linkProblem(new LinkRefusedError());
      throw error;
    }
    if (view.status !== 'paused') throw linkProblem(new LinkClosedError());
    return { ...grant, view };
  };
  const inboxUrlOf = (event: ApiEvent) => deps.inboxUrl ?? `https://${event.requestContext.domainName}/inbox`;

  const routes: Array<Route<ApiEvent, ApiResult>> = [
    { method: 'GET', path: '/health', handler: async () => json(200, { status: 'ok' }) },
    { method: 'GET', path: '/openapi.json', handler: async () => json(200, openapi) },
    {
      method: 'POST',
      path: '/runs/{runId}/pauses',
      handler: jsonRoute(MAX_PAUSE_BODY_BYTES, async (event) => {
        const tenant = tenantOf(event);
        const params = parseOrThrow(runParams, event.pathParameters, 'path');
        const body = parseOrThrow(pauseBody, event.body, 'pause body');
        const idempotencyKey = event.headers?.['idempotency-key'];
        if (idempotencyKey !== undefined && !isIdempotencyKey(idempotencyKey)) {
          throw new BadRequestError('The Idempotency-Key header must be 1–255 visible ASCII characters.', [
            { path: '/headers/idempotency-key', message: 'must be 1–255 visible ASCII characters' },
          ]);
        }
        const created = await pauseTurn(
          deps,
          {
            tenant,
            runId: params.runId,
            ...body,
            ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
            by: principalOf(event),
          },
          { inboxUrl: inboxUrlOf(event) },
        );
        const { replayed: _, ...response } = created;
        // Both ids are URL-safe by construction (the runId pattern, the server-made interruptId).
        const location = `/runs/${created.runId}/pauses/${created.interruptId}`;
        return json(201, response, { Location: location, 'Cache-Control': 'no-store' });
      }),
    },
    {
      method: 'GET',
      path: '/runs/{runId}/pauses/{interruptId}',
      handler: async (event: ApiEvent) => {
        const tenant = tenantOf(event);
        const params = parseOrThrow(pauseParams, event.pathParameters, 'path');
        const query = parseOrThrow(pauseQuery, event.queryStringParameters ?? {}, 'query');
        const view = await getPause(deps, { tenant, ...params }, { includeMessages: query.include === 'messages' });
        return json(200, withMessages(view, query.from, query.limit));
      },
    },
    {
      method: 'POST',
      path: '/runs/{runId}/pauses/{interruptId}/cancel',
      handler: jsonRoute(
        MAX_DECISION_BODY_BYTES,
        async (event) => {
          const tenant = tenantOf(event);
          const params = parseOrThrow(pauseParams, event.pathParameters, 'path');
          const body = parseOrThrow(cancelBody, event.body ?? {}, 'cancel body');
          const result = await cancelTurn(deps, { tenant, ...params, ...body }, 'http');
          return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
        },
        { optionalBody: true },
      ),
    },
    {
      method: 'POST',
      path: '/runs/{runId}/resume',
      handler: jsonRoute(MAX_DECISION_BODY_BYTES, async (event) => {
        const tenant = tenantOf(event);
        const params = parseOrThrow(runParams, event.pathParameters, 'path');
        const body = parseOrThrow(resumeBodySchema, event.body, 'resume body');
        const key = { tenant, runId: params.runId, interruptId: body.interruptId };
        if (body.decisions === undefined) {
          const result = await resumeTurn(deps, { ...key, answer: body.answer }, 'http');
          return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
        }
        return decided(await decideTurn(deps, { ...key, decisions: body.decisions as Decision[] }, 'http'));
      }),
    },
    {
      method: 'GET',
      path: '/runs/{runId}/continuations/{continuationId}',
      handler: async (event: ApiEvent) => {
        const tenant = tenantOf(event);
        const params = parseOrThrow(continuationParams, event.pathParameters, 'path');
        const query = parseOrThrow(continuationQuery, event.queryStringParameters ?? {}, 'query');
        const continuation = await getContinuation(deps, { tenant, ...params });
        return json(200, withMessages(continuation, query.from, query.limit));
      },
    },
    {
      method: 'GET',
      path: '/pauses',
      handler: async (event: ApiEvent) => {
        const tenant = tenantOf(event);
        const query = parseOrThrow(listQuery, event.queryStringParameters ?? {}, 'query');
        const page = await listPauses(deps, { tenant, ...query });
        return json(200, page.cursor === undefined ? { items: page.items } : page);
      },
    },
    // The answer-link routes (§11): the only ones that take a link token, in a header; no bearer token.
    {
      method: 'GET',
      path: '/links/pause',
      handler: async (event: ApiEvent) => {
        const link = await linkOf(event, event.queryStringParameters?.include === 'messages');
        const query = parseOrThrow(pauseQuery, event.queryStringParameters ?? {}, 'query');
        if (query.include !== 'messages') return json(200, link.view, { 'Cache-Control': 'no-store' });
        return json(200, withMessages(link.view, query.from, query.limit), { 'Cache-Control': 'no-store' });
      },
    },
    {
      method: 'POST',
      path: '/links/resume',
      handler: jsonRoute(MAX_DECISION_BODY_BYTES, async (event) => {
        const link = await linkOf(event);
        const body = parseOrThrow(linkResumeBody, event.body, 'resume body');
        // Decided as the link's own principal (§13): its recipient, or the pause's link.
        const key = { tenant: link.tenant, runId: link.runId, interruptId: link.interruptId, by: link.principal };
        if (body.decisions === undefined) {
          const result = await resumeTurn(deps, { ...key, answer: body.answer }, 'link');
          return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
        }
        return decided(await decideTurn(deps, { ...key, decisions: body.decisions as Decision[] }, 'link'));
      }),
    },
    {
      method: 'POST',
      path: '/runs/{runId}/pauses/{interruptId}/links',
      handler: jsonRoute(MAX_DECISION_BODY_BYTES, async (event) => {
        const tenant = tenantOf(event);
        const params = parseOrThrow(pauseParams, event.pathParameters, 'path');
        const body = parseOrThrow(linkBody, event.body, 'link body');
        const recipient = { email: body.email, ...(body.name === undefined ? {} : { name: body.name }) };
        try {
          const link = await createLink(
            deps,
            { tenant, ...params, recipient, by: principalOf(event) },
            { inboxUrl: inboxUrlOf(event) },
          );
          return json(201, link, { 'Cache-Control': 'no-store' });
        } catch (error) {
          if (error instanceof LinksNotConfiguredError) throw new HttpProblem(404, EdgeCode.NotFound, error.message);
          throw error;
        }
      }),
    },
    // Slack's interactions (§14): no bearer token; the body is form-encoded and its signature is the check.
    ...(deps.slack === undefined
      ? []
      : [
          {
            method: 'POST' as const,
            path: '/channels/slack/interactions',
            handler: async (event: ApiEvent): Promise<ApiResult> => {
              const { body, isBase64Encoded } = event;
              const raw =
                body === undefined ? '' : isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
              if (Buffer.byteLength(raw) > MAX_DECISION_BODY_BYTES) {
                throw new HttpProblem(413, EdgeCode.PayloadTooLarge, 'The body is too large.');
              }
              const answer = await (deps.slack as SlackInteractions).interactions({
                headers: event.headers ?? {},
                body: raw,
              });
              if (answer.body === undefined) return { statusCode: answer.status, body: '' };
              return json(answer.status, answer.body);
            },
          },
        ]),
    ...(options.routes ?? []),
  ];

  return middy<ApiEvent, ApiResult>({
    timeoutEarlyInMillis: TIMEOUT_EARLY_MS,
    // A request that runs out of time may still commit: say so, with the same retry semantics as a storage timeout.
    timeoutEarlyResponse: () => {
      throw new StorageUnavailableError(
        'The request ran out of time before it finished. What it asked may or may not have happened; retry the same request, which is safe.',
      );
    },
  })
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(deps.metrics, { throwOnEmptyMetrics: false }))
    .use(httpHeaderNormalizer())
    .use(problemDetails(deps.logger))
    .handler(httpRouterHandler<ApiEvent, ApiResult>({ routes, notFoundResponse: notFound(routes) }));
}

/** 202 while asks wait (§9), 200 with the continuation once the last decision committed it. */
function decided(result: DecideResult): ApiResult {
  if (result.kind === 'pending') return json(202, pendingBody(result));
  return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
}

/**
 * Who makes a request (§13), from the authorizer's claims: `sub`, `email`, `name`; `kind: "agent"` when its scopes
 * hold `handback/agent` but not `handback/decide`; with auth off, `anonymous`.
 */
function principalOf(event: ApiEvent): Principal {
  const claims = event.requestContext.authorizer?.jwt?.claims ?? {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const scope = claims.scope;
  const scopes = Array.isArray(scope) ? scope.map(String) : String(scope ?? '').split(/\s+/);
  const agent = scopes.includes(SCOPES.agent) && !scopes.includes(SCOPES.decide);
  const email = text(claims.email);
  const name = text(claims.name);
  return {
    kind: agent ? 'agent' : 'person',
    subject: text(claims.sub) ?? 'anonymous',
    ...(email === undefined ? {} : { email }),
    ...(name === undefined ? {} : { name }),
    via: 'api',
  };
}

function linkProblem(error: unknown): HttpProblem | LinkKeyUnavailableError {
  if (error instanceof LinkKeyUnavailableError) return error;
  if (error instanceof LinkClosedError) return new HttpProblem(410, EdgeCode.LinkClosed, error.message);
  return new HttpProblem(401, EdgeCode.Unauthorized, new LinkRefusedError().message);
}

/** `application/json` or `application/<x>+json`, in any case, with or without parameters (RFC 9110 media types). */
const JSON_MEDIA_TYPE = /^\s*application\/([\w.!#$&^-]+\+)?json\s*(;.*)?$/i;

/**
 * A POST route: the raw body is held to `maxBytes` (413), must be JSON (415) and parse (400) and nest at most 256
 * levels (400) before `handler` runs. With `optionalBody`, no body at all is an empty object.
 */
function jsonRoute(
  maxBytes: number,
  handler: (event: ApiEvent) => Promise<ApiResult>,
  options: { optionalBody?: boolean } = {},
) {
  return async (event: ApiEvent): Promise<ApiResult> => {
    const { body, isBase64Encoded } = event;
    const raw = body === undefined ? '' : isBase64Encoded ? Buffer.from(body, 'base64') : body;
    const bytes = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
    if (bytes > maxBytes) {
      throw new HttpProblem(
        413,
        EdgeCode.PayloadTooLarge,
        `The body is ${bytes} bytes; this route takes at most ${maxBytes}.`,
      );
    }
    if (bytes === 0 && options.optionalBody) return handler({ ...event, body: {} as never });
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
    return handler({ ...event, body: parsed as never });
  };
}

/** 405 with `Allow` when another method serves the path, else 404. */
function notFound(routes: Array<Route<ApiEvent, ApiResult>>) {
  const patterns = routes.map((route) => ({
    method: route.method,
    regexp: new RegExp(`^${route.path.replace(/\{[^/]+\}/g, '[^/]+')}/?$`),
  }));
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
