import { BadRequestError } from '../errors.ts';
import { principal, principalGroups, reason } from '../fields.ts';
import { opaqueId, parseInput, runId, tenant } from '../inputs.ts';
import { LIMITS, type TriggerVia } from '../vocabulary.ts';
import type { Actor, Decision } from '../wire.ts';
import { decisions } from '../wire-decisions.ts';
import * as z from '../zod.ts';

/**
 * What the triggers send (§6), checked with the same fields as every other door (`functions/inputs.ts`); a mismatch
 * is the error `parseInput` makes of it (400 `bad_request` naming the field, a rejected request on the queues).
 */

/**
 * The input of the Step Functions task, the SQS message body and the EventBridge detail (§6, §9, §10): a resume
 * (`answer`, or `decisions`) or, with `action: "cancel"`, a cancel (with an optional `reason`).
 */
export const triggerRequest = z.defer(() =>
  z
    .object({
      action: z.optional(z.enum(['resume', 'cancel'])),
      runId,
      interruptId: opaqueId,
      answer: z.optional(z.unknown()),
      decisions: z.optional(decisions),
      reason: z.optional(reason),
      tenant: z.optional(tenant),
      // The deployment vouches for `by` (§13); `emailVerified` says it verified the email (§16): without it the email
      // is a label, matching no approver.
      by: z.optional(
        z.strictObject({
          subject: principal.shape.subject,
          email: principal.shape.email,
          emailVerified: principal.shape.emailVerified,
          name: principal.shape.name,
          groups: z.optional(principalGroups),
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
    ),
);

/** A trigger's request, checked: what to do, to which pause of which tenant, by whom (§13). */
export type TriggerRequest = { tenant: string; runId: string; interruptId: string; by: Actor } & (
  | { action: 'resume'; answer: unknown }
  | { action: 'decide'; decisions: Decision[] }
  | { action: 'cancel'; reason?: string }
);

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
  const request = parseInput(triggerRequest, input, 'request');
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
