import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { HandbackBackend } from '../mcp/backend.ts';
import { createHandbackMcpServer } from '../mcp/server.ts';
import {
  cancelTurn,
  claimExecution,
  getContinuation,
  getPause,
  pauseTurn,
  type UseCaseDeps,
} from '../resume/resume.ts';
import type { ApiEvent, ApiResult, Caller, RouteHandlers } from './http-api.ts';

/**
 * `POST /mcp` (§18): Handback's MCP server over Streamable HTTP, stateless — each request gets a server and a
 * transport of its own, with no session id, so any instance answers any request (Lambda, the local service). The
 * route's caller is decided by the API's one router before this runs (a token, its tenant, the `handback/agent`
 * scope); the tools pause and read as that caller, through the same use cases as the HTTP routes. A payload v2
 * event becomes a Fetch `Request` for the SDK's web-standard transport, and its `Response` the result: an SSE stream
 * read to its end (progress notifications, then the answer), which API Gateway returns at once.
 */

/** How long a call waits for people, and how often it looks. */
export interface McpRouteOptions {
  waitMs: number;
  /** Where people decide, for the tools' messages. @default the deployment's inbox, else the request host's `/inbox` */
  inboxUrl?: string;
  pollMs?: number;
  beatMs?: number;
}

/** The route's handler, for the API router (`createApiHandler`'s `handlers.mcp`). */
export function createMcpRoute(deps: UseCaseDeps, options: McpRouteOptions): RouteHandlers['mcp'] {
  return async ({ event }, caller) => {
    const inboxUrl = options.inboxUrl ?? deps.inboxUrl ?? `https://${event.requestContext.domainName}/inbox`;
    const { inboxUrl: _, ...waits } = options;
    const server = createHandbackMcpServer({ ...waits, backend: useCaseBackend(deps, caller, inboxUrl) });
    // Stateless: no session ids; keep-alive comments would only pad a response that API Gateway buffers whole.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, keepAliveMs: 0 });
    await server.connect(transport);
    try {
      return await resultOf(await transport.handleRequest(requestOf(event)));
    } finally {
      await server.close();
    }
  };
}

/** The tools' backend for one caller: the use cases every HTTP route calls, in the caller's tenant, as the caller. */
function useCaseBackend(
  deps: UseCaseDeps,
  { tenant, by }: Caller,
  inboxUrl: string,
): Pick<HandbackBackend, 'pause' | 'getPause' | 'getContinuation' | 'cancel' | 'claimExecution' | 'inboxUrl'> {
  return {
    pause: (input) => pauseTurn(deps, { ...input, tenant, by }, { inboxUrl }),
    // A task the client cancels (§22) withdraws its pause, as the caller: the HTTP route's cancel.
    cancel: (input) => cancelTurn(deps, { ...input, tenant, by }, 'api'),
    getPause: (key) => getPause(deps, { ...key, tenant }, { by }),
    getContinuation: (key) => getContinuation(deps, { ...key, tenant }),
    // §19: request_permission claims an approved call before it answers allow, as the caller.
    claimExecution: (input) => claimExecution(deps, { ...input, tenant, by }),
    inboxUrl,
  };
}

/** The event as a Fetch request: its method, headers and raw body. */
function requestOf(event: ApiEvent): Request {
  const { body, isBase64Encoded } = event;
  const raw = body === undefined ? undefined : isBase64Encoded ? Buffer.from(body, 'base64') : body;
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const url = `https://${event.requestContext.domainName ?? 'localhost'}${event.rawPath ?? '/mcp'}`;
  return new Request(url, {
    method: event.requestContext.http.method,
    headers,
    ...(raw === undefined ? {} : { body: raw }),
  });
}

/** The transport's response as a payload v2 result, its body read whole. */
async function resultOf(response: Response): Promise<ApiResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { statusCode: response.status, headers, body: await response.text() };
}
