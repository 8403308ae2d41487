import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_FATES } from '../functions/errors.ts';
import { EdgeCode } from '../functions/handlers/problem.ts';
import { isBearer, ROUTES, type RouteId, type RouteSpec } from '../functions/handlers/routes.ts';
import {
  cancelBody,
  claimBody,
  claimExecutionBody,
  delegationBody,
  finishExecutionBody,
  linkBody,
  linkResumeBody,
  resumeBody,
} from '../functions/inputs.ts';
import { askBody, pauseBody } from '../functions/inputs-pause.ts';
import { LIMITS, LINK_HEADER, TRACEPARENT_PATTERN } from '../functions/vocabulary.ts';
import * as wire from '../functions/wire.ts';
import * as http from '../functions/wire-http.ts';
import * as reports from '../functions/wire-reports.ts';
import * as z from '../functions/zod.ts';
import { withFieldTables } from './field-tables.ts';

/**
 * `npm run openapi`: writes `functions/handlers/openapi.json`, and the field tables of `docs/http-api.md`
 * (`scripts/field-tables.ts`), from the route table (`functions/handlers/routes.ts`) and
 * the zod schemas the service is written against: each route's method, path and scopes; its path and query parameters
 * and its request body from the schemas the router validates with; every body it answers from the wire schemas the
 * views are typed by (`functions/wire.ts`, and the HTTP edge's own in `functions/wire-http.ts`); one problem schema for every error, with the codes of
 * `functions/errors.ts`. Adding a field to a schema adds it to the document; nothing here repeats a field. A script,
 * not a runtime step: the Lambda serves the written file and carries no generator. `test/handlers/openapi.test.ts`
 * holds the committed file to what this makes, and the document to what the service really sends and answers.
 */

type Json = Record<string, unknown>;

/** Every problem code the API may answer. */
const CODES = [...Object.keys(ERROR_FATES), ...Object.values(EdgeCode)];

/**
 * The document's component schemas, each a zod schema of the service: where one is used inside another, the document
 * refers to it by name.
 */
const SCHEMAS = {
  Format: wire.format,
  Problem: http.problem,
  Health: http.health,
  PauseRequest: pauseBody,
  Ask: askBody,
  ResumeRequest: resumeBody,
  LinkResumeRequest: linkResumeBody,
  CancelRequest: cancelBody,
  LinkRequest: linkBody,
  ClaimRequest: claimBody,
  ClaimResult: wire.claimResult,
  ExecutionClaimRequest: claimExecutionBody,
  ExecutionClaimed: wire.executionClaimed,
  ExecutionEndRequest: finishExecutionBody,
  ExecutionEnded: wire.executionEnded,
  Execution: wire.executionView,
  JsonRpcMessage: http.jsonRpcMessage,
  Decision: wire.decision,
  Approvers: wire.approvers,
  NotifyEntry: wire.notifyEntry,
  PauseCreated: wire.pauseCreated,
  PauseClosed: http.pauseClosedBody,
  PauseView: wire.pauseView,
  PauseBody: http.pauseBody,
  PausePage: wire.pausePage,
  AskView: wire.askView,
  RecordedDecision: wire.recordedDecisionView,
  Vote: wire.voteView,
  Tally: wire.tally,
  AskPolicy: wire.askPolicy,
  Principal: wire.principal,
  LinkRecipient: wire.linkRecipient,
  ToolCall: wire.toolCall,
  TurnContext: wire.turnContext,
  PendingDecisions: wire.pendingDecisions,
  Continuation: http.continuationBody,
  DispatchCall: wire.dispatchedCall,
  LinkCreated: wire.createdLink,
  LinkDelivered: wire.deliveredLink,
  // §19
  PolicySet: reports.policySetView,
  Policy: reports.policyView,
  ShadowReport: reports.shadowReport,
  ShadowEntry: reports.shadowEntry,
  ShadowTally: reports.shadowTally,
  // §21
  DecisionStats: reports.decisionStats,
  ToolStats: reports.toolStats,
  OutcomeCounts: reports.outcomeCounts,
  // §20 delegation
  Person: wire.personView,
  DelegationView: wire.delegationView,
  DelegationRequest: delegationBody,
} satisfies Record<string, z.ZodMiniType>;
/** A component schema's name. */
export type SchemaName = keyof typeof SCHEMAS;

/** What each error response says, by the name operations give it; each is the one problem schema. */
const ERRORS = {
  Forbidden:
    "forbidden: the token's scopes do not open the operation (unscoped tokens too, where scopes are required); `scope` names the scopes that would.",
  BadRequest: 'bad_request (malformed JSON, missing or ill-typed fields, bad runId) or invalid_transcript.',
  Unauthorized: 'unauthorized: no valid token, or no tenant claim.',
  NotFound: "pause_not_found / continuation_not_found (unknown, or another tenant's).",
  Conflict: 'open_pause_exists, already_resumed (carries continuationId), or already_decided (carries toolCallId).',
  Gone: 'pause_expired, or pause_cancelled (carries continuationId).',
  PayloadTooLarge: 'payload_too_large: pause body over 6 MB, answer over 256 KB.',
  UnsupportedMediaType: 'unsupported_media_type: the body is not application/json.',
  InvalidAnswer: 'invalid_answer (lists failures), or idempotency_key_reused.',
  InternalError: 'internal_error (a generic problem with a requestId), or missing_turn_state / corrupt_checkpoint.',
  HandoffFailed:
    'handoff_failed: committed but the hand-off failed (repeat the same request to deliver again); or storage_unavailable: the table did not answer in time (Retry-After; retry the same request).',
  LinkUnauthorized:
    'unauthorized: the answer link is missing, tampered, foreign or made with another key (never says which).',
  LinkGone: "link_closed: the link's pause has closed or its time has passed.",
  // §19
  ExecutionForbidden:
    "forbidden (the token's scopes; for an execution's end, a principal other than its claimant), or policy_forbids: the policies in force forbid the call now — the refusal is recorded (carries policyIds and reason).",
  ExecutionNotFound:
    "continuation_not_found (unknown, or another tenant's), or not_dispatched: the continuation does not dispatch that call.",
  ExecutionConflict:
    'already_claimed: another claim came first (carries claimedAt and claimedBy); not_claimed: no claim to end (or it was refused); already_finished: it ended otherwise.',
  ApprovalGone: "approval_expired: past the approval's approvedUntil (a permit's @validFor) — the refusal is recorded.",
  PolicyError: 'policy_error: the policies could not judge the call now — the refusal is recorded (carries reason).',
} as const;

/** What the document says of one operation beyond the table: its words and its responses. */
interface OperationDoc {
  summary: string;
  /** Status → an error of `ERRORS` by name, or a response object. */
  responses: Record<number, keyof typeof ERRORS | Json>;
  /** The request body's schema in `SCHEMAS`. */
  requestBody?: SchemaName;
  /** The request body's media type, where the route reads it raw: default form-encoded (Slack's). */
  requestMedia?: string;
  /** Descriptions of parameters, by name. */
  parameters?: Record<string, string>;
  /** Header parameters, after the path and query ones. */
  headers?: Json[];
}

const ref = (name: SchemaName): Json => ({ $ref: `#/components/schemas/${name}` });
/** A success response: its body's schema, by name. */
const body = (schema: SchemaName, description: string, extra: Json = {}): Json => ({
  description,
  content: { 'application/json': { schema: ref(schema) } },
  ...extra,
});

/** The errors every bearer operation may answer, after its own. */
const BEARER = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  500: 'InternalError',
  503: 'HandoffFailed',
} as const;
/** A bearer route that reads no input: nothing of the request can be a 400. */
const { 400: _noInput, ...BEARER_NO_INPUT } = BEARER;
const BODY = { 413: 'PayloadTooLarge', 415: 'UnsupportedMediaType' } as const;
const SLICE = {
  from: 'First message of the slice (0-based).',
  limit: 'Most messages in the slice; the slice is also cut to fit 5 MB.',
};
const RUN = { runId: 'The run, named by the caller.' };
const LINK_TOKEN = {
  name: LINK_HEADER,
  in: 'header',
  required: true,
  description: "The answer link's token (the part after # in answerUrl).",
  schema: { type: 'string' },
};

/** §20 delegation: the people routes' 404. */
const PEOPLE_NOT_FOUND: Json = {
  description:
    'not_found: the deployment has no directory of persons, the directory knows no person for the caller, or (for a change) its directory cannot keep one: a file bundled with the functions on AWS.',
  content: { 'application/problem+json': { schema: ref('Problem') } },
};

const OPERATIONS: Record<Exclude<RouteId, 'inbox' | 'inboxFile'>, OperationDoc> = {
  health: {
    summary: 'Liveness; needs no token.',
    responses: {
      200: body('Health', 'Up.'),
    },
  },
  openapi: {
    summary: 'This document; needs no token.',
    responses: {
      200: { description: 'The OpenAPI document.', content: { 'application/json': { schema: { type: 'object' } } } },
    },
  },
  pause: {
    summary: 'Record a paused turn.',
    requestBody: 'PauseRequest',
    parameters: RUN,
    headers: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          '1–255 visible ASCII characters: the same key and body return the first 201 again; another body is 422 idempotency_key_reused.',
        schema: { type: 'string', pattern: LIMITS.idempotencyKey.source },
      },
      // §21 traces
      {
        name: 'traceparent',
        in: 'header',
        required: false,
        description:
          'W3C Trace Context: the pause joins this trace, keeps it, and every continuation and hand-off carries it back (`traceparent`). A malformed one is ignored, never refused.',
        schema: { type: 'string', pattern: TRACEPARENT_PATTERN.source },
      },
    ],
    responses: {
      200: body(
        'PauseClosed',
        "Every ask decided by the deployment's policies (§17): closed at once, with its continuation; no one is asked.",
        { headers: { Location: { description: "The pause's URL.", schema: { type: 'string' } } } },
      ),
      201: body('PauseCreated', 'Paused.', {
        headers: { Location: { description: "The pause's URL.", schema: { type: 'string' } } },
      }),
      ...BEARER,
      409: 'Conflict',
      ...BODY,
      422: 'InvalidAnswer',
    },
  },
  getPause: {
    summary: 'Show a pause; messages only with ?include=messages (sliced with from/limit).',
    parameters: {
      ...RUN,
      interruptId: "The pause's server-made id.",
      include: '`messages` to include the transcript.',
      ...SLICE,
    },
    responses: { 200: body('PauseBody', 'The pause.'), ...BEARER, 404: 'NotFound' },
  },
  resume: {
    summary:
      'Answer a pause, or record decisions for its asks (each exactly once; the request that records the last one commits the continuation).',
    requestBody: 'ResumeRequest',
    parameters: RUN,
    responses: {
      200: body('Continuation', 'Closed by this request, or replayed: the continuation.'),
      202: body('PendingDecisions', 'Recorded; other asks still wait.'),
      ...BEARER,
      404: 'NotFound',
      409: 'Conflict',
      410: 'Gone',
      ...BODY,
      422: 'InvalidAnswer',
    },
  },
  getContinuation: {
    summary: 'Read a continuation; sliced with from/limit.',
    parameters: { ...RUN, continuationId: "The continuation's id.", ...SLICE },
    responses: { 200: body('Continuation', 'The continuation.'), ...BEARER, 404: 'NotFound' },
  },
  listPauses: {
    summary: "The tenant's pauses, newest first.",
    parameters: {
      status: 'Only pauses in this status; none = all.',
      limit: `Page size (default ${LIMITS.pageSize.default}).`,
      cursor: "The previous page's cursor.",
    },
    responses: { 200: body('PausePage', 'A page of pauses.'), ...BEARER },
  },
  stats: {
    summary:
      "How decisions went (§21): the tenant's asks of the pauses made in [since, until), per tool — outcomes, people's time to decision (p50, p90, max by nearest rank), what still waits and for how long; exact, for windows of at most 31 days and 10,000 pauses.",
    parameters: {
      since: 'The first instant of the window (ISO 8601 with a time zone).',
      until: 'The instant after its last (ISO 8601 with a time zone), at most 31 days after since.',
    },
    responses: { 200: body('DecisionStats', 'The counts of the window.'), ...BEARER },
  },
  cancel: {
    summary:
      'Cancel a pause: every undecided ask (and every recorded approval) is rejected with the reason, the continuation committed with outcome cancelled and handed off. Again: the same 200.',
    requestBody: 'CancelRequest',
    parameters: { ...RUN, interruptId: 'The pause, as its 201 named it.' },
    responses: {
      200: body('Continuation', 'Cancelled (or cancelled before): the continuation.'),
      ...BEARER,
      404: 'NotFound',
      409: 'Conflict',
      410: 'Gone',
      ...BODY,
    },
  },
  createLink: {
    summary:
      "A link for one recipient (a person that may read the pause; never an agent): decisions with it are recorded as theirs and matched against the approvers' emails.",
    requestBody: 'LinkRequest',
    parameters: { ...RUN, interruptId: 'The pause, as its 201 named it.' },
    responses: {
      201: body('LinkCreated', "The link, granted: its decisions are the caller's."),
      202: body('LinkDelivered', 'Mailed to the recipient (`deliver: true`): its decisions are theirs.'),
      409: 'Conflict',
      ...BEARER,
      404: 'NotFound',
      ...BODY,
    },
  },
  // §19
  getPolicies: {
    summary:
      "The deployment's policy set (§19), for any principal that may decide: its version (as the audit trail names it), mode, default, time zone and each policy's id, annotations and text.",
    responses: {
      200: body('PolicySet', 'The policies in force.'),
      ...BEARER_NO_INPUT,
      404: {
        description: 'not_found: no policies are configured.',
        content: { 'application/problem+json': { schema: ref('Problem') } },
      },
    },
  },
  getPolicyShadow: {
    summary:
      'What the policies, in shadow mode, would have decided for each approval ask of the pauses created since `since`, beside what people did, and per policy how often the two agreed (§19); newest pause first, a page of the listing at a time.',
    parameters: {
      since: 'Only pauses created at or after this instant (ISO 8601).',
      limit: `Pauses read for this page (default ${LIMITS.pageSize.default}).`,
      cursor: "The previous page's cursor.",
    },
    responses: {
      200: body('ShadowReport', 'The asks the policies judged in shadow mode, and the tallies.'),
      ...BEARER,
      404: {
        description: 'not_found: no policies are configured.',
        content: { 'application/problem+json': { schema: ref('Problem') } },
      },
    },
  },
  // §20 delegation
  getMe: {
    summary:
      "The caller's person as the deployment's directory has them (§20): id, name, emails, groups, manager, and their delegation with whether it holds now.",
    responses: {
      200: body('Person', 'The caller’s person.'),
      401: 'Unauthorized',
      403: 'Forbidden',
      404: PEOPLE_NOT_FOUND,
      500: 'InternalError',
    },
  },
  setDelegation: {
    summary:
      "Hand the caller's approvals to another person for a time (§20): `to` an active person of their tenant (an id, or an email of theirs) other than themselves, `until` later than `from` and than now. Replaces any delegation they had; the caller must be an active person.",
    requestBody: 'DelegationRequest',
    responses: {
      200: body('Person', 'The caller’s person, with the delegation.'),
      400: 'BadRequest',
      401: 'Unauthorized',
      403: 'Forbidden',
      404: PEOPLE_NOT_FOUND,
      ...BODY,
      500: 'InternalError',
    },
  },
  endDelegation: {
    summary: "End the caller's delegation (§20), if they have one.",
    responses: {
      200: body('Person', 'The caller’s person, without a delegation.'),
      401: 'Unauthorized',
      403: 'Forbidden',
      404: PEOPLE_NOT_FOUND,
      500: 'InternalError',
    },
  },
  claim: {
    summary:
      "Claim a closed pause's hand-off for one consumer (§18): the first claimant gets it; another is told who has it; the same claimant again gets it again (a retry). A pause still open is 409 pause_open.",
    requestBody: 'ClaimRequest',
    parameters: { ...RUN, interruptId: 'The pause, as its 201 named it.' },
    responses: {
      200: body('ClaimResult', 'Who holds the claim, and whether it is this claimant.'),
      ...BEARER,
      404: 'NotFound',
      409: 'Conflict',
      ...BODY,
    },
  },
  // §19
  claimExecution: {
    summary:
      "Claim a dispatched call before running it (§19): judged again by the policies in force and its approval's @validFor; the first claim gets the call to run, every later one is 409 already_claimed (a retry with the first attempt's Idempotency-Key is the same claim). A refusal is recorded on the pause.",
    requestBody: 'ExecutionClaimRequest',
    parameters: { ...RUN, continuationId: 'The continuation that dispatches the call.' },
    headers: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'A retry of one claim: the same key from the same principal is answered as the claim was.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
    ],
    responses: {
      200: body('ExecutionClaimed', 'The call to run, once, with the decided arguments.'),
      ...BEARER,
      403: 'ExecutionForbidden',
      404: 'ExecutionNotFound',
      409: 'ExecutionConflict',
      410: 'ApprovalGone',
      422: 'PolicyError',
      ...BODY,
    },
  },
  finishExecution: {
    summary:
      'Tell how a claimed execution ended (§19), its claimant only, once: the same end again is answered the same.',
    requestBody: 'ExecutionEndRequest',
    parameters: {
      ...RUN,
      continuationId: 'The continuation that dispatches the call.',
      toolCallId: "The dispatched call: its ask's toolCallId.",
    },
    responses: {
      200: body('ExecutionEnded', 'The execution as recorded.'),
      ...BEARER,
      403: 'ExecutionForbidden',
      404: 'ExecutionNotFound',
      409: 'ExecutionConflict',
      ...BODY,
    },
  },
  mcp: {
    summary:
      "Handback's MCP server over Streamable HTTP, stateless (§18): JSON-RPC requests (initialize, tools/list, tools/call of request_permission and ask_person), each answered on its own, as an SSE stream or JSON as the client accepts. A call waits at most 25 s for people. Errors of the protocol are JSON-RPC errors, as the MCP transport makes them.",
    requestBody: 'JsonRpcMessage',
    requestMedia: 'application/json',
    responses: {
      200: {
        description: 'The JSON-RPC response (with any progress notifications before it, on an SSE stream).',
        content: {
          'text/event-stream': { schema: { type: 'string' } },
          'application/json': { schema: ref('JsonRpcMessage') },
        },
      },
      202: { description: 'A notification or response taken; nothing to answer.' },
      400: {
        description: 'A JSON-RPC parse or request error.',
        content: { 'application/json': { schema: ref('JsonRpcMessage') } },
      },
      401: 'Unauthorized',
      403: 'Forbidden',
      406: { description: 'The request does not accept application/json and text/event-stream.' },
      413: 'PayloadTooLarge',
      415: { description: 'The body is not application/json.' },
      500: 'InternalError',
    },
  },
  linkPause: {
    summary:
      "The answer link's one pause, while it is open (no bearer token: the link's own token in x-handback-link).",
    headers: [LINK_TOKEN],
    responses: {
      200: body('PauseBody', 'The pause (with messages, in slices, when asked).'),
      400: 'BadRequest',
      401: 'LinkUnauthorized',
      404: 'NotFound',
      410: 'LinkGone',
      500: 'InternalError',
      503: 'HandoffFailed',
    },
  },
  linkResume: {
    summary: "Answer or decide the answer link's one pause.",
    requestBody: 'LinkResumeRequest',
    headers: [LINK_TOKEN],
    responses: {
      200: body('Continuation', 'Closed by this request, or replayed.'),
      202: body('PendingDecisions', 'Recorded; other asks still wait.'),
      400: 'BadRequest',
      401: 'LinkUnauthorized',
      404: 'NotFound',
      409: 'Conflict',
      410: 'LinkGone',
      ...BODY,
      422: 'InvalidAnswer',
      500: 'InternalError',
      503: 'HandoffFailed',
    },
  },
  slackInteractions: {
    summary:
      "Slack's interactivity requests (form-encoded, signed by Slack): a person's decision from a Slack message (§14).",
    responses: {
      200: { description: 'Taken; Slack shows the updated message.' },
      401: 'Unauthorized',
      404: 'NotFound',
      413: 'PayloadTooLarge',
      500: 'InternalError',
    },
  },
};

/** The path and query parameters of a route, from its zod schemas. */
function parametersOf(route: RouteSpec, doc: OperationDoc): Json[] {
  const parameters: Json[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (schema === undefined) continue;
    const { properties = {}, required = [] } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
      properties?: Record<string, Json>;
      required?: string[];
    };
    for (const [name, { maximum, ...property }] of Object.entries(properties)) {
      // zod bounds every integer by the largest safe one; the document states only the bounds the API sets.
      if (maximum !== Number.MAX_SAFE_INTEGER && maximum !== undefined) property.maximum = maximum;
      const description = doc.parameters?.[name];
      parameters.push({
        name,
        in: where,
        required: where === 'path' || required.includes(name),
        ...(description === undefined ? {} : { description }),
        schema: property,
      });
    }
  }
  return [...parameters, ...(doc.headers ?? [])];
}

/** One operation of the document. */
function operationOf(route: RouteSpec, doc: OperationDoc): Json {
  const parameters = parametersOf(route, doc);
  const responses = Object.fromEntries(
    Object.entries(doc.responses)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([status, response]) => [
        status,
        typeof response === 'string' ? { $ref: `#/components/responses/${response}` } : response,
      ]),
  );
  return {
    operationId: route.id,
    summary: doc.summary,
    // OpenAPI 3.1 lets a bearer scheme list roles: any one of these objects (scopes) opens the operation.
    security: isBearer(route) ? route.scopes.map((scope) => ({ bearer: [scope] })) : [],
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(doc.requestBody === undefined
      ? {}
      : {
          requestBody: {
            required: route.body?.optional !== true,
            content: {
              [route.body?.media === 'raw'
                ? (doc.requestMedia ?? 'application/x-www-form-urlencoded')
                : 'application/json']: {
                schema: ref(doc.requestBody),
              },
            },
          },
        }),
    responses,
  };
}

/** The document, from the table. */
export function buildOpenApi(): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of ROUTES) {
    // The inbox page's files are the page, not the API.
    if ('served' in route && route.served === 'inbox') continue;
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: operationOf(route, OPERATIONS[route.id]),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Handback',
      version: '0.3.0',
      description:
        "Pause an LLM agent's turn for a person's answer or decisions and resume it later (HTTP API, payload v2, and the local service). Every error is application/problem+json with a stable `code`. Any path not listed answers 404 `not_found`; a listed path with another method answers 405 `method_not_allowed` with an `Allow` header. Requests that may or may not have happened (a table that did not answer in time) answer 503 `storage_unavailable` with `Retry-After`; every request is safe to retry as it is (a pause with the same `Idempotency-Key`). Each bearer operation lists the scopes that open it (§13): `handback/agent` pauses, reads and cancels; `handback/decide` lists, reads, decides, cancels and creates links; a token whose scopes open none of them is refused 403 `forbidden`.",
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start' }],
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      responses: errorResponses(),
      schemas: schemasOf(),
    },
  };
}

const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'On AWS, the API Gateway JWT authorizer; its tenant claim (default `tenant`) scopes all data, and the `scope` claim must hold one of the scopes an operation lists (an unscoped token passes unless scopes are required). Locally, RS256/RS384/RS512 tokens of HANDBACK_JWT_ISSUER, or HS256 with HANDBACK_JWT_SECRET, or no auth when unset.',
  },
};

/** The document as the file holds it. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}

/** The component schemas, from `SCHEMAS`: one zod registry, so that a schema used inside another is referred to. */
function schemasOf(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  const names = new Map<unknown, SchemaName>();
  for (const [name, schema] of Object.entries(SCHEMAS) as Array<[SchemaName, z.ZodMiniType]>) {
    registry.add(schema, { id: name });
    names.set(schema, name);
  }
  const { schemas } = z.toJSONSchema(registry, {
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
    override: ({ jsonSchema }) => {
      // zod bounds every number by the largest safe one; the document states only the bounds the API sets.
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  });
  const out: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const { $schema: _, $id: __, ...rest } = schema as Json;
    out[name] = rest;
  }
  // The codes, in words: the problem's `code` is one of them.
  const problem = out.Problem as { properties: Record<string, Json> };
  problem.properties.code = {
    ...problem.properties.code,
    description: `The stable machine word: ${CODES.join(', ')}.`,
  };
  return out;
}

/** Every error response, from `ERRORS`: the one problem schema with its words. */
function errorResponses(): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(ERRORS).map(([name, description]) => [
      name,
      { description, content: { 'application/problem+json': { schema: ref('Problem') } } },
    ]),
  );
}

/** `docs/http-api.md` (its text `markdown`) with its field tables written from the document's schemas. */
export function httpApiDocText(markdown: string): string {
  return withFieldTables(markdown, schemasOf());
}

/** The document's component schemas, by name. */
export function componentSchemas(): Record<string, Json> {
  return schemasOf();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = fileURLToPath(new URL('../functions/handlers/openapi.json', import.meta.url));
  writeFileSync(target, openApiText());
  console.log(`Wrote ${target}`);
  const page = fileURLToPath(new URL('../docs/http-api.md', import.meta.url));
  writeFileSync(page, httpApiDocText(readFileSync(page, 'utf8')));
  console.log(`Wrote the field tables of ${page}`);
}
