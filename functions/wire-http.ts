import { principal } from './fields.ts';
import { continuation, pauseView } from './wire.ts';
import * as z from './zod.ts';

/**
 * What only the HTTP edge answers with (§5, §18): a pause and a continuation with their messages whole or in slices,
 * a pause closed at once, `/health`, an RFC 9457 problem, and the `/mcp` route's JSON-RPC. `scripts/openapi.ts`
 * describes them; the store's answers are `wire.ts`'s.
 */

/** How an HTTP body carries a transcript's messages (§5): whole, left out past 5 MB, or a slice of them. */
const messagesOverHttp = z.fields(() => ({
  messages: z.optional(z.array(z.unknown())),
  /** The messages would take the body past 5 MB: read them in slices (`?from=&limit=`). */
  messagesOmitted: z.optional(z.literal(true)),
  /** A slice's first message (0-based). */
  from: z.optional(z.number()),
  /** How many messages there are in all. */
  total: z.optional(z.number()),
  /** Where the next slice starts, when messages remain. */
  next: z.optional(z.number()),
}));

/** `GET /runs/{runId}/pauses/{interruptId}` and `GET /links/pause`: the pause, its messages when asked for. */
export const pauseBody = z.defer(() => z.extend(pauseView, messagesOverHttp()));

/** A continuation over HTTP: the resume, cancel and continuation bodies (without the store's bookkeeping). */
export const continuationBody = z.defer(() => z.extend(continuation, messagesOverHttp()));

/**
 * The 200 of a pause whose every ask the deployment's policies decided (§17): closed at once, its continuation (as
 * the last decision would answer) with the 201's own fields.
 */
export const pauseClosedBody = z.defer(() =>
  z.extend(continuationBody, {
    status: z.literal('resumed'),
    /** The first ask's call. */
    toolCallId: z.string(),
    /** Every ask's call, in the order given. */
    asks: z.array(z.string()),
    createdAt: z.string(),
    expiresAt: z.string(),
  }),
);

/** `GET /health`. */
export const health = z.defer(() => z.object({ status: z.literal('ok') }));

/** An RFC 9457 problem (`application/problem+json`), with the extensions Handback's errors add. */
export const problem = z.defer(() =>
  z.object({
    type: z.string(),
    title: z.string(),
    status: z.number(),
    detail: z.string(),
    /** The stable machine word (`ERROR_FATES` and the edge's codes). */
    code: z.string(),
    /** already_resumed, handoff_failed, pause_cancelled: the continuation. */
    continuationId: z.optional(z.string()),
    /**
     * The ask a refusal is about (already_decided, not_an_approver, self_decision, already_voted, args_changed,
     * unknown_person).
     */
    toolCallId: z.optional(z.string()),
    /** args_changed: the ask's current arguments' hash. */
    argsHash: z.optional(z.string()),
    /** policy_forbids, policy_error (§19): the policies that refused, or could not judge, an edit or a claim. */
    policyIds: z.optional(z.array(z.string())),
    /** forbidden: the scopes that would open the operation (any one). */
    scope: z.optional(z.string()),
    /** pause_expired: when it expired. */
    expiresAt: z.optional(z.string()),
    /** invalid_transcript: each rule the transcript breaks. */
    violations: z.optional(z.array(z.object({ rule: z.string(), index: z.number(), message: z.string() }))),
    /** bad_request, invalid_answer, payload_too_large, recipient_not_allowed: each bad field, by JSON pointer. */
    failures: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
    /** internal_error: the id to quote. */
    requestId: z.optional(z.string()),
    /** already_claimed: when the call was claimed, and by whom (§19). */
    claimedAt: z.optional(z.string()),
    claimedBy: z.optional(principal),
    /** approval_expired: until when the approval let the call run (§19). */
    approvedUntil: z.optional(z.string()),
    /** policy_forbids, policy_error: the forbid's `@reason`, or what failed (§19). */
    reason: z.optional(z.string()),
  }),
);

/** A JSON-RPC 2.0 message or batch, as the Model Context Protocol defines them (the `/mcp` route, §18). */
export const jsonRpcMessage = z.defer(() =>
  z
    .union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))])
    .check(z.describe('A JSON-RPC 2.0 message or batch, as the Model Context Protocol defines them.')),
);
