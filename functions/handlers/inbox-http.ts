import { gzipSync } from 'node:zlib';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpRouterHandler, { type Route } from '@middy/http-router';
import { type InboxSettings, type InboxSignIn, inboxAsset, inboxSettings } from '../inbox/assets.ts';
import type { ApiEvent, ApiResult } from './http-api.ts';
import { EdgeCode, HttpProblem, problemDetails } from './problem.ts';
import { type JsonLogger, withTelemetry } from './telemetry.ts';

/**
 * The inbox page's routes (§12), served without a token (its data calls carry one): `GET /inbox`,
 * `GET /inbox/config.json` (how the page signs people in, §13, from `signIn`) and `GET /inbox/{file}`, with each
 * file's security headers, gzipped for clients that take it. On AWS they are a function of their own
 * (`createInboxHandler`), so the page's files (about 250 KB, its validator included) stay out of the API function's
 * bundle and cold start; the local service adds them to its one API handler. `signIn` is checked on first use: an
 * issuer that is not a URL fails the page's requests, naming it.
 */
export function inboxRoutes(signIn: InboxSignIn = {}): Array<Route<ApiEvent, ApiResult>> {
  let settings: InboxSettings | undefined;
  const current = () => {
    settings ??= inboxSettings(signIn);
    return settings;
  };
  return [
    { method: 'GET', path: '/inbox', handler: async (event: ApiEvent) => asset('', event, current()) },
    {
      method: 'GET',
      path: '/inbox/{file}',
      handler: async (event: ApiEvent) => {
        const file = event.pathParameters?.file ?? '';
        return file === CONFIG_FILE ? config(current()) : asset(file, event, current());
      },
    },
  ];
}

/** The inbox page's routes without sign-in: the page asks for a token. */
export const INBOX_ROUTES: Array<Route<ApiEvent, ApiResult>> = inboxRoutes();

/** The inbox function: its two routes, any other request a 404 problem, errors as problems. */
export function createInboxHandler(logger: JsonLogger, signIn: InboxSignIn = {}) {
  const routed = middy<ApiEvent, ApiResult>()
    .use(httpHeaderNormalizer())
    .use(problemDetails(logger))
    .handler(
      httpRouterHandler<ApiEvent, ApiResult>({
        routes: inboxRoutes(signIn),
        notFoundResponse: ({ method, path }) => {
          throw new HttpProblem(404, EdgeCode.NotFound, `No route ${method} ${path}.`);
        },
      }),
    );
  return withTelemetry({ logger }, (event: ApiEvent, context): Promise<ApiResult> => routed(event, context));
}

/** The page's sign-in configuration, at `inbox/config.json`. */
const CONFIG_FILE = 'config.json';

/** The config document: small, not cached for long, so a changed issuer is picked up within a minute. */
function config(settings: InboxSettings): ApiResult {
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'max-age=60',
      'X-Content-Type-Options': 'nosniff',
    },
    body: JSON.stringify(settings.config),
  };
}

/** The gzip of each inbox file, made once per container: API Gateway HTTP APIs do not compress responses. */
const gzipped = new Map<string, string>();

/** A file of the inbox page, or 404; gzipped when the client takes it. */
function asset(file: string, event: ApiEvent, settings: InboxSettings): ApiResult {
  const found = inboxAsset(file, settings.connectOrigins);
  if (found === undefined) throw new HttpProblem(404, EdgeCode.NotFound, `No inbox file ${JSON.stringify(file)}.`);
  const headers = { 'Content-Type': found.contentType, ...found.headers, Vary: 'Accept-Encoding' };
  if (!/\bgzip\b/i.test(event.headers?.['accept-encoding'] ?? '') || found.body.length < 1024) {
    return { statusCode: 200, headers, body: found.body };
  }
  let body = gzipped.get(file);
  if (body === undefined) {
    body = gzipSync(found.body, { level: 9 }).toString('base64');
    gzipped.set(file, body);
  }
  return { statusCode: 200, headers: { ...headers, 'Content-Encoding': 'gzip' }, body, isBase64Encoded: true };
}
