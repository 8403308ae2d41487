import { createHash } from 'node:crypto';
import type { DurableContext } from '@aws/durable-execution-sdk-js';
import type {
  Continuation,
  ContinuationKey,
  PauseClosed,
  PauseCreated,
  PauseInput,
} from '../checkpoints/checkpoint-store.ts';
import { isIdempotencyKey } from '../checkpoints/validation.ts';
import { PauseCancelledError, PauseExpiredError } from '../errors.ts';
import type { HandoffPointer } from '../handoff/handoff.ts';

/**
 * `handback/durable` (§15): a Lambda durable function waits for people with `waitForDecision`. It is one
 * `context.waitForCallback`: its submitter records the pause with the callback's id (`callbackId`), and Handback's
 * hand-off completes the callback when the pause closes — `SendDurableExecutionCallbackSuccess` with the hand-off
 * pointer, or `SendDurableExecutionCallbackFailure` with `PauseCancelledError` for a cancel. While it waits the
 * function is not running (no compute is billed). The framework is an optional peer: this module imports only its
 * types.
 */

/** What records pauses and reads continuations: the library's store, or `handback/client` over the HTTP API. */
export interface DecisionBackend {
  pause(input: PauseInput): Promise<PauseCreated | PauseClosed>;
  getContinuation(key: ContinuationKey): Promise<Continuation>;
}

/** The pause to record: a pause input without what `waitForDecision` sets itself. */
export type DurablePauseInput = Omit<PauseInput, 'callbackId' | 'taskToken' | 'idempotencyKey'>;

/** Options of {@link waitForDecision}: the store or the client (one of them), and the operation's name. */
export type WaitForDecisionOptions = ({ store: DecisionBackend } | { client: DecisionBackend }) & {
  /** The name of the durable operation (it must be unique in the function, as every operation name). @default 'handback-decision' */
  name?: string;
  /**
   * How long the callback waits beyond the pause's expiry, so that Handback's sweep (which closes an expired pause
   * within two minutes, §10) completes it first with the expired continuation.
   * @default 300
   */
  graceSeconds?: number;
};

/** What the durable function goes on with: the hand-off pointer, its messages always present. */
export interface DurableDecision extends HandoffPointer {
  messages: unknown[];
}

/** The pause expiry the store applies when the pause names none (§5). */
const DEFAULT_EXPIRES_IN_SECONDS = 604_800;
/** The callback's own timeout beyond the pause's expiry. */
const DEFAULT_GRACE_SECONDS = 300;

/**
 * Pauses the durable function's turn until people decide, and returns the continuation pointer with its messages.
 * A retried submitter or a replay makes no second pause: the `Idempotency-Key` is the callback's id (hashed when it
 * is longer than a key may be), and a replay reads the callback's stored result without running the submitter.
 * Throws `PauseCancelledError` when the pause is cancelled, and `PauseExpiredError` when an `onExpiry: "fail"` pause
 * expires (the callback times out).
 */
export async function waitForDecision(
  context: Pick<DurableContext, 'waitForCallback'>,
  pause: DurablePauseInput,
  options: WaitForDecisionOptions,
): Promise<DurableDecision> {
  const backend = 'store' in options ? options.store : options.client;
  const name = options.name ?? 'handback-decision';
  const expiresInSeconds = pause.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS;
  let created: PauseCreated | PauseClosed | undefined;
  let result: string;
  try {
    result = await context.waitForCallback<string>(
      name,
      async (callbackId) => {
        created = await backend.pause({ ...pause, callbackId, idempotencyKey: idempotencyKeyOf(callbackId) });
      },
      { timeout: { seconds: expiresInSeconds + (options.graceSeconds ?? DEFAULT_GRACE_SECONDS) } },
    );
  } catch (error) {
    throw closedError(error, pause, created);
  }
  const pointer = JSON.parse(result) as HandoffPointer;
  if (pointer.messages !== undefined) return pointer as DurableDecision;
  // A pointer over 256 KB leaves its messages out: they are read from the continuation.
  const continuation = await backend.getContinuation({
    tenant: pause.tenant,
    runId: pointer.runId,
    continuationId: pointer.continuationId,
  });
  return { ...pointer, messages: continuation.messages };
}

/** The `Idempotency-Key` of a callback's pause: its id, or a hash of it where the id is longer than a key may be. */
export function idempotencyKeyOf(callbackId: string): string {
  if (isIdempotencyKey(callbackId)) return callbackId;
  return `durable:${createHash('sha256').update(callbackId).digest('base64url')}`;
}

/** The SDK's callback error as Handback's: a cancel's failure, or the callback's timeout past the pause's expiry. */
function closedError(
  error: unknown,
  pause: DurablePauseInput,
  created: PauseCreated | PauseClosed | undefined,
): unknown {
  const failure = error as { errorType?: string; errorData?: string; cause?: { errorType?: string; name?: string } };
  const data = parsePointer(failure.errorData);
  if (data?.outcome === 'cancelled') {
    return new PauseCancelledError(data.runId, data.interruptId, data.continuationId, { cause: error });
  }
  const timedOut = failure.errorType === 'CallbackTimeoutError' || failure.cause?.errorType === 'CallbackTimeoutError';
  if (timedOut) {
    // A replay has no `created` (the submitter ran in an earlier invocation): the error names the run alone then.
    return new PauseExpiredError(pause.runId, created?.interruptId ?? '', created?.expiresAt ?? '', { cause: error });
  }
  return error;
}

function parsePointer(text: string | undefined): HandoffPointer | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as HandoffPointer;
    return typeof parsed?.continuationId === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}
