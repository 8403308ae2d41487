import { BadRequestError } from '../errors.ts';
import { LIMITS, RUN_ID_PATTERN, type TriggerVia } from '../vocabulary.ts';
import type { Actor } from '../wire.ts';
import * as z from '../zod.ts';

/**
 * The shapes of what callers send, checked once at the edge with zod; a mismatch is a `BadRequestError` naming the
 * field (400 `bad_request` over HTTP, a rejected request on the queues).
 */

/** A run id path parameter or field. */
export const runId = z
  .string()
  .check(
    z.regex(RUN_ID_PATTERN, 'must be 1–128 characters of A–Z, a–z, 0–9, ".", "_", ":" or "-", and not "." or ".."'),
  );

/** A server-made id (interruptId, continuationId): URL-safe, bounded. */
export const opaqueId = z
  .string()
  .check(z.minLength(1), z.maxLength(LIMITS.idChars), z.regex(/^[A-Za-z0-9._~:-]+$/, 'must be URL-safe'));

/**
 * The input of the Step Functions task, the SQS message body and the EventBridge detail (§6, §9, §10): a resume
 * (`answer`, or `decisions`) or, with `action: "cancel"`, a cancel (with an optional `reason`).
 */
export const triggerRequest = z
  .object({
    action: z.optional(z.enum(['resume', 'cancel'])),
    runId,
    interruptId: opaqueId,
    answer: z.optional(z.unknown()),
    decisions: z.optional(z.array(z.unknown())),
    reason: z.optional(z.string()),
    tenant: z.optional(z.string().check(z.minLength(1), z.maxLength(LIMITS.tenantChars))),
    by: z.optional(
      z.strictObject({
        subject: z.string().check(z.minLength(1), z.maxLength(LIMITS.approvers.chars)),
        email: z.optional(z.string().check(z.minLength(1), z.maxLength(LIMITS.approvers.chars))),
        // The deployment says it verified the email (§16); without it the email is a label, matching no approver.
        emailVerified: z.optional(z.literal(true)),
        name: z.optional(z.string().check(z.minLength(1), z.maxLength(LIMITS.approvers.chars))),
        groups: z.optional(
          z.array(z.string().check(z.maxLength(LIMITS.approvers.chars))).check(z.maxLength(LIMITS.approvers.entries)),
        ),
      }),
    ),
  })
  .check(
    z.refine(
      (request) =>
        request.action === 'cancel'
          ? !('answer' in request) && request.decisions === undefined
          : 'answer' in request !== (request.decisions !== undefined) && request.reason === undefined,
      'give exactly one of answer or decisions to resume, or action "cancel" with an optional reason',
    ),
  );

/** A trigger's request, checked: what to do, to which pause of which tenant, by whom (§13). */
export type TriggerRequest = { tenant: string; runId: string; interruptId: string; by: Actor } & (
  | { action: 'resume'; answer: unknown }
  | { action: 'decide'; decisions: unknown[] }
  | { action: 'cancel'; reason?: string }
);

/** Parses `input` with `schema`, or throws a `BadRequestError` whose message and failures name each bad field. */
export function parseOrThrow<S extends z.ZodMiniType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const failures = parsed.error.issues.map((issue) => ({
    path: `/${issue.path.map(String).join('/')}`,
    message: /received undefined$/.test(issue.message) ? 'is required' : issue.message,
  }));
  const named = failures.map((failure) => `${failure.path === '/' ? what : failure.path.slice(1)} ${failure.message}`);
  throw new BadRequestError(`Invalid ${what}: ${named.join('; ')}.`, failures);
}

/**
 * Throws a `BadRequestError` when `value` nests deeper than `LIMITS.bodyDepth` (far beyond any transcript, far below
 * what recursion anywhere can bear), checked without recursion.
 */
export function checkJsonDepth(value: unknown, what: string): void {
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > LIMITS.bodyDepth) {
      throw new BadRequestError(`Invalid ${what}: JSON nested more than ${LIMITS.bodyDepth} levels deep.`, [
        { path: '', message: `nests more than ${LIMITS.bodyDepth} levels deep` },
      ]);
    }
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
}

/** Bytes of `value` as JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/**
 * A trigger's request, checked as data; the answer and decisions are checked by the store's own rules. Its principal
 * (§13): the `by` the deployment vouches for (IAM decides who may send), as a person reaching Handback through
 * `via`; without `by`, the trigger itself, a service, which may decide only asks without approvers.
 */
export function parseTriggerRequest(input: unknown, via: TriggerVia): TriggerRequest {
  checkJsonDepth(input, 'request');
  const request = parseOrThrow(triggerRequest, input, 'request');
  const by: Actor =
    request.by === undefined
      ? { kind: 'service', subject: `service:${via}`, via }
      : { kind: 'person', ...request.by, via };
  const base = {
    tenant: request.tenant ?? LIMITS.defaultTenant,
    runId: request.runId,
    interruptId: request.interruptId,
    by,
  };
  if (request.action === 'cancel') {
    return request.reason === undefined
      ? { action: 'cancel', ...base }
      : { action: 'cancel', ...base, reason: request.reason };
  }
  if (request.decisions !== undefined) return { action: 'decide', ...base, decisions: request.decisions };
  // The answer's own rules (JSON, at most 256 KB) are the store's, checked there for every entry point.
  return { action: 'resume', ...base, answer: request.answer };
}
