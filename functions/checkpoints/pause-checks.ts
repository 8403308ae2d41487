import { type AnswerFailure, BadRequestError } from '../errors.ts';
import { readPauseAsksWith, roundContext } from '../rehydrate/core.ts';
import type { MessageFormat } from '../rehydrate/formats/format.ts';
import {
  ASK_KINDS,
  CLAUDE_RUN_PATTERN,
  FORMAT_NAMES,
  isOneOf,
  LIMITS,
  ON_EXPIRY,
  type OnExpiry,
} from '../vocabulary.ts';
import type { Principal } from '../wire.ts';
import type { AskInput, PauseInput } from './checkpoint-store.ts';
import { isPlainObject, jsonBytes, shown } from './json.ts';
import { schemaProblems } from './json-schema/index.ts';
import { notifyFailures } from './notify.ts';
import type { Ask } from './record.ts';
import { describe, isIdempotencyKey, isRunId, jsonFailure, runIdProblem, tenantProblemOf } from './validation.ts';
import {
  argsHashOf,
  checkActor,
  checkApprovers,
  checkRecipients,
  isAnonymous,
  LIBRARY_PRINCIPAL,
  recorded,
} from './who-decides.ts';

/**
 * The checks of a pause input, pure, apart from the checks every request shares (`validation.ts`): only the entry
 * points that record pauses load this module (and with it the JSON Schema analysis), so the resume-only functions
 * leave it out of their bundles. Each check names every bad field.
 */

/** A pause input that passed every check, with what the checks learned. */
export interface CheckedPause {
  tenant: string;
  runId: string;
  format: PauseInput['format'];
  messages: unknown[];
  /** The index of the paused round's first message. */
  roundStart: number;
  asks: Ask[];
  context: { user?: string; assistant?: string };
  expiresInSeconds: number;
  onExpiry: OnExpiry;
  remindBeforeSeconds?: number;
  taskToken?: string;
  callbackId?: string;
  metadata?: Record<string, unknown>;
  idempotencyKey?: string;
  /** Who paused it (§13). */
  pausedBy: Principal;
  fourEyes?: true;
  notify?: PauseInput['notify'];
}

/** What a deployment holds every pause to, beside the pause's own fields. */
export interface PauseRules {
  /**
   * The recipient domains (§16): an `agent` names approvers by email, and email `notify` recipients, only inside
   * them; none (the default): only by subject and group, and email goes to the deployment's default recipients.
   */
  recipientDomains?: readonly string[];
}

/**
 * Checks a pause input: its fields (`BadRequestError` naming each bad one), who paused it against what it asks for
 * (§16: with auth off no four eyes, quorum or approvers; an agent's email recipients inside `rules.recipientDomains`,
 * else `RecipientNotAllowedError`), and its transcript at pause time (§4: `InvalidTranscriptError`, or
 * `MissingTurnStateError` for no messages) with `format`, the module of `input.format` (`formats/load.ts`; undefined
 * only when the name is not a format, which is a `BadRequestError` here). The transcript's size is checked by the
 * service, which serializes it once.
 */
export function checkPauseInput(
  input: PauseInput,
  format: MessageFormat | undefined,
  rules: PauseRules = {},
): CheckedPause {
  const failures: AnswerFailure[] = [];
  const fail = (path: string, message: string) => failures.push({ path, message });
  if (!isPlainObject(input)) {
    throw new BadRequestError('The pause input must be an object.', [{ path: '', message: 'must be an object' }]);
  }
  const tenantProblem = tenantProblemOf(input.tenant);
  if (tenantProblem) fail('/tenant', tenantProblem);
  if (!isRunId(input.runId)) fail('/runId', runIdProblem(input.runId));
  // §22: a Claude Code run's id reaches a `claude --resume` command line; only a session id (a UUID) may.
  else if (input.runId.startsWith('claude-') && !CLAUDE_RUN_PATTERN.test(input.runId))
    fail(
      '/runId',
      `a run id beginning with claude- must be claude-<session id, a UUID>, got ${JSON.stringify(input.runId)}`,
    );
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
  if (input.callbackId !== undefined) {
    if (typeof input.callbackId !== 'string' || input.callbackId.length === 0) {
      fail('/callbackId', 'callbackId must be a non-empty string');
    } else if (input.callbackId.length > LIMITS.callbackIdChars) {
      fail('/callbackId', `callbackId must be at most ${LIMITS.callbackIdChars} characters`);
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
  failures.push(...notifyFailures(input.notify));
  if (input.idempotencyKey !== undefined && !isIdempotencyKey(input.idempotencyKey)) {
    fail('/idempotencyKey', 'idempotencyKey must be 1–255 visible ASCII characters');
  }
  if (!Array.isArray(input.messages) && input.messages !== undefined && input.messages !== null) {
    fail('/messages', 'messages must be an array');
  } else if (Array.isArray(input.messages) && jsonBytes(input.messages) === undefined) {
    // Stored as JSON, so kept "as it was" only if it is JSON: a Date, NaN or an array hole would come back changed.
    fail('/messages', `messages must be JSON: ${jsonFailure(input.messages)}`);
  }
  if (!isOneOf(FORMAT_NAMES, input.format)) {
    fail('/format', `format must be one of ${FORMAT_NAMES.join(', ')}, got ${describe(input.format)}`);
  }
  if (input.fourEyes !== undefined && typeof input.fourEyes !== 'boolean') {
    fail('/fourEyes', 'fourEyes must be a boolean');
  }
  let pausedBy = LIBRARY_PRINCIPAL;
  if (input.by !== undefined) {
    try {
      pausedBy = recorded(checkActor(input.by));
    } catch (error) {
      for (const failure of (error as { failures?: Array<{ path: string; message: string }> }).failures ?? []) {
        fail(failure.path, failure.message);
      }
    }
  }
  // Without auth there is one anonymous principal and no identity to match: approvers would lock every ask, four eyes
  // keep the only principal away, and a quorum could never be met (§16). No pause is taken that no one could decide.
  if (isAnonymous(pausedBy)) {
    const authOff = 'and auth is off (one anonymous principal): sign requests with a token (see docs/local.md)';
    asks.forEach((ask, index) => {
      if (!isPlainObject(ask)) return;
      if (ask.approvers !== undefined) fail(`/asks/${index}/approvers`, `approvers need identities, ${authOff}`);
      if (typeof ask.approvals === 'number' && ask.approvals > 1) {
        fail(`/asks/${index}/approvals`, `approvals above 1 need distinct people, ${authOff}`);
      }
    });
    if (input.fourEyes === true) fail('/fourEyes', `fourEyes needs someone other than the pauser, ${authOff}`);
  }
  if (failures.length > 0) {
    throw new BadRequestError(`The pause is malformed: ${failures.map((f) => f.message).join('; ')}.`, failures);
  }
  // An agent never chooses who approves it (§16): its email addresses only inside the recipient domains.
  checkRecipients(
    { pausedBy, asks: asks.map((ask) => (isPlainObject(ask) ? ask : {})), notify: input.notify },
    rules.recipientDomains ?? [],
    (index) => (input.asks === undefined ? '' : `/asks/${index}`),
  );

  // §4 at pause time: the round is last, and every ask names a distinct reserved call of it.
  if (format === undefined) throw new Error(`The pause checks were given no module for the format ${input.format}.`);
  const { round, calls, messages } = readPauseAsksWith(
    format,
    { messages: input.messages },
    asks.map((ask) => ask.toolCallId),
  );
  const checked: CheckedPause = {
    tenant: input.tenant,
    runId: input.runId,
    format: input.format,
    messages: input.messages,
    roundStart: round.start,
    asks: asks.map((ask, index) => {
      const call = calls[index] as { name: string; args: unknown };
      const kind = ask.kind ?? 'answer';
      return {
        toolCallId: ask.toolCallId,
        name: call.name,
        args: call.args,
        argsHash: argsHashOf(call.args),
        kind,
        ...(ask.prompt === undefined ? {} : { prompt: ask.prompt }),
        ...(ask.answerSchema === undefined ? {} : { answerSchema: ask.answerSchema }),
        ...(ask.argsSchema === undefined ? {} : { argsSchema: ask.argsSchema }),
        ...(kind === 'approval' ? { editable: ask.editable ?? true } : {}),
        ...(ask.approvers === undefined ? {} : { approvers: ask.approvers }),
        ...(ask.approvals === undefined || ask.approvals === 1 ? {} : { approvals: ask.approvals }),
      };
    }),
    context: roundContext(format, messages, round, LIMITS.contextChars),
    expiresInSeconds,
    onExpiry,
    pausedBy,
  };
  if (input.fourEyes === true) checked.fourEyes = true;
  if (input.remindBeforeSeconds !== undefined) checked.remindBeforeSeconds = input.remindBeforeSeconds;
  if (input.taskToken !== undefined) checked.taskToken = input.taskToken;
  if (input.callbackId !== undefined) checked.callbackId = input.callbackId;
  if (input.metadata !== undefined) checked.metadata = input.metadata;
  if (input.idempotencyKey !== undefined) checked.idempotencyKey = input.idempotencyKey;
  if (input.notify !== undefined) checked.notify = input.notify;
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
  if (ask.approvers !== undefined) checkApprovers(ask.approvers, `${at}/approvers`, fail);
  if (ask.approvals !== undefined) {
    const { min, max } = LIMITS.approvals;
    if (kind !== 'approval') fail(`${at}/approvals`, 'approvals belongs to approval asks');
    else if (!Number.isInteger(ask.approvals) || ask.approvals < min || ask.approvals > max) {
      fail(`${at}/approvals`, `approvals must be an integer from ${min} to ${max}, got ${shown(ask.approvals)}`);
    }
  }
  if (ask.editable !== undefined && typeof ask.editable !== 'boolean')
    fail(`${at}/editable`, 'editable must be a boolean');
  for (const role of ['answerSchema', 'argsSchema'] as const) {
    if (ask[role] === undefined) continue;
    for (const problem of schemaProblems(ask[role], role)) fail(`${at}/${role}${problem.path}`, problem.message);
  }
}
