import { type AnswerFailure, BadRequestError } from '../errors.ts';
import { parseInput } from '../inputs.ts';
import { type ParsedPause, pauseInput } from '../inputs-pause.ts';
import { readPauseAsksWith, roundContext } from '../rehydrate/core.ts';
import type { MessageFormat } from '../rehydrate/formats/format.ts';
import { LIMITS, type OnExpiry } from '../vocabulary.ts';
import type { Actor, Principal } from '../wire.ts';
import { isAnonymous, LIBRARY_PRINCIPAL, recorded } from './identity.ts';
import { schemaProblems } from './json-schema/index.ts';
import { checkRecipients } from './recipients.ts';
import type { Ask } from './record.ts';
import { argsHashOf } from './tally.ts';

/**
 * A pause's checks beyond its schema, pure: who paused it against what it asks for, the asks' JSON Schemas, and its
 * transcript at pause time. Only the entry points that record pauses load this module (and with it the pause's
 * schema, the transcript check and the JSON Schema analysis), so the resume-only functions leave it out of their
 * bundles. Each check names every bad field.
 */

/** A pause input that passed every check, with what the checks learned. */
export interface CheckedPause {
  tenant: string;
  runId: string;
  format: ParsedPause['format'];
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
  /** Who paused it (§13), as recorded. */
  pausedBy: Principal;
  /** Who paused it, as the request brought it (with the groups policies match, §17). */
  by?: Actor;
  fourEyes?: true;
  notify?: ParsedPause['notify'];
  /** The W3C `traceparent` the pause joins (§21). */
  traceparent?: string;
  /** The request's fields its `Idempotency-Key` covers besides the transcript (hashed on its own). */
  requestFields: Record<string, unknown>;
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
 * Checks a pause input: its schema (`pauseInput`: a `BadRequestError` naming each bad field), who paused it against
 * what it asks for (§16: with auth off no four eyes, quorum or approvers; an agent's email recipients inside
 * `rules.recipientDomains`, else `RecipientNotAllowedError`), its asks' JSON Schemas, and its transcript at pause time
 * (§4: `InvalidTranscriptError`) with `format`, the module of `input.format` (`formats/load.ts`; undefined only when
 * the name is not a format, which the schema refuses). The transcript's size is checked by the service, which
 * serializes it once.
 */
export function checkPauseInput(
  input: unknown,
  format: MessageFormat | undefined,
  rules: PauseRules = {},
): CheckedPause {
  const pause = parseInput(pauseInput, input, 'pause');
  const failures: AnswerFailure[] = [];
  const fail = (path: string, message: string) => failures.push({ path, message });
  const asks = asksOf(pause);
  const at = (index: number) => (pause.asks === undefined ? '' : `/asks/${index}`);
  asks.forEach((ask, index) => {
    for (const role of ['answerSchema', 'argsSchema'] as const) {
      if (ask[role] === undefined) continue;
      for (const problem of schemaProblems(ask[role], role))
        fail(`${at(index)}/${role}${problem.path}`, problem.message);
    }
  });
  const pausedBy = pause.by === undefined ? LIBRARY_PRINCIPAL : recorded(pause.by);
  // Without auth there is one anonymous principal and no identity to match: approvers would lock every ask, four eyes
  // keep the only principal away, and a quorum could never be met (§16). No pause is taken that no one could decide.
  if (isAnonymous(pausedBy)) {
    const authOff = 'and auth is off (one anonymous principal): sign requests with a token (see docs/local.md)';
    asks.forEach((ask, index) => {
      if (ask.approvers !== undefined) fail(`${at(index)}/approvers`, `approvers need identities, ${authOff}`);
      if ((ask.approvals ?? 1) > 1)
        fail(`${at(index)}/approvals`, `approvals above 1 need distinct people, ${authOff}`);
    });
    if (pause.fourEyes === true) fail('/fourEyes', `fourEyes needs someone other than the pauser, ${authOff}`);
  }
  if (failures.length > 0) {
    throw new BadRequestError(`The pause is malformed: ${failures.map((f) => f.message).join('; ')}.`, failures);
  }
  // An agent never chooses who approves it (§16): its email addresses only inside the recipient domains.
  checkRecipients({ pausedBy, asks, notify: pause.notify }, rules.recipientDomains ?? [], at);

  // §4 at pause time: the round is last, and every ask names a distinct reserved call of it.
  if (format === undefined) throw new Error(`The pause checks were given no module for the format ${pause.format}.`);
  const { round, calls, messages } = readPauseAsksWith(
    format,
    { messages: pause.messages },
    asks.map((ask) => ask.toolCallId),
  );
  // The trace is not the request: a retry under the same key from another span is the same pause (§5, §21).
  const { tenant: _, runId: __, messages: ___, idempotencyKey: ____, traceparent: _____, ...requestFields } = pause;
  const checked: CheckedPause = {
    tenant: pause.tenant,
    runId: pause.runId,
    format: pause.format,
    messages: pause.messages,
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
    expiresInSeconds: pause.expiresInSeconds ?? LIMITS.expiresInSeconds.default,
    onExpiry: pause.onExpiry ?? 'fail',
    pausedBy,
    requestFields,
  };
  if (pause.by !== undefined) checked.by = pause.by;
  if (pause.fourEyes === true) checked.fourEyes = true;
  if (pause.remindBeforeSeconds !== undefined) checked.remindBeforeSeconds = pause.remindBeforeSeconds;
  if (pause.taskToken !== undefined) checked.taskToken = pause.taskToken;
  if (pause.callbackId !== undefined) checked.callbackId = pause.callbackId;
  if (pause.metadata !== undefined) checked.metadata = pause.metadata;
  if (pause.idempotencyKey !== undefined) checked.idempotencyKey = pause.idempotencyKey;
  if (pause.notify !== undefined) checked.notify = pause.notify;
  if (pause.traceparent !== undefined) checked.traceparent = pause.traceparent;
  return checked;
}

/** The asks of a parsed pause, in either form (§9): part one's `toolCallId` (one `answer` ask), or `asks`. */
function asksOf(pause: ParsedPause): NonNullable<ParsedPause['asks']> {
  if (pause.asks !== undefined) return pause.asks;
  const ask: NonNullable<ParsedPause['asks']>[number] = { toolCallId: pause.toolCallId as string, kind: 'answer' };
  if (pause.prompt !== undefined) ask.prompt = pause.prompt;
  if (pause.answerSchema !== undefined) ask.answerSchema = pause.answerSchema;
  return [ask];
}
