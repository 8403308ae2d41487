import type { Method, Route as MiddyRoute } from '@middy/http-router';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { DecideResult } from '../checkpoints/checkpoint-store.ts';
import { stringifyWithMessages } from '../checkpoints/continuation-json.ts';
import { BadRequestError } from '../errors.ts';
import { parseInput } from '../inputs.ts';
import {
  fitMessages,
  HTTP_MESSAGES_LIMIT_BYTES,
  HTTP_SINGLE_MESSAGE_LIMIT_BYTES,
  pendingBody,
  resumeBody,
  sliceMessages,
} from '../resume/fit.ts';
import { checkJsonDepth } from '../resume/request.ts';
import type { Scope } from '../vocabulary.ts';
import type { Actor } from '../wire.ts';
import type { RouteHandler } from './http-api.ts';
import type { OpenLink } from './link-routes.ts';
import { EdgeCode, HttpProblem } from './problem.ts';
import { type BodySpec, isBearer, PATH_PATTERNS, pathPattern, type RouteId, type RouteSpec } from './routes.ts';

/**
 * How the router serves one route of the table, the same for every route: its caller or its link decided, its body
 * read as the table says (size, media type, JSON, depth), its path, query and body parsed by the table's schemas,
 * and its answer written as JSON; 404 and 405 for what no route serves.
 */

/** An HTTP API event with a JWT authorizer; a POST route's body is JSON-parsed by the time its handler sees it. */
export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
/** A structured payload v2 response. */
export type ApiResult = Exclude<APIGatewayProxyResultV2, string>;

/** Who calls a bearer route: the tenant its token names and the principal it is (§13), known before the handler runs. */
export interface Caller {
  tenant: string;
  by: Actor;
}

/** A route's handler as `serve` calls it: each route's own types are checked where the handlers are written. */
export type ServedHandler = (
  input: { event: ApiEvent; params: unknown; query: unknown; body: unknown },
  who: Caller | OpenLink | undefined,
) => Promise<ApiResult>;

/**
 * A route as the router runs it, in the order API Gateway would: the caller of a bearer route first (401, 403), then
 * its body (413, 415, 400), an answer link and its pause (401, 403, 404, 410), then the path, query and body against
 * the table's schemas — the one place a zod failure becomes a 400 `bad_request` naming each bad field — then the
 * handler, with the schemas' output.
 */
export function serve(
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
export function notConfigured(what: string): RouteHandler<never> {
  return async () => {
    throw new HttpProblem(404, EdgeCode.NotFound, `${what} not configured.`);
  };
}

/** 202 while asks wait (§9), 200 with the continuation once the last decision committed it. */
export function decided(result: DecideResult): ApiResult {
  if (result.kind === 'pending') return json(202, pendingBody(result));
  return json(200, resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES));
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
export function notFound(served: readonly RouteSpec[], extra: Array<MiddyRoute<ApiEvent, ApiResult>>) {
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
export function withMessages<T extends { messages?: unknown[] }>(
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
export function json(statusCode: number, body: object, headers: Record<string, string> = {}): ApiResult {
  return { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body: stringifyWithMessages(body) };
}
