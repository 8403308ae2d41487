import * as errors from '../errors.ts';
import { ERROR_FATES, type ErrorCode, HandbackError } from '../errors.ts';

/**
 * Problems back into errors (§15): a problem's `code` names its class through the one table of fates
 * (`ERROR_FATES[code].name`, the class of that name in `errors.ts`), so the client throws what the store throws and
 * keeps no list of its own. The ids the request named and the problem's own fields (`toolCallId`, `continuationId`,
 * `failures`, …) are carried over.
 */

/** An RFC 9457 problem as the API sends it. */
export interface ProblemBody {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  [extension: string]: unknown;
}

/**
 * A failure with no Handback class of its own: a problem whose code this version does not know (an edge code such as
 * `unauthorized` or `not_found`, or one a newer service speaks), a response that is not a problem, or no response
 * at all (a network failure or a timeout, `status` undefined). `code` is the problem's own word.
 */
export class HandbackHttpError extends HandbackError {
  /** The HTTP status; undefined when no response came. */
  readonly status: number | undefined;
  /** The problem body, when the response had one. */
  readonly problem: ProblemBody | undefined;

  constructor(
    message: string,
    options: { status?: number; code?: string; problem?: ProblemBody; cause?: unknown } = {},
  ) {
    // The base types `code` as this version's words; this error's code is the wire's, which may be another's.
    super((options.code ?? (options.status === undefined ? 'network_error' : 'http_error')) as ErrorCode, message, {
      cause: options.cause,
    });
    this.name = 'HandbackHttpError';
    this.status = options.status;
    this.problem = options.problem;
  }
}

const classes = errors as unknown as Record<string, unknown>;

/** The Handback error class a problem code names, through `ERROR_FATES`; undefined for a code it does not have. */
function classOf(code: unknown): (new (...args: never[]) => HandbackError) | undefined {
  if (typeof code !== 'string' || !Object.hasOwn(ERROR_FATES, code)) return undefined;
  const candidate = classes[ERROR_FATES[code as ErrorCode].name];
  return typeof candidate === 'function' && candidate.prototype instanceof HandbackError
    ? (candidate as new (
        ...args: never[]
      ) => HandbackError)
    : undefined;
}

const BASE_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'code']);

/**
 * The error a problem response stands for: the class its code names, holding the problem's detail as its message,
 * the ids of the request (`runId`, `interruptId`, `continuationId` where it named them) and the problem's fields;
 * `retryAfterSeconds` from `Retry-After`. Anything else is a `HandbackHttpError` with the status.
 */
export function errorOf(
  status: number,
  body: unknown,
  context: { ids?: Record<string, string>; retryAfterSeconds?: number },
): HandbackError {
  const problem = isProblem(body) ? body : undefined;
  const detail = problem?.detail ?? `The service answered ${status} without a problem body.`;
  const Class = classOf(problem?.code);
  if (problem === undefined || Class === undefined) {
    return new HandbackHttpError(detail, {
      status,
      ...(typeof problem?.code === 'string' ? { code: problem.code } : {}),
      ...(problem === undefined ? {} : { problem }),
    });
  }
  // Built as the class (its prototype, name and code), without its constructor: each class composes its message from
  // ids the server already wrote into `detail`, and the fields are copied from the problem below.
  const error = Reflect.construct(Error, [detail], Class) as HandbackError;
  const fields: Record<string, unknown> = { ...context.ids };
  for (const [key, value] of Object.entries(problem)) if (!BASE_MEMBERS.has(key)) fields[key] = value;
  if (context.retryAfterSeconds !== undefined) fields.retryAfterSeconds = context.retryAfterSeconds;
  const fate = ERROR_FATES[problem.code as ErrorCode];
  Object.assign(error, { ...fields, name: fate.name, code: problem.code });
  return error;
}

function isProblem(body: unknown): body is ProblemBody {
  return (
    typeof body === 'object' && body !== null && !Array.isArray(body) && typeof (body as ProblemBody).code === 'string'
  );
}
