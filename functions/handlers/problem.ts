import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResultV2, Context } from 'aws-lambda';
import {
  AlreadyClaimedError,
  AlreadyDecidedError,
  AlreadyFinishedError,
  AlreadyResumedError,
  AlreadyVotedError,
  ApprovalExpiredError,
  ArgsChangedError,
  BadRequestError,
  type ErrorCode,
  ForbiddenError,
  fateOf,
  HandbackError,
  HandoffFailedError,
  IdempotencyKeyReusedError,
  InvalidAnswerError,
  InvalidTranscriptError,
  isFinal,
  LinkKeyUnavailableError,
  NotAnApproverError,
  NotClaimedError,
  NotDispatchedError,
  OpenPauseExistsError,
  PauseCancelledError,
  PauseExpiredError,
  PayloadTooLargeError,
  PolicyEvaluationError,
  PolicyForbidsError,
  RecipientNotAllowedError,
  SelfDecisionError,
  StorageUnavailableError,
  UnknownPersonError,
} from '../errors.ts';

/**
 * The one place where errors become HTTP statuses: every error response is an RFC 9457
 * `application/problem+json` body `{type, title, status, detail, code, ...}`. Anything not known here is a generic
 * 500 that reveals nothing but a request id to quote.
 */

/** The problem codes of the HTTP edge itself, beside the domain's `ErrorCode`s. */
export const EdgeCode = {
  Unauthorized: 'unauthorized',
  NotFound: 'not_found',
  MethodNotAllowed: 'method_not_allowed',
  PayloadTooLarge: 'payload_too_large',
  UnsupportedMediaType: 'unsupported_media_type',
  LinkClosed: 'link_closed',
  ChannelUnavailable: 'channel_unavailable',
  InternalError: 'internal_error',
} as const;
export type EdgeCode = (typeof EdgeCode)[keyof typeof EdgeCode];

/** An RFC 9457 problem body. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode | EdgeCode;
  [extension: string]: unknown;
}

/** An error of the HTTP edge (auth, routing, media type, size), carrying its status and code. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly code: EdgeCode | ErrorCode;
  readonly headers: Record<string, string>;

  constructor(status: number, code: EdgeCode | ErrorCode, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.name = 'HttpProblem';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

const EDGE_TITLES: Record<EdgeCode, string> = {
  unauthorized: 'Unauthorized',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  link_closed: 'Link closed',
  channel_unavailable: 'Channel unavailable',
  internal_error: 'Internal error',
};

/** The HTTP status an error maps to; 500 for anything unknown. */
export function statusOf(error: unknown): number {
  const fate = fateOf(error);
  if (fate !== undefined) return fate.status;
  if (error instanceof HttpProblem) return error.status;
  return 500;
}

/** Whether a request failed for good: a final Handback error (its fate says so) or an edge refusal (4xx). */
export function isPermanent(error: unknown): boolean {
  if (error instanceof HttpProblem) return error.status >= 400 && error.status < 500;
  return isFinal(error);
}

/** The problem body and headers for an error; `requestId` is quoted by the generic 500. */
export function problemOf(error: unknown, requestId: string): { problem: Problem; headers: Record<string, string> } {
  const fate = fateOf(error);
  if (error instanceof HandbackError && fate !== undefined) {
    const { status, title } = fate;
    // A retryable failure says when to retry: a committed resume whose hand-off failed replays and delivers again; a
    // storage timeout may or may not have happened, and every request is safe to repeat.
    const headers: Record<string, string> = fate.retryable
      ? {
          'Retry-After': String(
            error instanceof StorageUnavailableError || error instanceof LinkKeyUnavailableError
              ? error.retryAfterSeconds
              : 1,
          ),
        }
      : {};
    return { problem: { ...base(error.code, title, status, error.message), ...extensions(error) }, headers };
  }
  if (error instanceof HttpProblem) {
    const title = EDGE_TITLES[error.code as EdgeCode] ?? 'Error';
    return { problem: base(error.code, title, error.status, error.message), headers: error.headers };
  }
  const detail = `An unexpected error occurred. Quote request id ${requestId} when reporting it.`;
  return {
    problem: { ...base(EdgeCode.InternalError, EDGE_TITLES.internal_error, 500, detail), requestId },
    headers: {},
  };
}

/** A payload v2 response carrying a problem. */
export function problemResponse(
  error: unknown,
  requestId: string,
): Exclude<APIGatewayProxyResultV2, string> & { statusCode: number; body: string } {
  const { problem, headers } = problemOf(error, requestId);
  return {
    statusCode: problem.status,
    headers: { 'Content-Type': 'application/problem+json', ...headers },
    body: JSON.stringify(problem),
  };
}

/** Where the problem middleware reports errors: 5xx as errors (with the stack), 4xx as one info line. */
export interface ProblemLog {
  info(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
}

/** A middy `onError` middleware that answers every error with its problem; the outermost one of the API handler. */
export function problemDetails(
  log: ProblemLog,
): MiddlewareObj<{ requestContext?: { requestId?: string } }, unknown, Error, Context> {
  return {
    onError: async (request) => {
      const requestId = request.event?.requestContext?.requestId ?? request.context?.awsRequestId ?? 'unknown';
      const response = problemResponse(request.error, requestId);
      if (response.statusCode >= 500) {
        log.error('Request failed', { requestId, status: response.statusCode, error: request.error });
      } else {
        const code = (JSON.parse(response.body ?? '{}') as Problem).code;
        log.info('Request refused', { requestId, status: response.statusCode, code });
      }
      request.response = response;
    },
  };
}

function base(code: ErrorCode | EdgeCode, title: string, status: number, detail: string): Problem {
  return { type: `urn:handback:problem:${code}`, title, status, detail, code };
}

/** The ids and lists a client needs to act on a domain error. */
function extensions(error: HandbackError): Record<string, unknown> {
  if (error instanceof AlreadyResumedError || error instanceof HandoffFailedError) {
    return { continuationId: error.continuationId };
  }
  // The ask a refusal is about (§9, §13), so a client deciding several knows which one.
  if (
    error instanceof AlreadyDecidedError ||
    error instanceof NotAnApproverError ||
    error instanceof SelfDecisionError ||
    error instanceof AlreadyVotedError ||
    error instanceof UnknownPersonError
  ) {
    return { toolCallId: error.toolCallId };
  }
  // The current arguments' hash, so a client can show them again and send it back (§16).
  if (error instanceof ArgsChangedError) return { toolCallId: error.toolCallId, argsHash: error.argsHash };
  if (error instanceof ForbiddenError) return error.scope === undefined ? {} : { scope: error.scope };
  // The pause in the way, so a client can read it: a permission request asked again meets its own pause (§18).
  if (error instanceof OpenPauseExistsError || error instanceof IdempotencyKeyReusedError) {
    return error.interruptId === undefined ? {} : { interruptId: error.interruptId };
  }
  if (error instanceof PauseCancelledError) {
    return error.continuationId === undefined ? {} : { continuationId: error.continuationId };
  }
  if (error instanceof PauseExpiredError) return { expiresAt: error.expiresAt };
  // §19: who holds the claim and since when, so the losing runner can say where the call runs.
  if (error instanceof AlreadyClaimedError) {
    return { toolCallId: error.toolCallId, claimedAt: error.claimedAt, claimedBy: error.claimedBy };
  }
  if (error instanceof ApprovalExpiredError)
    return { toolCallId: error.toolCallId, approvedUntil: error.approvedUntil };
  // §19: the call, and the policies that refused or could not judge it (an edit, or a claim at run time).
  if (error instanceof PolicyForbidsError || error instanceof PolicyEvaluationError) {
    const call = error.toolCallId === undefined ? {} : { toolCallId: error.toolCallId };
    return { ...call, policyIds: error.policyIds, reason: error.reason };
  }
  if (
    error instanceof NotDispatchedError ||
    error instanceof NotClaimedError ||
    error instanceof AlreadyFinishedError
  ) {
    return { toolCallId: error.toolCallId };
  }
  if (error instanceof InvalidTranscriptError) return { violations: error.violations };
  if (
    error instanceof InvalidAnswerError ||
    error instanceof BadRequestError ||
    error instanceof PayloadTooLargeError ||
    error instanceof RecipientNotAllowedError
  ) {
    return { failures: error.failures };
  }
  return {};
}
