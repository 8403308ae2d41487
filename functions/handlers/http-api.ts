import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpRouterHandler, { type Method, type Route } from '@middy/http-router';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import { isPlainObject, LIMITS } from '../checkpoints/validation.ts';
import { FORMAT_NAMES } from '../rehydrate/formats/index.ts';
import {
  fitMessages,
  HTTP_MESSAGES_LIMIT_BYTES,
  HTTP_SINGLE_MESSAGE_LIMIT_BYTES,
  resumeBody,
  sliceMessages,
} from '../resume/fit.ts';
import { checkJsonDepth, jsonBytes, MAX_ANSWER_BYTES, opaqueId, parseOrThrow, runId } from '../resume/request.ts';
import { pauseTurn, resumeTurn, type UseCaseDeps } from '../resume/resume.ts';
import * as z from '../zod.ts';
import openapi from './openapi.json' with { type: 'json' };
import { EdgeCode, HttpProblem, problemDetails } from './problem.ts';

/**
 * The HTTP API (§5) for API Gateway HTTP API, payload v2: middy with the router, header normalizer and JSON body
 * parser, zod at the edge, and `problemDetails` turning every error into a problem. Each route parses, calls the
 * store or a use case, and shapes the response.
 */

/** An HTTP API event with a JWT authorizer; the body is JSON-parsed by the time a POST route sees it. */
export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
/** A structured payload v2 response. */
export type ApiResult = Exclude<APIGatewayProxyResultV2, string>;

/** What the API runs on: the use cases' dependencies and the JWT claim that names the tenant. */
export interface ApiDeps extends UseCaseDeps {
  /** The authorizer claim holding the tenant; default `tenant`. */
  tenantClaim?: string;
}

/** The largest pause body (§5). */
export const MAX_PAUSE_BODY_BYTES = 6 * 1024 * 1024;
/** The largest resume body read before parsing; the answer itself is then held to 256 KB. */
const MAX_RESUME_BODY_BYTES = 1024 * 1024;

const jsonObject = z.custom<Record<string, unknown>>(isPlainObject, 'must be a JSON object');

const pauseBody = z.object({
  format: z.enum(FORMAT_NAMES),
  messages: z.array(z.unknown()).check(z.minLength(1)),
  toolCallId: z.string().check(z.minLength(1)),
  prompt: z.optional(z.string()),
  // Checked, not rebuilt: a rebuilt record would lose an own "__proto__" key, which JSON may carry.
  answerSchema: z.optional(z.union([jsonObject, z.boolean()])),
  expiresInSeconds: z.optional(
    z.number().check(z.int(), z.minimum(LIMITS.expiresInSeconds.min), z.maximum(LIMITS.expiresInSeconds.max)),
  ),
  taskToken: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
  metadata: z.optional(
    jsonObject.check(
      z.refine(
        (value) => jsonBytes(value) <= LIMITS.metadataBytes,
        `must be at most ${LIMITS.metadataBytes} bytes of JSON`,
      ),
    ),
  ),
});

const resumeBodySchema = z.object({ interruptId: opaqueId, answer: z.unknown() });
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
  status: z.optional(z.enum(['paused', 'resumed', 'expired'])),
  limit: z.optional(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100))),
  cursor: z.optional(z.string().check(z.minLength(1))),
});

/** The API handler: every route of §5, errors as problems, metrics flushed after each request. */
export function createApiHandler(deps: ApiDeps) {
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
        const created = await pauseTurn(deps, { tenant, runId: params.runId, ...body });
        // Both ids are URL-safe by construction (the runId pattern, the server-made interruptId).
        const location = `/runs/${created.runId}/pauses/${created.interruptId}`;
        return json(201, created, { Location: location });
      }),
    },
    {
      method: 'GET',
      path: '/runs/{runId}/pauses/{interruptId}',
      handler: async (event: ApiEvent) => {
        const tenant = tenantOf(event);
        const params = parseOrThrow(pauseParams, event.pathParameters, 'path');
        const query = parseOrThrow(pauseQuery, event.queryStringParameters ?? {}, 'query');
        const view = await deps.store.getPause(
          { tenant, runId: params.runId, interruptId: params.interruptId },
          { includeMessages: query.include === 'messages' },
        );
        return json(200, withMessages(view, query.from, query.limit));
      },
    },
    {
      method: 'POST',
      path: '/runs/{runId}/resume',
      handler: jsonRoute(MAX_RESUME_BODY_BYTES, async (event) => {
        const tenant = tenantOf(event);
        const params = parseOrThrow(runParams, event.pathParameters, 'path');
        const body = parseOrThrow(resumeBodySchema, event.body, 'resume body');
        if (jsonBytes(body.answer) > MAX_ANSWER_BYTES) {
          throw new HttpProblem(413, EdgeCode.PayloadTooLarge, `The answer is over ${MAX_ANSWER_BYTES} bytes of JSON.`);
        }
        const result = await resumeTurn(deps, { tenant, runId: params.runId, ...body }, 'http');
        return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
      }),
    },
    {
      method: 'GET',
      path: '/runs/{runId}/continuations/{continuationId}',
      handler: async (event: ApiEvent) => {
        const tenant = tenantOf(event);
        const params = parseOrThrow(continuationParams, event.pathParameters, 'path');
        const query = parseOrThrow(continuationQuery, event.queryStringParameters ?? {}, 'query');
        const continuation = await deps.store.getContinuation({ tenant, ...params });
        const { runId, interruptId, continuationId, format, messages, resumedAt } = continuation;
        return json(
          200,
          withMessages({ runId, interruptId, continuationId, format, messages, resumedAt }, query.from, query.limit),
        );
      },
    },
    {
      method: 'GET',
      path: '/pauses',
      handler: async (event: ApiEvent) => {
        const tenant = tenantOf(event);
        const query = parseOrThrow(listQuery, event.queryStringParameters ?? {}, 'query');
        const page = await deps.store.listPauses({ tenant, ...query });
        return json(200, page.cursor === undefined ? { items: page.items } : page);
      },
    },
  ];

  return middy<ApiEvent, ApiResult>()
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(deps.metrics, { throwOnEmptyMetrics: false }))
    .use(httpHeaderNormalizer())
    .use(problemDetails(deps.logger))
    .handler(httpRouterHandler<ApiEvent, ApiResult>({ routes, notFoundResponse: notFound(routes) }));
}

/** `application/json` or `application/<x>+json`, in any case, with or without parameters (RFC 9110 media types). */
const JSON_MEDIA_TYPE = /^\s*application\/([\w.!#$&^-]+\+)?json\s*(;.*)?$/i;

/** A POST route: the raw body is held to `maxBytes` (413), then must be JSON (415/400) before `handler` runs. */
function jsonRoute(maxBytes: number, handler: (event: ApiEvent) => Promise<ApiResult>) {
  return (
    middy<ApiEvent, ApiResult>()
      .before(async (request) => {
        const { body, isBase64Encoded } = request.event;
        const bytes =
          body === undefined ? 0 : isBase64Encoded ? Buffer.from(body, 'base64').length : Buffer.byteLength(body);
        if (bytes > maxBytes) {
          throw new HttpProblem(
            413,
            EdgeCode.PayloadTooLarge,
            `The body is ${bytes} bytes; this route takes at most ${maxBytes}.`,
          );
        }
      })
      .before(async (request) => {
        const contentType = request.event.headers?.['content-type'];
        if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType)) {
          throw new HttpProblem(
            415,
            EdgeCode.UnsupportedMediaType,
            'The body must be JSON, sent with Content-Type: application/json.',
          );
        }
      })
      // The media type is checked above, case-insensitively; the parser's own check is case-sensitive. (The option
      // exists at runtime in this version, its type declaration lags.)
      .use(httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]))
      .before(async (request) => checkJsonDepth(request.event.body, 'body'))
      .handler(handler)
  );
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
  if (body.messages === undefined || (from === undefined && limit === undefined)) {
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

function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) };
}
