import {
  cancelBody,
  claimBody,
  claimExecutionBody,
  continuationParams,
  continuationQuery,
  delegationBody,
  executionParams,
  finishExecutionBody,
  linkBody,
  linkResumeBody,
  listPausesQuery,
  pauseParams,
  pauseQuery,
  policyShadowQuery,
  resumeBody,
  runParams,
  statsQuery,
} from '../inputs.ts';
import { pauseBody } from '../inputs-pause.ts';
import { LIMITS, SCOPES, type Scope } from '../vocabulary.ts';
import type * as z from '../zod.ts';

/**
 * The one route table of the HTTP edge (§5, §9–§13): each route once, with who may call it, its body limit and the
 * zod schemas of its path, query and body — each input's one schema (`functions/inputs.ts`), the same the store
 * parses a library user's call with. The API handler (`http-api.ts`), the local server (which paths take no token),
 * the CDK routes (`infra/http-api.ts`: authorizer, `AuthorizationScopes`), the OpenAPI document (`scripts/openapi.ts`)
 * and the tests all read it. A route is added here and by its handler, nowhere else.
 */

/**
 * Who may call a route. A list of scopes: a bearer token (JWT authorizer), whose `scope` claim must hold one of them
 * when it has one (§13). `public`: anyone, no token, no data. `link`: an answer link's own token in a header (§11).
 * `slack`: Slack's signed requests (§14), verified by their handler.
 */
export type Access = readonly [Scope, ...Scope[]] | 'public' | 'link' | 'slack';

/** What a route's body is: how much is read, whether it may be absent, and how it is parsed. */
export interface BodySpec {
  /** Bytes read at most (413 past it). */
  readonly limit: number;
  /** No body at all is an empty object. */
  readonly optional?: boolean;
  /** `json` (the default): 415 unless JSON, parsed, depth-checked. `raw`: handed on as sent (Slack's form posts). */
  readonly media?: 'json' | 'raw';
  /** The zod schema the parsed body must meet (checked by the router, which hands the handler its output). */
  readonly schema?: z.ZodMiniType;
  /** What a 400 calls the body ("Invalid pause body: …"). */
  readonly name?: string;
}

/** One route. */
export interface RouteSpec {
  /** Stable name: the handler's key, the OpenAPI `operationId`. */
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API Gateway's path template (`{name}` for a parameter). */
  readonly path: string;
  readonly scopes: Access;
  /** Why a route without a bearer token is safe without one (the CDK route's cdk-nag acknowledgement says it). */
  readonly why?: string;
  /**
   * Which function serves it on AWS: the API's, the inbox page's own, or the MCP server's own (§18: so the API
   * function's cold start does not carry the MCP SDK; the API handler serves it where it is given its handler, as the
   * local service does). @default 'api'
   */
  readonly served?: 'api' | 'inbox' | 'mcp';
  /** The path parameters' schema: the router checks them and hands the handler its output. */
  readonly params?: z.ZodMiniType;
  /** The query's schema (every parameter a string, as API Gateway sends it). */
  readonly query?: z.ZodMiniType;
  readonly body?: BodySpec;
}

/** Why an answer-link route (§11) has no JWT authorizer. */
const ANSWER_LINK =
  'an answer-link route: the handler verifies the signed link token of the x-handback-link header (HMAC-SHA256, one pause of one tenant, until it closes) and answers 401 or 410 without it; a person with a link has no bearer token';

const { agent, decide } = SCOPES;

/** Every route, in the order the OpenAPI document lists them. */
export const ROUTES = [
  { id: 'health', method: 'GET', path: '/health', scopes: 'public', why: 'a liveness probe; it returns no data' },
  {
    id: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    scopes: 'public',
    why: 'the API description; it returns no data',
  },
  {
    id: 'pause',
    method: 'POST',
    path: '/runs/{runId}/pauses',
    scopes: [agent],
    params: runParams,
    body: { limit: LIMITS.pauseBodyBytes, schema: pauseBody, name: 'pause body' },
  },
  {
    id: 'getPause',
    method: 'GET',
    path: '/runs/{runId}/pauses/{interruptId}',
    scopes: [agent, decide],
    params: pauseParams,
    query: pauseQuery,
  },
  {
    id: 'resume',
    method: 'POST',
    path: '/runs/{runId}/resume',
    scopes: [decide],
    params: runParams,
    body: { limit: LIMITS.decisionBodyBytes, schema: resumeBody, name: 'resume body' },
  },
  {
    id: 'getContinuation',
    method: 'GET',
    path: '/runs/{runId}/continuations/{continuationId}',
    scopes: [agent, decide],
    params: continuationParams,
    query: continuationQuery,
  },
  { id: 'listPauses', method: 'GET', path: '/pauses', scopes: [decide], query: listPausesQuery },
  {
    id: 'cancel',
    method: 'POST',
    path: '/runs/{runId}/pauses/{interruptId}/cancel',
    scopes: [agent, decide],
    params: pauseParams,
    body: { limit: LIMITS.decisionBodyBytes, optional: true, schema: cancelBody, name: 'cancel body' },
  },
  {
    id: 'createLink',
    method: 'POST',
    path: '/runs/{runId}/pauses/{interruptId}/links',
    scopes: [decide],
    params: pauseParams,
    body: { limit: LIMITS.decisionBodyBytes, schema: linkBody, name: 'link body' },
  },
  {
    id: 'claim',
    method: 'POST',
    path: '/runs/{runId}/pauses/{interruptId}/claim',
    scopes: [agent],
    params: pauseParams,
    body: { limit: LIMITS.decisionBodyBytes, schema: claimBody, name: 'claim body' },
  },
  // §19
  {
    id: 'claimExecution',
    method: 'POST',
    path: '/runs/{runId}/continuations/{continuationId}/executions',
    scopes: [agent],
    params: continuationParams,
    body: { limit: LIMITS.decisionBodyBytes, schema: claimExecutionBody, name: 'execution claim' },
  },
  {
    id: 'finishExecution',
    method: 'PUT',
    path: '/runs/{runId}/continuations/{continuationId}/executions/{toolCallId}',
    scopes: [agent],
    params: executionParams,
    body: { limit: LIMITS.decisionBodyBytes, schema: finishExecutionBody, name: 'execution end' },
  },
  { id: 'getPolicies', method: 'GET', path: '/policies', scopes: [decide] },
  { id: 'getPolicyShadow', method: 'GET', path: '/policies/shadow', scopes: [decide], query: policyShadowQuery },
  // §21: how decisions are going.
  { id: 'stats', method: 'GET', path: '/stats', scopes: [decide], query: statsQuery },
  // §20 delegation: a person's own page of the directory.
  { id: 'getMe', method: 'GET', path: '/people/me', scopes: [decide] },
  {
    id: 'setDelegation',
    method: 'PUT',
    path: '/people/me/delegation',
    scopes: [decide],
    // A delegation is a few hundred bytes: its reason at most 512 characters.
    body: { limit: 8 * 1024, schema: delegationBody, name: 'delegation body' },
  },
  { id: 'endDelegation', method: 'DELETE', path: '/people/me/delegation', scopes: [decide] },
  {
    id: 'mcp',
    method: 'POST',
    path: '/mcp',
    scopes: [agent],
    served: 'mcp',
    // JSON-RPC over Streamable HTTP: the MCP transport reads the body itself (its media types, its parse errors). A
    // permission request carries the tool call's input, which becomes the pause's transcript.
    body: { limit: LIMITS.pauseBodyBytes, media: 'raw' },
  },
  {
    id: 'linkPause',
    method: 'GET',
    path: '/links/pause',
    scopes: 'link',
    why: ANSWER_LINK,
    query: pauseQuery,
  },
  {
    id: 'linkResume',
    method: 'POST',
    path: '/links/resume',
    scopes: 'link',
    why: ANSWER_LINK,
    body: { limit: LIMITS.decisionBodyBytes, schema: linkResumeBody, name: 'resume body' },
  },
  {
    id: 'slackInteractions',
    method: 'POST',
    path: '/channels/slack/interactions',
    scopes: 'slack',
    why: "Slack's interactivity requests: the handler verifies Slack's request signature (HMAC-SHA256 with the app's signing secret, within five minutes) before reading anything; Slack sends no bearer token",
    body: { limit: LIMITS.decisionBodyBytes, media: 'raw' },
  },
  {
    id: 'inbox',
    method: 'GET',
    path: '/inbox',
    scopes: 'public',
    served: 'inbox',
    why: 'the inbox page itself (static, built with the project); its data calls carry a bearer token or an answer link',
  },
  {
    id: 'inboxFile',
    method: 'GET',
    path: '/inbox/{file}',
    scopes: 'public',
    served: 'inbox',
    why: "the inbox page's static files; they hold no data",
  },
] as const satisfies readonly RouteSpec[];

/** A route of the table. */
export type Route = (typeof ROUTES)[number];
/** A route's id. */
export type RouteId = Route['id'];
/** The routes a bearer token opens. */
export type BearerRoute = Extract<Route, { scopes: readonly Scope[] }>;

/** Whether a route takes a bearer token (and so a JWT authorizer on AWS). */
export function isBearer(route: RouteSpec): route is RouteSpec & { scopes: readonly [Scope, ...Scope[]] } {
  return Array.isArray(route.scopes);
}

/** The route with this id. */
export function routeOf<I extends RouteId>(id: I): Extract<Route, { id: I }> {
  return ROUTES.find((route) => route.id === id) as Extract<Route, { id: I }>;
}

/** A path template as a regular expression of the paths it matches (a trailing slash allowed, as the router does). */
export function pathPattern(template: string): RegExp {
  return new RegExp(`^${template.replace(/\{[^/]+\}/g, '[^/]+')}/?$`);
}

/** Each route's path, compiled once: what the edges match a request's path against. */
export const PATH_PATTERNS: Readonly<Record<RouteId, RegExp>> = Object.fromEntries(
  ROUTES.map((route) => [route.id, pathPattern(route.path)]),
) as Record<RouteId, RegExp>;

const bearerPatterns = ROUTES.filter(isBearer).map((route) => ({
  method: route.method,
  regexp: PATH_PATTERNS[route.id],
}));

/**
 * Whether a request is served without a bearer token, as API Gateway routes it with no authorizer: every request no
 * bearer route matches (the public, link and Slack routes; an unknown path or method, which the `$default` route
 * takes to the handler for its 404 or 405).
 */
export function isOpenRequest(method: string, path: string): boolean {
  return !bearerPatterns.some((pattern) => pattern.method === method && pattern.regexp.test(path));
}

/**
 * The scope a token lacks for `route`, or undefined when its scopes open it (§13). `scopes` is the token's `scope`
 * claim split, or undefined when it has none: such a token (an ID token) may use every route unless `requireScopes`.
 */
export function missingScope(
  route: { scopes: readonly Scope[] },
  scopes: readonly string[] | undefined,
  requireScopes: boolean,
): string | undefined {
  if (scopes === undefined && !requireScopes) return undefined;
  if (route.scopes.some((scope) => scopes?.includes(scope))) return undefined;
  return route.scopes.join(' or ');
}
