import { type AnswerFailure, BadRequestError, InvalidAnswerError, PayloadTooLargeError } from '../errors.ts';
import { turnContext } from '../rehydrate/context.ts';
import type { Decision } from '../rehydrate/decisions.ts';
import { FORMAT_NAMES, isFormatName } from '../rehydrate/formats/index.ts';
import { answerText, validatePauseAsks } from '../rehydrate/rehydrate.ts';
import * as z from '../zod.ts';
import type { AskInput, ListPausesQuery, PauseInput, PauseStatus } from './checkpoint-store.ts';
import { isPlainObject, jsonBytes, shown } from './json.ts';
import { schemaProblems } from './json-schema.ts';
import type { Ask, OnExpiry } from './record.ts';
import { ASK_KINDS, LIMITS, ON_EXPIRY, PAUSE_STATUSES, RUN_ID_PATTERN } from './rules.ts';

export { isPlainObject, jsonBytes, LIMITS };

/**
 * The checks the store runs before it touches storage, pure: users call the store from their own Lambda, so it
 * cannot rely on the HTTP edge having checked anything. Each check names every bad field (`BadRequestError` with
 * JSON-pointer failures), so one answer tells a caller everything to fix.
 */

/** A pause input that passed every check, with what the checks learned. */
export interface CheckedPause {
  tenant: string;
  runId: string;
  format: PauseInput['format'];
  messages: unknown[];
  asks: Ask[];
  context: { user?: string; assistant?: string };
  expiresInSeconds: number;
  onExpiry: OnExpiry;
  remindBeforeSeconds?: number;
  taskToken?: string;
  metadata?: Record<string, unknown>;
  idempotencyKey?: string;
}

/**
 * Checks a pause input: its fields (`BadRequestError` naming each bad one) and its transcript at pause time (§4:
 * `InvalidTranscriptError`, or `MissingTurnStateError` for no messages). The transcript's size is checked by the
 * service, which serializes it once.
 */
export function checkPauseInput(input: PauseInput): CheckedPause {
  const failures: AnswerFailure[] = [];
  const fail = (path: string, message: string) => failures.push({ path, message });
  if (!isPlainObject(input)) {
    throw new BadRequestError('The pause input must be an object.', [{ path: '', message: 'must be an object' }]);
  }
  const tenantProblem = tenantProblemOf(input.tenant);
  if (tenantProblem) fail('/tenant', tenantProblem);
  if (!isRunId(input.runId)) fail('/runId', runIdProblem(input.runId));
  const asks = askInputs(input, fail);
  const expiresInSeconds = input.expiresInSeconds ?? LIMITS.expiresInSeconds.default;
  const { min, max } = LIMITS.expiresInSeconds;
  if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < min || expiresInSeconds > max) {
    fail(
      '/expiresInSeconds',
      `expiresInSeconds must be an integer from ${min} to ${max}, got ${shown(expiresInSeconds)}`,
    );
  }
  const onExpiry = input.onExpiry ?? 'fail';
  if (!ON_EXPIRY.includes(onExpiry))
    fail('/onExpiry', `onExpiry must be "fail" or "reject", got ${describe(onExpiry)}`);
  if (input.remindBeforeSeconds !== undefined) {
    const remind = input.remindBeforeSeconds;
    if (!Number.isInteger(remind) || remind < 1 || (Number.isInteger(expiresInSeconds) && remind >= expiresInSeconds)) {
      fail(
        '/remindBeforeSeconds',
        `remindBeforeSeconds must be an integer from 1 to expiresInSeconds − 1 (${expiresInSeconds - 1}), got ${shown(remind)}`,
      );
    }
  }
  if (input.taskToken !== undefined) {
    if (typeof input.taskToken !== 'string' || input.taskToken.length === 0) {
      fail('/taskToken', 'taskToken must be a non-empty string');
    } else if (input.taskToken.length > LIMITS.taskTokenChars) {
      fail('/taskToken', `taskToken must be at most ${LIMITS.taskTokenChars} characters`);
    }
  }
  if (input.metadata !== undefined) {
    if (!isPlainObject(input.metadata)) {
      fail('/metadata', 'metadata must be a JSON object');
    } else {
      const size = jsonBytes(input.metadata);
      if (size === undefined) {
        fail('/metadata', 'metadata must be JSON (no undefined, functions, cycles or non-finite numbers)');
      } else if (size > LIMITS.metadataBytes) {
        fail('/metadata', `metadata is ${size} bytes as JSON, over the limit of ${LIMITS.metadataBytes}`);
      }
    }
  }
  if (input.idempotencyKey !== undefined && !isIdempotencyKey(input.idempotencyKey)) {
    fail('/idempotencyKey', 'idempotencyKey must be 1–255 visible ASCII characters');
  }
  if (!Array.isArray(input.messages) && input.messages !== undefined && input.messages !== null) {
    fail('/messages', 'messages must be an array');
  } else if (Array.isArray(input.messages) && jsonBytes(input.messages) === undefined) {
    // Stored as JSON, so kept "as it was" only if it is JSON: a Date, NaN or an array hole would come back changed.
    fail('/messages', `messages must be JSON: ${jsonFailure(input.messages)}`);
  }
  if (!isFormatName(input.format)) {
    fail('/format', `format must be one of ${FORMAT_NAMES.join(', ')}, got ${describe(input.format)}`);
  }
  if (failures.length > 0) {
    throw new BadRequestError(`The pause is malformed: ${failures.map((f) => f.message).join('; ')}.`, failures);
  }

  // §4 at pause time: the round is last, and every ask names a distinct reserved call of it.
  const { calls } = validatePauseAsks(
    { format: input.format, messages: input.messages },
    asks.map((ask) => ask.toolCallId),
  );
  const checked: CheckedPause = {
    tenant: input.tenant,
    runId: input.runId,
    format: input.format,
    messages: input.messages,
    asks: asks.map((ask, index) => {
      const call = calls[index] as { name: string; args: unknown };
      const kind = ask.kind ?? 'answer';
      return {
        toolCallId: ask.toolCallId,
        name: call.name,
        args: call.args,
        kind,
        ...(ask.prompt === undefined ? {} : { prompt: ask.prompt }),
        ...(ask.answerSchema === undefined ? {} : { answerSchema: ask.answerSchema }),
        ...(ask.argsSchema === undefined ? {} : { argsSchema: ask.argsSchema }),
        ...(kind === 'approval' ? { editable: ask.editable ?? true } : {}),
      };
    }),
    context: turnContext(input.format, input.messages, LIMITS.contextChars),
    expiresInSeconds,
    onExpiry,
  };
  if (input.remindBeforeSeconds !== undefined) checked.remindBeforeSeconds = input.remindBeforeSeconds;
  if (input.taskToken !== undefined) checked.taskToken = input.taskToken;
  if (input.metadata !== undefined) checked.metadata = input.metadata;
  if (input.idempotencyKey !== undefined) checked.idempotencyKey = input.idempotencyKey;
  return checked;
}

/** The asks of a pause input, in either form (§9): `toolCallId` (one `answer` ask) or `asks`. */
function askInputs(input: PauseInput, fail: (path: string, message: string) => void): AskInput[] {
  const partOne = input.toolCallId !== undefined || input.prompt !== undefined || input.answerSchema !== undefined;
  if (input.asks !== undefined && partOne) {
    fail('/asks', 'give either toolCallId (with prompt and answerSchema) or asks, not both');
    return [];
  }
  if (input.asks === undefined) {
    if (typeof input.toolCallId !== 'string' || input.toolCallId.length === 0) {
      fail('/toolCallId', 'toolCallId must be a non-empty string (or give asks)');
      return [];
    }
    const ask: AskInput = { toolCallId: input.toolCallId, kind: 'answer' };
    if (input.prompt !== undefined) ask.prompt = input.prompt;
    if (input.answerSchema !== undefined) ask.answerSchema = input.answerSchema;
    checkAsk(ask, '', fail);
    return [ask];
  }
  const { min, max } = LIMITS.asks;
  if (!Array.isArray(input.asks) || input.asks.length < min || input.asks.length > max) {
    fail('/asks', `asks must be an array of ${min} to ${max} asks`);
    return [];
  }
  const seen = new Set<string>();
  input.asks.forEach((ask, index) => {
    const at = `/asks/${index}`;
    if (!isPlainObject(ask)) {
      fail(at, 'an ask must be an object');
      return;
    }
    if (typeof ask.toolCallId !== 'string' || ask.toolCallId.length === 0) {
      fail(`${at}/toolCallId`, 'toolCallId must be a non-empty string');
    } else if (seen.has(ask.toolCallId)) {
      fail(`${at}/toolCallId`, `toolCallId ${JSON.stringify(ask.toolCallId)} is asked twice; asks are distinct calls`);
    } else {
      seen.add(ask.toolCallId);
    }
    checkAsk(ask, at, fail);
  });
  return input.asks;
}

function checkAsk(ask: AskInput, at: string, fail: (path: string, message: string) => void): void {
  const kind = ask.kind ?? 'answer';
  if (!ASK_KINDS.includes(kind)) {
    fail(`${at}/kind`, `kind must be "answer" or "approval", got ${describe(kind)}`);
    return;
  }
  if (ask.prompt !== undefined && (typeof ask.prompt !== 'string' || ask.prompt.length > LIMITS.promptChars)) {
    fail(`${at}/prompt`, `prompt must be a string of at most ${LIMITS.promptChars} characters`);
  }
  if (kind === 'answer' && (ask.argsSchema !== undefined || ask.editable !== undefined)) {
    fail(
      `${at}/${ask.argsSchema !== undefined ? 'argsSchema' : 'editable'}`,
      'argsSchema and editable belong to approval asks',
    );
  }
  if (kind === 'approval' && ask.answerSchema !== undefined) {
    fail(`${at}/answerSchema`, 'answerSchema belongs to answer asks');
  }
  if (ask.editable !== undefined && typeof ask.editable !== 'boolean')
    fail(`${at}/editable`, 'editable must be a boolean');
  for (const role of ['answerSchema', 'argsSchema'] as const) {
    if (ask[role] === undefined) continue;
    for (const problem of schemaProblems(ask[role], role)) fail(`${at}/${role}${problem.path}`, problem.message);
  }
}

/** One decision of a request (§9): an answer, or approve / edit / reject. */
export const decisionSchema = z.union([
  z.strictObject({ toolCallId: z.string().check(z.minLength(1)), answer: z.unknown() }),
  z.strictObject({ toolCallId: z.string().check(z.minLength(1)), decision: z.literal('approve') }),
  // Any JSON here: edited args that are not an object are an invalid answer (422), checked below, not a bad request.
  z.strictObject({ toolCallId: z.string().check(z.minLength(1)), decision: z.literal('edit'), args: z.unknown() }),
  z.strictObject({
    toolCallId: z.string().check(z.minLength(1)),
    decision: z.literal('reject'),
    reason: z.optional(z.string()),
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
      answerText(decision.args, `/decisions/${index}/args`);
      checkSize(decision.args, `/decisions/${index}/args`, 'the edited args');
    }
  });
  return list;
}

/** Throws unless `reason` is text of at most 2 KB. */
export function checkReason(reason: unknown, path = '/reason'): void {
  if (typeof reason !== 'string') {
    throw new BadRequestError('The reason must be a string.', [{ path, message: 'must be a string' }]);
  }
  const bytes = new TextEncoder().encode(reason).length;
  if (bytes > LIMITS.reasonBytes) {
    const message = `the reason is ${bytes} bytes, over the limit of ${LIMITS.reasonBytes}`;
    throw new BadRequestError(`${capitalize(message)}.`, [{ path, message }]);
  }
}

/**
 * Checks an answer before anything is read: a JSON value (`InvalidAnswerError` otherwise, as `rehydrate` would
 * say) of at most 256 KB as JSON (`PayloadTooLargeError`). Returns its JSON text.
 */
export function checkAnswer(answer: unknown, path = '/answer'): string {
  answerText(answer);
  return checkSize(answer, path, 'the answer');
}

function checkSize(value: unknown, path: string, what: string): string {
  const json = JSON.stringify(value);
  const size = new TextEncoder().encode(json).length;
  if (size > LIMITS.answerBytes) {
    const message = `${what} is ${size} bytes as JSON, over the limit of ${LIMITS.answerBytes}`;
    throw new PayloadTooLargeError(`${capitalize(message)}.`, [{ path, message }]);
  }
  return json;
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

/** The page size and status of a listing: `limit` checked (1–100), default 20; throws `BadRequestError` otherwise. */
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
function jsonFailure(value: unknown): string {
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

function isRunId(runId: unknown): runId is string {
  return typeof runId === 'string' && RUN_ID_PATTERN.test(runId);
}

function runIdProblem(runId: unknown): string {
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

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 64)) : typeof value;
}

function capitalize(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
