import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_FATES } from '../functions/errors.ts';
import { EdgeCode } from '../functions/handlers/problem.ts';
import { isBearer, ROUTES, type RouteId, type RouteSpec } from '../functions/handlers/routes.ts';
import {
  ASK_KINDS,
  DECISION_KINDS,
  FORMAT_NAMES,
  LIMITS,
  LINK_HEADER,
  ON_EXPIRY,
  OUTCOMES,
  PAUSE_STATUSES,
} from '../functions/vocabulary.ts';
import * as z from '../functions/zod.ts';

/**
 * `npm run openapi`: writes `functions/handlers/openapi.json` from the route table (`functions/handlers/routes.ts`):
 * each route's method, path, scopes, and its path and query parameters from its zod schemas; the limits and word lists
 * from `functions/vocabulary.ts`, the problem codes from `functions/errors.ts`. A script, not a runtime step: the
 * Lambda serves the written file and carries no generator. `test/handlers/openapi.test.ts` holds the committed file
 * to what this makes.
 */

type Json = Record<string, unknown>;

/** Every problem code the API may answer. */
const CODES = [...Object.keys(ERROR_FATES), ...Object.values(EdgeCode)];

/** What the document says of one operation beyond the table: its words and its responses. */
interface OperationDoc {
  summary: string;
  /** Status → a response of `components.responses` by name, or a response object. */
  responses: Record<number, string | Json>;
  /** The request body's schema in `components.schemas`. */
  requestBody?: string;
  /** The request body's media type, where the route reads it raw: default form-encoded (Slack's). */
  requestMedia?: string;
  /** Descriptions of parameters, by name. */
  parameters?: Record<string, string>;
  /** Header parameters, after the path and query ones. */
  headers?: Json[];
}

const json = (schema: Json, description: string, extra: Json = {}): Json => ({
  description,
  content: { 'application/json': { schema } },
  ...extra,
});
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
/** A list of strings (the asks' call ids, for one). */
const STRING_LIST: Json = { type: 'array', items: { type: 'string' } };

/** The errors every bearer operation may answer, after its own. */
const BEARER = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 500: 'InternalError', 503: 'HandoffFailed' };
const BODY = { 413: 'PayloadTooLarge', 415: 'UnsupportedMediaType' };
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

const OPERATIONS: Record<Exclude<RouteId, 'inbox' | 'inboxFile'>, OperationDoc> = {
  health: {
    summary: 'Liveness; needs no token.',
    responses: {
      200: json({ type: 'object', properties: { status: { const: 'ok' } }, required: ['status'] }, 'Up.'),
    },
  },
  openapi: {
    summary: 'This document; needs no token.',
    responses: { 200: json({ type: 'object' }, 'The OpenAPI document.') },
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
    ],
    responses: {
      201: json(ref('PauseCreated'), 'Paused.', {
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
    responses: { 200: json(ref('PauseView'), 'The pause.'), ...BEARER, 404: 'NotFound' },
  },
  resume: {
    summary:
      'Answer a pause, or record decisions for its asks (each exactly once; the request that records the last one commits the continuation).',
    requestBody: 'ResumeRequest',
    parameters: RUN,
    responses: {
      200: json(ref('Continuation'), 'Closed by this request, or replayed: the continuation.'),
      202: json(ref('PendingDecisions'), 'Recorded; other asks still wait.'),
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
    responses: { 200: json(ref('Continuation'), 'The continuation.'), ...BEARER, 404: 'NotFound' },
  },
  listPauses: {
    summary: "The tenant's pauses, newest first.",
    parameters: {
      status: 'Only pauses in this status; none = all.',
      limit: `Page size (default ${LIMITS.pageSize.default}).`,
      cursor: "The previous page's cursor.",
    },
    responses: { 200: json(ref('PausePage'), 'A page of pauses.'), ...BEARER },
  },
  cancel: {
    summary:
      'Cancel a pause: every undecided ask (and every recorded approval) is rejected with the reason, the continuation committed with outcome cancelled and handed off. Again: the same 200.',
    requestBody: 'CancelRequest',
    parameters: { ...RUN, interruptId: 'The pause, as its 201 named it.' },
    responses: {
      200: json(ref('Continuation'), 'Cancelled (or cancelled before): the continuation.'),
      ...BEARER,
      404: 'NotFound',
      409: 'Conflict',
      410: 'Gone',
      ...BODY,
    },
  },
  createLink: {
    summary:
      'A link for one recipient (a person that may read the pause; never an agent): answered with its URL it is granted and decides as the person who asked (§16); with deliver: true Handback mails it, and it decides as that address.',
    requestBody: 'LinkRequest',
    parameters: { ...RUN, interruptId: 'The pause, as its 201 named it.' },
    responses: {
      201: json(ref('LinkCreated'), 'The granted link.'),
      202: json(ref('LinkDelivered'), 'The link was mailed to the recipient (no URL).'),
      ...BEARER,
      404: 'NotFound',
      409: 'Conflict',
      ...BODY,
    },
  },
  claim: {
    summary:
      "Claim a closed pause's hand-off for one consumer (§18): the first claimant gets it; another is told who has it; the same claimant again gets it again (a retry). A pause still open is 409 pause_open.",
    requestBody: 'ClaimRequest',
    parameters: { ...RUN, interruptId: 'The pause, as its 201 named it.' },
    responses: {
      200: json(ref('ClaimResult'), 'Who holds the claim, and whether it is this claimant.'),
      ...BEARER,
      404: 'NotFound',
      409: 'Conflict',
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
      200: json(ref('PauseView'), 'The pause (with messages, in slices, when asked).'),
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
      200: json(ref('Continuation'), 'Closed by this request, or replayed.'),
      202: json(ref('PendingDecisions'), 'Recorded; other asks still wait.'),
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
    components,
  };
}

/** The document as the file holds it. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}

const components = {
  securitySchemes: {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'On AWS, the API Gateway JWT authorizer; its tenant claim (default `tenant`) scopes all data, and the `scope` claim must hold one of the scopes an operation lists (an unscoped token passes unless scopes are required). Locally, RS256/RS384/RS512 tokens of HANDBACK_JWT_ISSUER, or HS256 with HANDBACK_JWT_SECRET, or no auth when unset.',
    },
  },
  responses: {
    Forbidden: {
      description:
        "forbidden: the token's scopes do not open the operation (unscoped tokens too, where scopes are required); `scope` names the scopes that would.",
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    },
    BadRequest: {
      description: 'bad_request (malformed JSON, missing or ill-typed fields, bad runId) or invalid_transcript.',
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    Unauthorized: {
      description: 'unauthorized: no valid token, or no tenant claim.',
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    NotFound: {
      description: "pause_not_found / continuation_not_found (unknown, or another tenant's).",
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    Conflict: {
      description:
        'open_pause_exists, already_resumed (carries continuationId), or already_decided (carries toolCallId).',
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    Gone: {
      description: 'pause_expired, or pause_cancelled (carries continuationId).',
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    PayloadTooLarge: {
      description: 'payload_too_large: pause body over 6 MB, answer over 256 KB.',
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    UnsupportedMediaType: {
      description: 'unsupported_media_type: the body is not application/json.',
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    InvalidAnswer: {
      description: 'invalid_answer (lists failures), or idempotency_key_reused.',
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    InternalError: {
      description: 'internal_error (a generic problem with a requestId), or missing_turn_state / corrupt_checkpoint.',
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    HandoffFailed: {
      description:
        'handoff_failed: committed but the hand-off failed (repeat the same request to deliver again); or storage_unavailable: the table did not answer in time (Retry-After; retry the same request).',
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    LinkUnauthorized: {
      description:
        'unauthorized: the answer link is missing, tampered, foreign or made with another key (never says which).',
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
    LinkGone: {
      description: "link_closed: the link's pause has closed or its time has passed.",
      content: {
        'application/problem+json': {
          schema: {
            $ref: '#/components/schemas/Problem',
          },
        },
      },
    },
  },
  schemas: {
    Format: {
      enum: [...FORMAT_NAMES],
    },
    Problem: {
      type: 'object',
      required: ['type', 'title', 'status', 'detail', 'code'],
      properties: {
        type: {
          type: 'string',
        },
        title: {
          type: 'string',
        },
        status: {
          type: 'integer',
        },
        detail: {
          type: 'string',
        },
        code: {
          type: 'string',
          description: `The stable machine word: ${CODES.join(', ')}.`,
        },
        continuationId: {
          type: 'string',
        },
        scope: {
          type: 'string',
          description: 'forbidden: the scopes that would open the operation (any one).',
        },
        expiresAt: {
          type: 'string',
          format: 'date-time',
        },
        violations: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              rule: {
                type: 'string',
              },
              index: {
                type: 'integer',
              },
              message: {
                type: 'string',
              },
            },
          },
        },
        failures: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              path: {
                type: 'string',
              },
              message: {
                type: 'string',
              },
            },
          },
        },
        requestId: {
          type: 'string',
        },
        toolCallId: {
          type: 'string',
          description: 'already_decided: the ask decided differently before.',
        },
      },
    },
    PauseRequest: {
      type: 'object',
      required: ['format', 'messages'],
      properties: {
        format: {
          $ref: '#/components/schemas/Format',
        },
        messages: {
          type: 'array',
          minItems: 1,
          items: {},
        },
        toolCallId: {
          type: 'string',
          minLength: 1,
          description: 'The one answer ask (part one). Not with asks.',
        },
        prompt: {
          type: 'string',
        },
        answerSchema: {
          type: ['object', 'boolean'],
          description: 'JSON Schema 2020-12 the answer must pass.',
        },
        expiresInSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: LIMITS.expiresInSeconds.max,
          default: LIMITS.expiresInSeconds.default,
        },
        taskToken: {
          type: 'string',
        },
        metadata: {
          type: 'object',
          description: 'At most 4 KB of JSON, returned as given.',
        },
        asks: {
          type: 'array',
          minItems: 1,
          maxItems: LIMITS.asks.max,
          items: {
            $ref: '#/components/schemas/Ask',
          },
        },
        onExpiry: {
          enum: [...ON_EXPIRY],
          default: ON_EXPIRY[0],
          description:
            'reject: at expiresAt every undecided ask is rejected and the continuation committed and handed off.',
        },
        remindBeforeSeconds: {
          type: 'integer',
          minimum: 1,
          description: 'Emit Pause Reminder this long before expiresAt.',
        },
      },
      description: `Part one's form (toolCallId, with prompt and answerSchema: one answer ask) or asks (${LIMITS.asks.min}–${LIMITS.asks.max}), not both.`,
    },
    PauseCreated: {
      type: 'object',
      required: ['runId', 'interruptId', 'toolCallId', 'asks', 'status', 'createdAt', 'expiresAt'],
      properties: {
        runId: {
          type: 'string',
        },
        interruptId: {
          type: 'string',
        },
        toolCallId: {
          type: 'string',
        },
        status: {
          const: 'paused',
        },
        createdAt: {
          type: 'string',
          format: 'date-time',
        },
        expiresAt: {
          type: 'string',
          format: 'date-time',
        },
        asks: STRING_LIST,
        answerUrl: {
          type: 'string',
          format: 'uri',
          description: 'When an inbox is configured: the inbox page with a signed token in the fragment.',
        },
      },
    },
    PauseView: {
      type: 'object',
      required: [
        'runId',
        'interruptId',
        'status',
        'toolCall',
        'prompt',
        'answerSchema',
        'metadata',
        'createdAt',
        'expiresAt',
      ],
      properties: {
        runId: {
          type: 'string',
        },
        interruptId: {
          type: 'string',
        },
        status: {
          enum: [...PAUSE_STATUSES],
        },
        format: {
          $ref: '#/components/schemas/Format',
        },
        toolCall: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: {
              type: 'string',
            },
            name: {
              type: 'string',
            },
            args: {},
          },
        },
        prompt: {
          type: ['string', 'null'],
        },
        answerSchema: {
          type: ['object', 'boolean', 'null'],
        },
        metadata: {
          type: ['object', 'null'],
        },
        createdAt: {
          type: 'string',
          format: 'date-time',
        },
        expiresAt: {
          type: 'string',
          format: 'date-time',
        },
        resumedAt: {
          type: 'string',
          format: 'date-time',
        },
        continuationId: {
          type: 'string',
        },
        messages: {
          type: 'array',
          items: {},
        },
        messagesOmitted: {
          const: true,
        },
        from: {
          type: 'integer',
        },
        total: {
          type: 'integer',
        },
        next: {
          type: 'integer',
        },
        asks: {
          type: 'array',
          items: {
            type: 'object',
            required: ['toolCallId', 'name', 'args', 'kind', 'prompt'],
            properties: {
              toolCallId: {
                type: 'string',
              },
              name: {
                type: 'string',
              },
              args: {},
              argsOmitted: {
                const: true,
              },
              kind: {
                enum: [...ASK_KINDS],
              },
              prompt: {
                type: ['string', 'null'],
              },
              answerSchema: {
                type: ['object', 'boolean'],
              },
              argsSchema: {
                type: ['object', 'boolean'],
              },
              editable: {
                type: 'boolean',
              },
              decision: {
                $ref: '#/components/schemas/RecordedDecision',
              },
              decidedAt: {
                type: 'string',
                format: 'date-time',
              },
            },
          },
        },
        decided: STRING_LIST,
        pending: STRING_LIST,
        context: {
          type: 'object',
          properties: {
            user: {
              type: 'string',
            },
            assistant: {
              type: 'string',
            },
          },
        },
        onExpiry: {
          enum: [...ON_EXPIRY],
        },
        remindAt: {
          type: 'string',
          format: 'date-time',
        },
        outcome: {
          enum: [...OUTCOMES],
        },
      },
    },
    ResumeRequest: {
      type: 'object',
      required: ['interruptId'],
      properties: {
        interruptId: {
          type: 'string',
        },
        answer: {
          description: 'Any JSON value, at most 256 KB.',
        },
        decisions: {
          type: 'array',
          minItems: 1,
          maxItems: LIMITS.asks.max,
          items: {
            $ref: '#/components/schemas/Decision',
          },
        },
      },
      description: 'Exactly one of answer (a pause with one answer ask) or decisions.',
    },
    Continuation: {
      type: 'object',
      required: ['runId', 'interruptId', 'continuationId', 'format', 'outcome', 'dispatch', 'resumedAt'],
      properties: {
        runId: {
          type: 'string',
        },
        interruptId: {
          type: 'string',
        },
        continuationId: {
          type: 'string',
        },
        format: {
          $ref: '#/components/schemas/Format',
        },
        messages: {
          type: 'array',
          items: {},
          description:
            'Left out (messagesOmitted) when the response would pass 5 MB; read it in slices with from/limit.',
        },
        messagesOmitted: {
          const: true,
        },
        resumedAt: {
          type: 'string',
          format: 'date-time',
        },
        from: {
          type: 'integer',
        },
        total: {
          type: 'integer',
        },
        next: {
          type: 'integer',
          description: 'Where the next slice starts.',
        },
        outcome: {
          enum: [...OUTCOMES],
        },
        dispatch: {
          type: 'array',
          description: 'The approved and edited calls the agent must now run, in call order.',
          items: {
            type: 'object',
            required: ['toolCallId', 'name', 'args'],
            properties: {
              toolCallId: {
                type: 'string',
              },
              name: {
                type: 'string',
              },
              args: {},
            },
          },
        },
      },
    },
    PausePage: {
      type: 'object',
      required: ['items'],
      properties: {
        items: {
          type: 'array',
          items: {
            $ref: '#/components/schemas/PauseView',
          },
        },
        cursor: {
          type: 'string',
        },
      },
    },
    Ask: {
      type: 'object',
      required: ['toolCallId'],
      properties: {
        toolCallId: {
          type: 'string',
          minLength: 1,
          description: 'A reserved call of the paused round.',
        },
        kind: {
          enum: [...ASK_KINDS],
          default: 'answer',
        },
        prompt: {
          type: 'string',
          maxLength: LIMITS.promptChars,
        },
        answerSchema: {
          type: ['object', 'boolean'],
          description: 'answer asks: JSON Schema 2020-12 the answer must pass.',
        },
        argsSchema: {
          type: ['object', 'boolean'],
          description: 'approval asks: JSON Schema 2020-12 edited args must pass.',
        },
        editable: {
          type: 'boolean',
          default: true,
          description: 'approval asks: whether args may be edited.',
        },
      },
    },
    RecordedDecision: {
      description: 'A decision as a person sent it.',
      oneOf: [
        {
          type: 'object',
          required: ['answer'],
          properties: {
            answer: {},
          },
        },
        {
          type: 'object',
          required: ['decision'],
          properties: {
            decision: {
              enum: [...DECISION_KINDS],
            },
            args: {
              type: 'object',
            },
            reason: {
              type: 'string',
            },
          },
        },
      ],
    },
    Decision: {
      type: 'object',
      required: ['toolCallId'],
      additionalProperties: false,
      properties: {
        toolCallId: {
          type: 'string',
          minLength: 1,
        },
        answer: {
          description: 'answer asks: any JSON value.',
        },
        decision: {
          enum: [...DECISION_KINDS],
        },
        args: {
          type: 'object',
          description: 'edit: the new arguments.',
        },
        reason: {
          type: 'string',
          description: 'reject: at most 2 KB.',
        },
      },
    },
    LinkResumeRequest: {
      type: 'object',
      description: "Exactly one of answer or decisions; the pause is the link's.",
      properties: {
        answer: {},
        decisions: {
          type: 'array',
          minItems: 1,
          maxItems: LIMITS.asks.max,
          items: {
            $ref: '#/components/schemas/Decision',
          },
        },
      },
    },
    CancelRequest: {
      type: 'object',
      properties: {
        reason: {
          type: 'string',
          description: "At most 2 KB; written into every undecided ask's rejection.",
        },
      },
    },
    PendingDecisions: {
      type: 'object',
      required: ['runId', 'interruptId', 'status', 'decided', 'pending'],
      properties: {
        runId: {
          type: 'string',
        },
        interruptId: {
          type: 'string',
        },
        status: {
          const: 'paused',
        },
        decided: STRING_LIST,
        pending: STRING_LIST,
      },
    },
    ClaimRequest: {
      type: 'object',
      required: ['claimant'],
      properties: { claimant: { type: 'string', pattern: LIMITS.claimant.source } },
      description: 'Who claims: an opaque name, the same on every retry of one claim.',
    },
    ClaimResult: {
      type: 'object',
      required: ['runId', 'interruptId', 'claimed', 'claimant', 'claimedAt'],
      properties: {
        runId: { type: 'string' },
        interruptId: { type: 'string' },
        claimed: { type: 'boolean', description: 'True when this claimant holds the claim.' },
        claimant: { type: 'string', description: 'Who holds the claim.' },
        claimedAt: { type: 'string', format: 'date-time' },
      },
    },
    JsonRpcMessage: {
      description: 'A JSON-RPC 2.0 message or batch, as the Model Context Protocol defines them.',
      oneOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }],
    },
    LinkRequest: {
      type: 'object',
      required: ['email'],
      properties: { email: { type: 'string', minLength: 1 }, name: { type: 'string' }, deliver: { type: 'boolean' } },
      description:
        'Whom a link is for (§16): without deliver, a label on a granted link that decides as its grantor; with deliver: true, the address Handback mails a delivered link to.',
    },
    LinkDelivered: {
      type: 'object',
      required: ['recipient', 'delivered'],
      properties: {
        recipient: {
          type: 'object',
          required: ['email'],
          properties: { email: { type: 'string' }, name: { type: 'string' } },
        },
        delivered: { const: true },
      },
    },
    LinkCreated: {
      type: 'object',
      required: ['answerUrl', 'recipient'],
      properties: {
        answerUrl: { type: 'string', format: 'uri' },
        recipient: {
          type: 'object',
          required: ['email'],
          properties: { email: { type: 'string' }, name: { type: 'string' } },
        },
      },
    },
  },
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = fileURLToPath(new URL('../functions/handlers/openapi.json', import.meta.url));
  writeFileSync(target, openApiText());
  console.log(`Wrote ${target}`);
}
