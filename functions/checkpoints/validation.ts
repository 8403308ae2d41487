import { type AnswerFailure, BadRequestError } from '../errors.ts';
import type { ToolCall } from '../rehydrate/formats/format.ts';
import type { FormatName } from '../rehydrate/formats/index.ts';
import { answerText, validatePause } from '../rehydrate/rehydrate.ts';
import type { JsonSchema, ListPausesQuery, PauseInput, PauseStatus } from './checkpoint-store.ts';
import { isPlainObject, jsonBytes } from './json.ts';
import { checkAgainstSchema, schemaProblems } from './json-schema.ts';
import { encodeTenant, RUN_ID_PATTERN } from './keys.ts';

export { isPlainObject, jsonBytes };

/**
 * The checks the store runs before it touches the table, pure: users call the store from their own Lambda, so it
 * cannot rely on the HTTP edge having checked anything.
 */

/** The limits the store enforces. */
export const LIMITS = {
  expiresInSeconds: { min: 1, max: 31_536_000, default: 604_800 },
  /** Bytes of `metadata` as JSON (UTF-8). */
  metadataBytes: 4 * 1024,
  /** Bytes of an answer as JSON (UTF-8). */
  answerBytes: 256 * 1024,
  /** Bytes of the transcript as JSON (UTF-8). */
  transcriptBytes: 16 * 1024 * 1024,
  /**
   * Bytes of what the pause item holds besides the transcript (the answered call, prompt, answer schema,
   * metadata, task token), so that it plus a 256 KB answer stays under DynamoDB's 400 KB item limit.
   */
  pauseItemBytes: 96 * 1024,
  /** Characters of a tenant. */
  tenantChars: 256,
  /** Characters of a Step Functions task token (the API allows up to 1,024). */
  taskTokenChars: 1024,
  /** Bytes of JSON a page of pauses holds at most: 100 pauses of 96 KB would pass a Lambda response's 6 MB. */
  pageBytes: 4 * 1024 * 1024,
  /** Default and largest `limit` of a page of pauses. */
  pageSize: { min: 1, max: 100, default: 20 },
} as const;

/** A pause input that passed every check, with what the checks learned. */
export interface CheckedPause {
  tenant: string;
  runId: string;
  format: FormatName;
  messages: unknown[];
  toolCall: ToolCall;
  prompt?: string;
  answerSchema?: JsonSchema;
  expiresInSeconds: number;
  taskToken?: string;
  metadata?: Record<string, unknown>;
}

/**
 * Checks a pause input: its fields (`BadRequestError` naming each bad one) and its transcript at pause time (§4:
 * `InvalidTranscriptError`, or `MissingTurnStateError` for no messages). The transcript's size is checked by the
 * store, which serializes it once.
 */
export function checkPauseInput(input: PauseInput): CheckedPause {
  const failures: AnswerFailure[] = [];
  const fail = (path: string, message: string) => failures.push({ path, message });
  if (typeof input !== 'object' || input === null) {
    throw new BadRequestError('The pause input must be an object.', [{ path: '', message: 'must be an object' }]);
  }
  const tenantProblem = tenantProblemOf(input.tenant);
  if (tenantProblem) fail('/tenant', tenantProblem);
  if (!isRunId(input.runId)) fail('/runId', runIdProblem(input.runId));
  if (typeof input.toolCallId !== 'string' || input.toolCallId.length === 0) {
    fail('/toolCallId', 'toolCallId must be a non-empty string');
  }
  if (input.prompt !== undefined && typeof input.prompt !== 'string') fail('/prompt', 'prompt must be a string');
  const expiresInSeconds = input.expiresInSeconds ?? LIMITS.expiresInSeconds.default;
  const { min, max } = LIMITS.expiresInSeconds;
  if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < min || expiresInSeconds > max) {
    fail(
      '/expiresInSeconds',
      `expiresInSeconds must be an integer from ${min} to ${max}, got ${String(expiresInSeconds)}`,
    );
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
      if (size === undefined)
        fail('/metadata', 'metadata must be JSON (no undefined, functions, cycles or non-finite numbers)');
      else if (size > LIMITS.metadataBytes) {
        fail('/metadata', `metadata is ${size} bytes as JSON, over the limit of ${LIMITS.metadataBytes}`);
      }
    }
  }
  if (input.answerSchema !== undefined) {
    for (const problem of schemaProblems(input.answerSchema, 'answerSchema'))
      fail(`/answerSchema${problem.path}`, problem.message);
  }
  if (!Array.isArray(input.messages) && input.messages !== undefined && input.messages !== null) {
    fail('/messages', 'messages must be an array');
  } else if (Array.isArray(input.messages) && jsonBytes(input.messages) === undefined) {
    // Stored as JSON, so kept "as it was" only if it is JSON: a Date, NaN or undefined would come back changed.
    fail('/messages', 'messages must be JSON (no undefined, functions, dates, cycles or non-finite numbers)');
  }
  if (failures.length > 0) {
    throw new BadRequestError(`The pause is malformed: ${failures.map((f) => f.message).join('; ')}.`, failures);
  }

  // §4 at pause time: the format is known, the round is last, toolCallId is one of its reserved calls.
  const { toolCall } = validatePause({ format: input.format, messages: input.messages, toolCallId: input.toolCallId });

  const checked: CheckedPause = {
    tenant: input.tenant,
    runId: input.runId,
    format: input.format,
    messages: input.messages,
    toolCall,
    expiresInSeconds,
  };
  if (input.prompt !== undefined) checked.prompt = input.prompt;
  if (input.answerSchema !== undefined) checked.answerSchema = input.answerSchema;
  if (input.taskToken !== undefined) checked.taskToken = input.taskToken;
  if (input.metadata !== undefined) checked.metadata = input.metadata;
  return checked;
}

/** Throws `BadRequestError` unless `tenant` and `runId` can name a run. */
export function checkRun(tenant: unknown, runId: unknown): void {
  const failures: AnswerFailure[] = [];
  const tenantProblem = tenantProblemOf(tenant);
  if (tenantProblem) failures.push({ path: '/tenant', message: tenantProblem });
  if (!isRunId(runId)) failures.push({ path: '/runId', message: runIdProblem(runId) });
  if (failures.length > 0) {
    throw new BadRequestError(`${failures.map((f) => f.message).join('; ')}.`, failures);
  }
}

/** The page size of a listing: `limit` checked (1–100), default 20; throws `BadRequestError` otherwise. */
export function checkListQuery(query: ListPausesQuery): { limit: number; status?: PauseStatus } {
  const tenantProblem = tenantProblemOf(query.tenant);
  if (tenantProblem) throw new BadRequestError(`${tenantProblem}.`, [{ path: '/tenant', message: tenantProblem }]);
  const { min, max, default: fallback } = LIMITS.pageSize;
  const limit = query.limit ?? fallback;
  if (!Number.isInteger(limit) || limit < min || limit > max) {
    const message = `limit must be an integer from ${min} to ${max}, got ${String(limit)}`;
    throw new BadRequestError(`${message}.`, [{ path: '/limit', message }]);
  }
  if (query.status !== undefined && !['paused', 'resumed', 'expired'].includes(query.status)) {
    const message = `status must be paused, resumed or expired, got ${JSON.stringify(query.status)}`;
    throw new BadRequestError(`${message}.`, [{ path: '/status', message }]);
  }
  return query.status === undefined ? { limit } : { limit, status: query.status };
}

/**
 * Checks an answer before anything is read: a JSON value (`InvalidAnswerError` otherwise, as `rehydrate` would
 * say) of at most 256 KB as JSON (`BadRequestError`). Returns its JSON text, as stored.
 */
export function checkAnswer(answer: unknown): string {
  answerText(answer);
  const json = JSON.stringify(answer);
  const size = Buffer.byteLength(json, 'utf8');
  if (size > LIMITS.answerBytes) {
    const message = `the answer is ${size} bytes as JSON, over the limit of ${LIMITS.answerBytes}`;
    throw new BadRequestError(`${message[0]?.toUpperCase()}${message.slice(1)}.`, [{ path: '/answer', message }]);
  }
  return json;
}

/** Throws `InvalidAnswerError` listing every failure when `answer` fails `schema`. */
export function checkAnswerAgainstSchema(schema: JsonSchema, answer: unknown): void {
  checkAgainstSchema(schema, answer);
}

function isRunId(runId: unknown): runId is string {
  return typeof runId === 'string' && RUN_ID_PATTERN.test(runId);
}

function runIdProblem(runId: unknown): string {
  return `runId must be 1–128 characters of [A-Za-z0-9._:-], got ${typeof runId === 'string' ? JSON.stringify(runId.slice(0, 140)) : typeof runId}`;
}

function tenantProblemOf(tenant: unknown): string | undefined {
  if (typeof tenant !== 'string' || tenant.length === 0 || tenant.length > LIMITS.tenantChars) {
    return `tenant must be a string of 1–${LIMITS.tenantChars} characters`;
  }
  try {
    encodeTenant(tenant);
  } catch {
    return 'tenant must be well-formed Unicode';
  }
  return undefined;
}
