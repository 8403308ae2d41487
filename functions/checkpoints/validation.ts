import { type AnswerFailure, BadRequestError, InvalidAnswerError, PayloadTooLargeError } from '../errors.ts';
import type { Decision } from '../rehydrate/decisions.ts';
import { answerText } from '../rehydrate/texts.ts';
import { LIMITS, PAUSE_STATUSES, RUN_ID_PATTERN } from '../vocabulary.ts';
import * as z from '../zod.ts';
import type { ListPausesQuery, PauseStatus } from './checkpoint-store.ts';
import { capitalize, isPlainObject, shown, utf8Bytes } from './json.ts';

/**
 * The checks the store runs before it touches storage, pure: users call the store from their own Lambda, so it
 * cannot rely on the HTTP edge having checked anything. Each check names every bad field (`BadRequestError` with
 * JSON-pointer failures), so one answer tells a caller everything to fix.
 */

/** The `argsHash` a decision may carry back (§16): the opaque hash its view showed. */
const argsHash = z.optional(z.string().check(z.minLength(1), z.maxLength(128)));

/** One decision of a request (§9): an answer, or approve / edit / reject; each may carry the `argsHash` it saw (§16). */
export const decisionSchema = z.union([
  z.strictObject({ toolCallId: z.string().check(z.minLength(1)), answer: z.unknown(), argsHash }),
  z.strictObject({ toolCallId: z.string().check(z.minLength(1)), decision: z.literal('approve'), argsHash }),
  // Any JSON here: edited args that are not an object are an invalid answer (422), checked below, not a bad request.
  z.strictObject({
    toolCallId: z.string().check(z.minLength(1)),
    decision: z.literal('edit'),
    args: z.unknown(),
    argsHash,
  }),
  z.strictObject({
    toolCallId: z.string().check(z.minLength(1)),
    decision: z.literal('reject'),
    reason: z.optional(z.string()),
    argsHash,
  }),
]);

/** The decisions of a request: 1–16 of them. */
export const decisionsSchema = z.array(decisionSchema).check(z.minLength(1), z.maxLength(LIMITS.asks.max));

/**
 * Checks a request's decisions as data (`BadRequestError` naming each bad one), edited args that are not a JSON object
 * (`InvalidAnswerError`, as §9 says: 422), and that each stays under the size limits.
 */
export function checkDecisionsInput(decisions: unknown): Decision[] {
  const parsed = decisionsSchema.safeParse(decisions);
  if (!parsed.success) {
    const failures = parsed.error.issues.map((issue) => ({
      path: `/decisions/${issue.path.map(String).join('/')}`.replace(/\/$/, ''),
      message: issue.message,
    }));
    throw new BadRequestError(
      `The decisions are malformed: each is {toolCallId, answer} or {toolCallId, decision: "approve" | "edit" (with args) | "reject" (with an optional reason)}; ${failures.map((f) => `${f.path} ${f.message}`).join('; ')}.`,
      failures,
    );
  }
  const list = parsed.data as Decision[];
  list.forEach((decision, index) => {
    if ('answer' in decision) checkAnswer(decision.answer, `/decisions/${index}/answer`);
    if ('reason' in decision && decision.reason !== undefined)
      checkReason(decision.reason, `/decisions/${index}/reason`);
    if ('args' in decision) {
      if (!isPlainObject(decision.args)) {
        const message = 'the edited args must be a JSON object of the call’s arguments';
        throw new InvalidAnswerError(`${capitalize(message)} (decision ${index}).`, [
          { path: `/decisions/${index}/args`, message },
        ]);
      }
      checkSize(
        decision.args,
        answerText(decision.args, `/decisions/${index}/args`),
        `/decisions/${index}/args`,
        'the edited args',
      );
    }
  });
  return list;
}

/** Throws unless `reason` is text of at most 2 KB. */
export function checkReason(reason: unknown, path = '/reason'): void {
  if (typeof reason !== 'string') {
    throw new BadRequestError('The reason must be a string.', [{ path, message: 'must be a string' }]);
  }
  const bytes = utf8Bytes(reason);
  if (bytes > LIMITS.reasonBytes) {
    const message = `the reason is ${bytes} bytes, over the limit of ${LIMITS.reasonBytes}`;
    throw new BadRequestError(`${capitalize(message)}.`, [{ path, message }]);
  }
}

/**
 * Checks an answer before anything is read: a JSON value (`InvalidAnswerError` otherwise, as `rehydrate` would
 * say) of at most 256 KB as JSON (`PayloadTooLargeError`).
 */
export function checkAnswer(answer: unknown, path = '/answer'): void {
  checkSize(answer, answerText(answer), path, 'the answer');
}

/** Throws unless `value` is at most 256 KB as JSON; `text` is its `answerText` (its JSON, unless it is a string). */
function checkSize(value: unknown, text: string, path: string, what: string): void {
  const size = utf8Bytes(typeof value === 'string' ? JSON.stringify(value) : text);
  if (size > LIMITS.answerBytes) {
    const message = `${what} is ${size} bytes as JSON, over the limit of ${LIMITS.answerBytes}`;
    throw new PayloadTooLargeError(`${capitalize(message)}.`, [{ path, message }]);
  }
}

/** Throws `BadRequestError` unless `tenant` and `runId` can name a run. */
export function checkRun(tenant: unknown, runId: unknown): void {
  const failures: AnswerFailure[] = [];
  const tenantProblem = tenantProblemOf(tenant);
  if (tenantProblem) failures.push({ path: '/tenant', message: tenantProblem });
  if (!isRunId(runId)) failures.push({ path: '/runId', message: runIdProblem(runId) });
  if (failures.length > 0) {
    throw new BadRequestError(`${capitalize(failures.map((f) => f.message).join('; '))}.`, failures);
  }
}

/**
 * The page size and status of a listing: `limit` held to `LIMITS.pageSize` (its default when absent); throws
 * `BadRequestError` otherwise.
 */
export function checkListQuery(query: ListPausesQuery): { limit: number; status?: PauseStatus } {
  const tenantProblem = tenantProblemOf(query?.tenant);
  if (tenantProblem) throw new BadRequestError(`${tenantProblem}.`, [{ path: '/tenant', message: tenantProblem }]);
  const { min, max, default: fallback } = LIMITS.pageSize;
  const limit = query.limit ?? fallback;
  if (!Number.isInteger(limit) || limit < min || limit > max) {
    const message = `limit must be an integer from ${min} to ${max}, got ${shown(limit)}`;
    throw new BadRequestError(`${capitalize(message)}.`, [{ path: '/limit', message }]);
  }
  if (query.status !== undefined && !PAUSE_STATUSES.includes(query.status)) {
    const message = `status must be one of ${PAUSE_STATUSES.join(', ')}, got ${describe(query.status)}`;
    throw new BadRequestError(`${capitalize(message)}.`, [{ path: '/status', message }]);
  }
  return query.status === undefined ? { limit } : { limit, status: query.status };
}

/** Where and why a value is not JSON, for an error message (the rules are `answerText`'s, which names the path). */
export function jsonFailure(value: unknown): string {
  try {
    answerText(value);
  } catch (error) {
    const failure = (error as { failures?: Array<{ message: string }> }).failures?.[0];
    if (failure !== undefined) return `messages${failure.message}`;
  }
  return 'no undefined, functions, dates, cycles, holes or non-finite numbers';
}

/** Whether `key` can be an `Idempotency-Key`. */
export function isIdempotencyKey(key: unknown): key is string {
  return typeof key === 'string' && LIMITS.idempotencyKey.test(key);
}

export function isRunId(runId: unknown): runId is string {
  return typeof runId === 'string' && RUN_ID_PATTERN.test(runId);
}

export function runIdProblem(runId: unknown): string {
  return `runId must be 1–128 characters of [A-Za-z0-9._:-], got ${typeof runId === 'string' ? JSON.stringify(runId.slice(0, 140)) : typeof runId}`;
}

/** Why `tenant` cannot name a tenant, or undefined when it can. */
export function tenantProblemOf(tenant: unknown): string | undefined {
  if (typeof tenant !== 'string' || tenant.length === 0 || tenant.length > LIMITS.tenantChars) {
    return `tenant must be a string of 1–${LIMITS.tenantChars} characters`;
  }
  try {
    encodeURIComponent(tenant); // throws on a lone surrogate, which no key could carry
  } catch {
    return 'tenant must be well-formed Unicode';
  }
  return undefined;
}

export function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 64)) : typeof value;
}
