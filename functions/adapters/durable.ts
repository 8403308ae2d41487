import { createHash } from 'node:crypto';
import type { DurableContext } from '@aws/durable-execution-sdk-js';
import type { ClientPauseCreated, ClientPauseInput } from '../client/types.ts';
import { PauseCancelledError, PauseExpiredError } from '../errors.ts';
import { isIdempotencyKey } from '../inputs.ts';
import { LIMITS } from '../vocabulary.ts';
import type { DispatchCall, HandoffPointer } from '../wire.ts';
import { type ExecutionLog, executionLogOf, type HandbackOption, onceUnlessRefused, operationsOf } from './shared.ts';

/**
 * `handback/durable` (§15): a Lambda durable function waits for people with `waitForDecision`. It is one
 * `context.waitForCallback`: its submitter records the pause with the callback's id (`callbackId`), and Handback's
 * hand-off completes the callback when the pause closes — `SendDurableExecutionCallbackSuccess` with the hand-off
 * pointer, or `SendDurableExecutionCallbackFailure` with `PauseCancelledError` for a cancel. While it waits the
 * function is not running (no compute is billed). `runApproved` then runs the approved calls, each in a step and
 * through the execution log, so neither a replay nor a retried step runs one twice. The framework is an optional
 * peer: this module imports only its types.
 */

/** The pause to record: a pause body without what `waitForDecision` sets itself. */
export type DurablePauseInput = Omit<ClientPauseInput, 'callbackId' | 'taskToken' | 'idempotencyKey'>;

/** Options of {@link waitForDecision}: how to reach Handback, and the operation's name. */
export interface WaitForDecisionOptions {
  /** The HTTP client (`createHandbackClient`), or a store with its tenant: `{ store, tenant, by? }`. */
  handback: HandbackOption;
  /** The name of the durable operation (it must be unique in the function, as every operation name). @default 'handback-decision' */
  name?: string;
  /**
   * How long the callback waits beyond the pause's expiry, so that Handback's sweep (which closes an expired pause
   * within two minutes, §10) completes it first with the expired continuation.
   * @default `LIMITS.expiryGraceSeconds`
   */
  graceSeconds?: number;
}

/** What the durable function goes on with: the hand-off pointer, its messages always present. */
export interface DurableDecision extends HandoffPointer {
  messages: unknown[];
}

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
  const handback = operationsOf(options.handback);
  const name = options.name ?? 'handback-decision';
  const expiresInSeconds = pause.expiresInSeconds ?? LIMITS.expiresInSeconds.default;
  let created: ClientPauseCreated | undefined;
  let result: string;
  try {
    result = await context.waitForCallback<string>(
      name,
      async (callbackId) => {
        created = await handback.pause({ ...pause, callbackId, idempotencyKey: idempotencyKeyOf(callbackId) });
      },
      { timeout: { seconds: expiresInSeconds + (options.graceSeconds ?? LIMITS.expiryGraceSeconds) } },
    );
  } catch (error) {
    throw closedError(error, pause, created);
  }
  const pointer = JSON.parse(result) as HandoffPointer;
  if (pointer.messages !== undefined) return pointer as DurableDecision;
  // A pointer over 256 KB leaves its messages out: they are read from the continuation.
  const continuation = await handback.getContinuation({ runId: pointer.runId, continuationId: pointer.continuationId });
  return { ...pointer, messages: continuation.messages };
}

/** Options of {@link runApproved}. */
export interface RunApprovedOptions {
  /** Where each approved call's run is recorded. @default in this process's memory (a warning in production) */
  executions?: ExecutionLog;
  /** The prefix of each call's step name (the call id follows). @default 'handback-run' */
  name?: string;
}

/**
 * Runs each approved call of the decision (its `dispatch`, with the decided arguments) in a `context.step` of its
 * own, at most once per continuation and call: a replay reads the step's checkpointed output, and a step the SDK
 * retries after a crash finds the execution log's claim instead of running the call again. Returns the results in
 * call order, for `appendResults(decision.format, decision.messages, results)`.
 */
export async function runApproved(
  context: Pick<DurableContext, 'step'>,
  decision: Pick<DurableDecision, 'runId' | 'continuationId' | 'dispatch'>,
  run: (call: DispatchCall) => Promise<unknown>,
  options: RunApprovedOptions = {},
): Promise<Array<{ toolCallId: string; output: string }>> {
  const executions = executionLogOf(options.executions, 'handback/durable');
  const prefix = options.name ?? 'handback-run';
  const results: Array<{ toolCallId: string; output: string }> = [];
  for (const call of decision.dispatch) {
    const key = { runId: decision.runId, continuationId: decision.continuationId, toolCallId: call.toolCallId };
    const output = await context.step(`${prefix}:${call.toolCallId}`, () =>
      onceUnlessRefused(
        executions,
        key,
        async () => {
          const value = await run(call);
          return typeof value === 'string' ? value : JSON.stringify(value ?? null);
        },
        (words) => words,
      ),
    );
    results.push({ toolCallId: call.toolCallId, output });
  }
  return results;
}

/** The `Idempotency-Key` of a callback's pause: its id, or a hash of it where the id is longer than a key may be. */
export function idempotencyKeyOf(callbackId: string): string {
  if (isIdempotencyKey(callbackId)) return callbackId;
  return `durable:${createHash('sha256').update(callbackId).digest('base64url')}`;
}

/** The SDK's callback error as Handback's: a cancel's failure, or the callback's timeout past the pause's expiry. */
function closedError(error: unknown, pause: DurablePauseInput, created: ClientPauseCreated | undefined): unknown {
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

export { PauseCancelledError } from '../errors.ts';
export * from './every-adapter.ts';
