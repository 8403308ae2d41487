import type { Continuation, PendingDecisions } from '../checkpoints/checkpoint-store.ts';
import { carryMessages, copyInto, jsonByteLength, messageCount } from '../checkpoints/continuation-json.ts';
import { jsonBytes } from './request.ts';

/** The largest HTTP response body that carries `messages` (a Lambda response is at most 6 MB). */
export const HTTP_MESSAGES_LIMIT_BYTES = 5 * 1024 * 1024;
/** The largest HTTP response body that carries a slice of ONE message too big for a 5 MB slice: a Lambda response is at most 6 MB. */
export const HTTP_SINGLE_MESSAGE_LIMIT_BYTES = 6 * 1024 * 1024 - 16 * 1024;
/** The largest Step Functions task output that carries `messages` (a state's output is at most 256 KB). */
export const STEP_FUNCTIONS_MESSAGES_LIMIT_BYTES = 256 * 1024;

/** The resume body (§5, §9, §10): a continuation without the store's bookkeeping (`replayed`, `taskToken`). */
export interface ResumeBody {
  runId: string;
  interruptId: string;
  continuationId: string;
  format: Continuation['format'];
  outcome: Continuation['outcome'];
  dispatch: Continuation['dispatch'];
  messages?: unknown[];
  messagesOmitted?: true;
  resumedAt: string;
}

/** The body of a decision that leaves asks waiting (§9: 202 over HTTP, the trigger's output elsewhere). */
export type PendingBody = Omit<PendingDecisions, 'replayed'>;

/** `PendingBody` of a pending result: its fields as §9 names them, without `kind` or `replayed`. */
export function pendingBody({ runId, interruptId, status, decided, pending, votes }: PendingDecisions): PendingBody {
  // With a quorum (§13), how many votes count of how many each waiting ask needs.
  return votes === undefined
    ? { runId, interruptId, status, decided, pending }
    : { runId, interruptId, status, decided, pending, votes };
}

/**
 * The resume body of a continuation, with `messages` left out (`messagesOmitted: true`) when it would pass
 * `limitBytes`. Messages still held as JSON stay so (sized and written without parsing them).
 */
export function resumeBody(continuation: Continuation, limitBytes: number): ResumeBody {
  const { runId, interruptId, continuationId, format, outcome, dispatch, resumedAt, traceparent } = continuation;
  const body = { runId, interruptId, continuationId, format, outcome, dispatch, messages: [] as unknown[], resumedAt };
  if (traceparent !== undefined) Object.assign(body, { traceparent });
  return fitMessages(carryMessages(body, continuation), limitBytes);
}

/**
 * `body` as is when its JSON is at most `limitBytes`; otherwise without `messages`, with `messagesOmitted: true` and
 * the number of messages (`total`), so the reader knows what to ask for in slices.
 */
export function fitMessages<T extends { messages?: unknown[] }>(
  body: T,
  limitBytes: number,
): Omit<T, 'messages'> & { messages?: unknown[]; messagesOmitted?: true; total?: number } {
  if (!Object.hasOwn(body, 'messages') || body.messages === undefined || jsonByteLength(body) <= limitBytes) {
    return body;
  }
  return {
    ...copyInto({}, body, ['messages']),
    messagesOmitted: true,
    total: messageCount(body as { messages: unknown[] }),
  };
}

/** A slice of messages that fits a response: from `from`, at most `limit`, cut short before it passes `limitBytes`. */
export interface MessageSlice {
  messages: unknown[];
  from: number;
  total: number;
  /** Where the next slice starts, when messages remain. */
  next?: number;
}

/** Messages `from`…`from + limit`, cut at the first message that would take the slice past `limitBytes` (at least one). */
export function sliceMessages(all: readonly unknown[], from: number, limit: number, limitBytes: number): MessageSlice {
  const end = Math.min(all.length, from + limit);
  const messages: unknown[] = [];
  let bytes = 2;
  for (let index = from; index < end; index++) {
    const size = jsonBytes(all[index]) + 1;
    if (messages.length > 0 && bytes + size > limitBytes) break;
    messages.push(all[index]);
    bytes += size;
  }
  const stop = from + messages.length;
  return stop < all.length ? { messages, from, total: all.length, next: stop } : { messages, from, total: all.length };
}
