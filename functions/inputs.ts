import { type AnswerFailure, BadRequestError, InvalidAnswerError, PayloadTooLargeError } from './errors.ts';
import { actor, answer, type InputProblem, linkRecipient, reason, tenant } from './fields.ts';
import { utf8Bytes } from './json.ts';
import { EXECUTION_ENDS, LIMITS, PAUSE_STATUSES, PRINCIPAL_KINDS, RUN_ID_PATTERN } from './vocabulary.ts';
import { decisions } from './wire-decisions.ts';
import { beginsBeforeItEnds, delegationFrom, delegationReason } from './wire-persons.ts';
import * as z from './zod.ts';

/**
 * What callers send, each input once: the store's inputs (what a library user, a trigger and every entry point pass
 * to `CheckpointStore`) and the HTTP bodies, queries and paths, built from the same fields, so a bound is written once
 * and holds at every door. `parseInput` is the one place a failure becomes an error: 400 `bad_request` naming each
 * field, or the 413 or 422 a value's own check says it is. What stays in the service are rules between an input and
 * the records or the deployment (who may decide, four eyes, an ask of this pause, the transcript's checks). A new
 * pause's body and input, built from the ids here, are `inputs-pause.ts`'s.
 */

/** A tenant (`fields.ts`: a directory's person names one too). */
export { tenant };

/** A run id path parameter or field. */
export const runId = z.defer(() =>
  z
    .string()
    .check(
      z.regex(RUN_ID_PATTERN, 'must be 1–128 characters of A–Z, a–z, 0–9, ".", "_", ":" or "-", and not "." or ".."'),
    ),
);

/** A server-made id (interruptId, continuationId): URL-safe, bounded. */
export const opaqueId = z.defer(() =>
  z.string().check(z.minLength(1), z.maxLength(LIMITS.idChars), z.regex(/^[A-Za-z0-9._~:-]+$/, 'must be URL-safe')),
);

/** An `Idempotency-Key` (§5). */
export const idempotencyKey = z.defer(() =>
  z.string().check(z.regex(LIMITS.idempotencyKey, 'must be 1–255 visible ASCII characters')),
);
/** Whether `key` can be an `Idempotency-Key` (the schema's check, for a header read before the body). */
export function isIdempotencyKey(key: unknown): key is string {
  return idempotencyKey.safeParse(key).success;
}

/** A string of at least one character: an id or a cursor a caller names. */
export const nonEmpty = z.defer(() => z.string().check(z.minLength(1)));

const ofPause = { tenant, runId, interruptId: opaqueId };
const by = z.fields(() => ({ by: z.optional(actor) }));

/** Names one pause of one tenant. */
export const pauseKey = z.defer(() => z.object(ofPause));
export type PauseKey = z.output<typeof pauseKey>;
/** Names one continuation of one tenant. */
export const continuationKey = z.defer(() => z.object({ tenant, runId, continuationId: opaqueId }));
export type ContinuationKey = z.output<typeof continuationKey>;
/** Part one's resume: the answer to a pause's one `answer` ask (§5). */
export const resumeInput = z.defer(() => z.object({ ...ofPause, answer, ...by() }));
export type ResumeInput = z.input<typeof resumeInput>;
/** Decisions for some or all of a pause's asks (§9). */
export const decideInput = z.defer(() => z.object({ ...ofPause, decisions, ...by() }));
export type DecideInput = z.input<typeof decideInput>;
/** A cancel (§10): its reason goes into every undecided ask's rejection. */
export const cancelInput = z.defer(() => z.object({ ...ofPause, reason: z.optional(reason), ...by() }));
export type CancelInput = z.input<typeof cancelInput>;

/** A page's size: 1 to `LIMITS.pageSize.max`; the bound, once, for the store's number and the query's string. */
const pageSizeChecks = [z.int(), z.minimum(LIMITS.pageSize.min), z.maximum(LIMITS.pageSize.max)] as const;
/** What lists pauses, whichever door it came through: a status, a cursor. */
const listing = z.fields(() => ({
  status: z.optional(z.enum(PAUSE_STATUSES)),
  cursor: z.optional(nonEmpty),
}));
/** A page query over one tenant's pauses (`CheckpointStore.listPauses`). */
export const listQuery = z.defer(() =>
  z
    .object({
      tenant,
      ...listing(),
      limit: z.optional(z.number().check(...pageSizeChecks)),
      /**
       * Only pauses with an ask this principal may decide and has not decided or voted on (§13, `mine=true`); read
       * from the open pauses, so give `status: 'paused'` or none with it.
       */
      waitingFor: z.optional(actor),
    })
    .check(
      z.refine((query) => query.waitingFor === undefined || (query.status ?? 'paused') === 'paused', {
        message: 'waitingFor (mine=true) lists open pauses only: give status "paused" or no status',
        path: ['status'],
      }),
    ),
);
export type ListPausesQuery = z.input<typeof listQuery>;

/** `GET /pauses`'s query (every parameter a string, as API Gateway sends it). */
export const listPausesQuery = z.defer(() =>
  z.object({
    ...listing(),
    limit: z.optional(z.coerce.number().check(...pageSizeChecks)),
    /** Only the open pauses with an ask the requester may decide and has not (§13). */
    mine: z.optional(z.enum(['true', 'false'])),
  }),
);

/** A message slice's query (§5: large bodies). */
const sliceQuery = z.fields(() => ({
  from: z.optional(z.coerce.number().check(z.int(), z.minimum(0))),
  limit: z.optional(z.coerce.number().check(z.int(), z.minimum(1))),
}));
/** A pause's query: its messages, in slices, when asked for. */
export const pauseQuery = z.defer(() => z.object({ include: z.optional(z.enum(['messages'])), ...sliceQuery() }));
/** A continuation's query: its messages in slices. */
export const continuationQuery = z.defer(() => z.object(sliceQuery()));
/** A run's path. */
export const runParams = z.defer(() => z.object({ runId }));
/** A pause's path. */
export const pauseParams = z.defer(() => z.object({ runId, interruptId: opaqueId }));
/** A continuation's path. */
export const continuationParams = z.defer(() => z.object({ runId, continuationId: opaqueId }));

/** Part one's `answer` or `decisions`, exactly one (§9). */
const answerOrDecisions = z.fields(() => ({
  answer: z.optional(answer.check(z.describe('The answer of a pause with one answer ask (part one).'))),
  decisions: z.optional(decisions.check(z.describe('Decisions for some or all of its asks (§9).'))),
}));
const exactlyOne = (message: string) =>
  z.refine<{ decisions?: unknown }>((body) => 'answer' in body !== (body.decisions !== undefined), message);
/** A resume body: part one's `answer`, or `decisions` (§9) — exactly one. */
export const resumeBody = z.defer(() =>
  z
    .object({ interruptId: opaqueId.check(z.describe('The pause, as its 201 named it.')), ...answerOrDecisions() })
    .check(exactlyOne('give exactly one of answer (a pause with one answer ask) or decisions')),
);
/** An answer link's resume body: the pause is the link's. */
export const linkResumeBody = z.defer(() =>
  z.object(answerOrDecisions()).check(exactlyOne('give exactly one of answer or decisions')),
);
/** A cancel body (§10). */
export const cancelBody = z.defer(() =>
  z.object({
    reason: z.optional(
      reason.check(
        z.describe(`Written into every undecided ask's rejection; at most ${LIMITS.reasonBytes / 1024} KB.`),
      ),
    ),
  }),
);
/** A link for a recipient (§13, §16): answered with its URL (granted), or mailed to them with `deliver: true`. */
export const linkBody = z.defer(() =>
  z.extend(linkRecipient, {
    deliver: z.optional(z.boolean().check(z.describe('Mail the link to the recipient instead of answering with it.'))),
  }),
);
/** A hand-off claim (§18): who claims, the same name on every retry of one claim. */
export const claimBody = z.defer(() =>
  z.object({
    claimant: z
      .string()
      .check(
        z.regex(LIMITS.claimant, 'must be 1–128 visible ASCII characters'),
        z.describe('Who claims: the same name on every retry of one claim.'),
      ),
  }),
);

// §19
/** A dispatched call's id, as an execution names it: the ask's `toolCallId`. */
const executionCallId = z.defer(() =>
  nonEmpty.check(z.maxLength(LIMITS.toolCallIdChars), z.describe("The dispatched call's id: its ask's toolCallId.")),
);
/** Names one dispatched call of one continuation of one tenant (§19). */
const ofExecution = { tenant, runId, continuationId: opaqueId, toolCallId: executionCallId };
/** An execution claim (§19): the call, and who claims it; a retry under one `Idempotency-Key` is the same claim. */
export const claimExecutionInput = z.defer(() =>
  z.object({
    ...ofExecution,
    idempotencyKey: z.optional(idempotencyKey),
    ...by(),
  }),
);
export type ClaimExecutionInput = z.input<typeof claimExecutionInput>;
/** What an execution's end says: a short text for the audit trail, at most `LIMITS.executionDetailBytes`. */
const executionDetail = z.defer(() =>
  z.string().check(
    z.refine((text) => utf8Bytes(text) <= LIMITS.executionDetailBytes, {
      message: `must be at most ${LIMITS.executionDetailBytes} bytes (UTF-8)`,
    }),
    z.describe(`What the claimant says of how it ended; at most ${LIMITS.executionDetailBytes} bytes.`),
  ),
);
/** How a claimed execution ended (§19). */
const executionEnd = z.fields(() => ({
  status: z.enum(EXECUTION_ENDS).check(z.describe('How it ended: succeeded or failed.')),
  detail: z.optional(executionDetail),
}));
/** An execution's end, told by its claimant (§19). */
export const finishExecutionInput = z.defer(() => z.object({ ...ofExecution, ...executionEnd(), ...by() }));
export type FinishExecutionInput = z.input<typeof finishExecutionInput>;
/** `POST …/executions`'s body. */
export const claimExecutionBody = z.defer(() => z.object({ toolCallId: executionCallId }));
/** `PUT …/executions/{toolCallId}`'s body. */
export const finishExecutionBody = z.defer(() => z.object(executionEnd()));
/** One execution's path. */
export const executionParams = z.defer(() =>
  z.object({ runId, continuationId: opaqueId, toolCallId: executionCallId }),
);
/** One call of `handback policies check --calls`: the tool and arguments an agent would ask about, by whom and when. */
export const policyCheckCall = z.defer(() =>
  z.object({
    tool: z.string().check(z.minLength(1)),
    args: z.optional(z.unknown()),
    /** Who pauses: the agent `agent` when not given. */
    principal: z.optional(
      z.object({
        kind: z.enum(PRINCIPAL_KINDS),
        subject: z.string().check(z.minLength(1)),
        groups: z.optional(z.array(z.string())),
      }),
    ),
    /** When it is judged (`context.now`, `context.clock`): an ISO 8601 date-time; now when not given. */
    at: z.optional(z.iso.datetime({ offset: true })),
  }),
);
/** `handback policies check --calls <file>`: a list of calls. */
export const policyCheckCalls = z.defer(() => z.array(policyCheckCall));
/** `GET /policies/shadow`'s query: the pauses created since an instant, a page at a time. */
export const policyShadowQuery = z.defer(() =>
  z.object({
    since: z.iso.datetime({ offset: true }).check(z.describe('Only pauses created at or after it (ISO 8601).')),
    limit: z.optional(z.coerce.number().check(...pageSizeChecks)),
    cursor: z.optional(nonEmpty),
  }),
);

// §21: how decisions are going.

/** An instant: ISO 8601 with its time zone (`2026-05-01T00:00:00Z`, `2026-05-01T02:00:00+02:00`). */
const instant = z.defer(() => z.iso.datetime({ offset: true }));
/** The window of `GET /stats`: the asks of the pauses made from `since` (included) until `until` (not). */
const statsWindow = z.fields(() => ({
  since: instant.check(z.describe('Count the asks of pauses made at or after this instant (ISO 8601).')),
  until: instant.check(
    z.describe(`…and before this one: at most ${LIMITS.statsWindowDays} days after since (ISO 8601).`),
  ),
}));
const DAY_MS = 86_400_000;
/** `since` before `until`, at most `LIMITS.statsWindowDays` apart; each named where it is wrong. */
const windowChecks = z.superRefine<{ since: string; until: string }>((window, ctx) => {
  const since = Date.parse(window.since);
  const until = Date.parse(window.until);
  const wrong = (field: 'since' | 'until', message: string) =>
    ctx.addIssue({ code: 'custom', message, path: [field], input: window });
  if (!(since < until)) wrong('since', 'must be before until');
  else if (until - since > LIMITS.statsWindowDays * DAY_MS) {
    wrong('until', `must be at most ${LIMITS.statsWindowDays} days after since`);
  }
});
/** How decisions went for one tenant's asks in a window (`CheckpointStore.stats`). */
export const statsInput = z.defer(() => z.object({ tenant, ...statsWindow() }).check(windowChecks));
export type StatsInput = z.input<typeof statsInput>;
/** `GET /stats`'s query. */
export const statsQuery = z.defer(() => z.object(statsWindow()).check(windowChecks));

// §20 delegation

/**
 * A person's own delegation as they set it (§20: `PUT /people/me/delegation`): `to` a person of their tenant by id or
 * by an email of theirs, from `from` (absent: at once) until `until`, which must be later than `from` and than now.
 */
export const delegationBody = z.defer(() =>
  z
    .strictObject({
      to: z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(LIMITS.emailChars),
          z.describe("The delegate: a person's id, or an email of theirs."),
        ),
      from: delegationFrom,
      until: instant.check(z.describe('When it ends: later than from, and than now.')),
      reason: delegationReason,
    })
    .check(
      z.refine(beginsBeforeItEnds, {
        error: 'must begin (from) before it ends (until)',
        path: ['until'],
      }),
    ),
);
export type DelegationBody = z.output<typeof delegationBody>;

/**
 * Parses `input` with `schema` (`at`, a JSON pointer, prefixes every failure's path), or throws what its failures
 * are: a `BadRequestError` naming each bad field; where every failure is a value its own check calls too large or
 * not what its ask can take (`InputProblem`), a `PayloadTooLargeError` or an `InvalidAnswerError` naming those.
 */
export function parseInput<S extends z.ZodMiniType>(schema: S, input: unknown, what: string, at = ''): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const failures = parsed.error.issues.map((issue) => ({
    path: `${at}${pointer(issue.path)}`,
    message: /received undefined$/.test(issue.message) ? 'is required' : issue.message,
    problem: (issue as { params?: { problem?: InputProblem } }).params?.problem,
  }));
  const plain = failures.filter((failure) => failure.problem === undefined);
  if (plain.length > 0) {
    const named = plain.map((failure) => `${failure.path === '' ? what : failure.path.slice(1)} ${failure.message}`);
    throw new BadRequestError(`Invalid ${what}: ${named.join('; ')}.`, plain.map(answerFailure));
  }
  const problem = failures[0]?.problem;
  const same = failures.filter((failure) => failure.problem === problem).map(answerFailure);
  const text = `${same.map((failure) => failure.message).join('; ')}.`;
  const message = `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
  throw problem === 'payload_too_large'
    ? new PayloadTooLargeError(message, same)
    : new InvalidAnswerError(message, same);
}

function answerFailure({ path, message }: AnswerFailure): AnswerFailure {
  return { path, message };
}

/** A zod issue's path as a JSON pointer (RFC 6901): the root is the empty string. */
function pointer(path: readonly PropertyKey[]): string {
  return path.map((key) => `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
