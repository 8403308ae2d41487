import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Continuation, ResumeResult } from '../checkpoints/checkpoint-store.ts';
import { carryMessages, jsonByteLength, stringifyWithMessages } from '../checkpoints/continuation-json.ts';
import { ERROR_FATES, HandoffFailedError } from '../errors.ts';
import { once } from '../once.ts';
import { type BundleDefines, handoff as HANDOFF_TARGET } from '../settings.ts';
import type { HandoffPointer } from '../wire.ts';
import type { TargetClient } from './target.ts';

/**
 * The hand-off (§6, §10): after a pause closes — resumed, cancelled or expired, from any trigger or the sweep — the
 * continuation's pointer goes to the configured target; when the pause carries a task token, Step Functions gets
 * `SendTaskSuccess` with it, or `SendTaskFailure` with `PauseCancelledError` for a cancel, so a workflow's `Catch`
 * sees it; when it carries a durable function's `callbackId` (`handback/durable`), Lambda gets
 * `SendDurableExecutionCallbackSuccess` with it, or `SendDurableExecutionCallbackFailure` with `PauseCancelledError`.
 * The target, the task and the callback are each attempted whatever the others did, so a refusing queue never
 * leaves a workflow waiting. Delivery is at least once: a replayed closing delivers the same pointer again, so
 * consumers dedupe on `continuationId`.
 */

/** The hand-off target and the one setting it needs. */
export type HandoffConfig =
  | { target: 'sqs'; queueUrl: string }
  | { target: 'eventbridge'; eventBusName: string }
  | { target: 'lambda'; functionName: string }
  | { target: 'none' };

/**
 * What the next invocation of the agent receives: where the continuation is, how the pause closed and what to run
 * (the continuation's own fields), and its messages when the whole pointer is under `HANDOFF_INLINE_LIMIT_BYTES`;
 * otherwise read the continuation.
 */
export type { HandoffPointer };

/**
 * The largest pointer that carries `messages`: 256 KiB (what a Step Functions task output and a durable callback's
 * result take; SQS, EventBridge and asynchronous invokes take 1 MB, so one pointer fits every target) less 2 KiB for
 * what each service counts besides the payload (detail-type, source, attributes). Sources: docs/runtimes.md.
 */
export const HANDOFF_INLINE_LIMIT_BYTES = 256 * 1024 - 2 * 1024;

/**
 * The largest `SendTaskFailure` cause: Step Functions takes at most 32,768 characters there
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskFailure.html), so a cancel's pointer
 * carries its messages only when it fits, counted in bytes (never fewer than characters).
 */
export const TASK_FAILURE_CAUSE_LIMIT_BYTES = 32_768;

/** Delivers a resume's pointer; throws `HandoffFailedError` when a target refused it, so the trigger retries. */
export interface Handoff {
  deliver(result: ResumeResult): Promise<void>;
}

/** The pointer of a continuation, with its messages when the whole stays under `limitBytes`. */
export function handoffPointer(continuation: Continuation, limitBytes = HANDOFF_INLINE_LIMIT_BYTES): HandoffPointer {
  return pointerWithJson(continuation, limitBytes).pointer;
}

/**
 * The pointer and its JSON. Messages the continuation still holds as JSON are sized and written into the pointer's
 * JSON unparsed (a 10 MB transcript is never parsed to learn it does not fit, nor serialized again when it does).
 */
function pointerWithJson(continuation: Continuation, limitBytes: number): { pointer: HandoffPointer; json: string } {
  const { runId, interruptId, continuationId, format, outcome, dispatch, traceparent } = continuation;
  const pointer: HandoffPointer = { runId, interruptId, continuationId, format, outcome, dispatch };
  if (traceparent !== undefined) pointer.traceparent = traceparent;
  const whole = carryMessages({ ...pointer, messages: [] as unknown[] }, continuation);
  return jsonByteLength(whole) < limitBytes
    ? { pointer: whole, json: stringifyWithMessages(whole) }
    : { pointer, json: JSON.stringify(pointer) };
}

/** The AWS clients a hand-off may use, created once at module scope by the caller. */
export interface HandoffClients {
  sqs?: SQSClient;
  eventBridge?: EventBridgeClient;
  /** The `lambda` target's client, and the one that completes durable functions' callbacks when given. */
  lambda?: LambdaClient;
  /** The client that completes task tokens, when given. */
  sfn?: SFNClient;
  /**
   * The clients made on first use, when `sfn` or `lambda` is not given: the one that completes task tokens and the
   * one that completes durable callbacks. Each is made once, with its package loaded then (`task-token.ts`,
   * `durable-callback.ts`), so a function whose pauses carry neither never parses them. `target`: the configured
   * target's, when it is not given either (`createHandoffClients` with a loader of `target.ts`).
   */
  onFirstUse?: {
    sfn?: () => Promise<SFNClient>;
    lambda?: () => Promise<LambdaClient>;
    target?: () => Promise<TargetClient>;
  };
  /**
   * What sends to the configured target (`target.ts`): the module itself, imported statically by the caller, or a
   * loader of it, run on the first hand-off. Every target but `none` needs it; `createHandoffClients` gives it.
   */
  targetModule?: TargetModule | (() => Promise<TargetModule>);
}

/** The module that makes the target's client and sends to it (`target.ts`). */
export type TargetModule = typeof import('./target.ts');

// `HANDBACK_BUNDLED_HANDOFF_TARGET` (`BundleDefines`) is the hand-off target a Lambda bundle was built for, or undefined
// (tests, the local service, a library user): the stack's `HandbackFunction` defines it at synthesis (an esbuild
// `define`), so every comparison with it (here and in `target.ts`) is a constant, the other targets' clients are
// dead code, and their imports, unused, are left out of the bundle (the client packages declare no side effects). It
// is spelled out at each use, not held in a variable or a helper: esbuild folds only the constants it sees in place
// (a module-level const becomes a `var` in a bundle, which it does not inline). No client package is imported here:
// an `import()` of a client package keeps every command of it in the bundle (measured: +9.4 KB gzip for Step
// Functions), so each client is imported through a module of ours that names the client and its commands — the
// target's (`target.ts`), the task token's and the durable callback's (`task-token.ts`, `durable-callback.ts`). This
// module imports the last two with `import()` only, and the target's not at all: its caller gives it
// (`targetModule`), statically imported or as a loader, and so decides whether it is read at init.

/**
 * The clients a hand-off needs: the configured target's, made now when `targetModule` is `target.ts` itself, or on
 * the first hand-off when it is a loader of it; Step Functions' (for pauses that carry a task token) unless
 * `withStepFunctions` is false, and Lambda's (for pauses that carry a durable callback id) unless
 * `withDurableCallbacks` is false, each made on first use (`onFirstUse`) — the `lambda` target's client completes
 * callbacks too. `capture` is given each client as it is made (`traceAwsClient`, functions/handlers/tracing.ts). In a bundle built
 * for one target, any other target fails here, at cold start.
 */
export function createHandoffClients(
  target: HandoffConfig['target'],
  {
    withStepFunctions = true,
    withDurableCallbacks = true,
    capture = (client) => client,
    targetModule,
  }: {
    withStepFunctions?: boolean;
    withDurableCallbacks?: boolean;
    capture?: <C extends SQSClient | EventBridgeClient | LambdaClient | SFNClient>(client: C) => C;
    /**
     * Where the target's client comes from: `target.ts`, imported statically by the caller, makes it now (and is read
     * at the caller's init); a loader of it makes it on the first hand-off, once. A module rather than a flag: only a
     * static import keeps it out of a chunk, and a flag, known only at run time, could not keep the static import out
     * of a function that does not want it. Neither is a default here: this module imports `target.ts` in no way, or
     * every bundle would hold it in a chunk of its own, split from the init that reads it.
     */
    targetModule: TargetModule | (() => Promise<TargetModule>);
  },
): HandoffClients {
  if (
    (globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET !== undefined &&
    target !== (globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET
  )
    throw notBundled(target);
  const clients: HandoffClients = {};
  const onFirstUse: NonNullable<HandoffClients['onFirstUse']> = {};
  if (target !== 'none') {
    if (typeof targetModule === 'function') {
      const load = once(targetModule);
      clients.targetModule = load;
      onFirstUse.target = once(async () => capture((await load()).targetClient(target)));
    } else {
      clients.targetModule = targetModule;
      const client = capture(targetModule.targetClient(target));
      if (target === 'sqs') clients.sqs = client as SQSClient;
      if (target === 'eventbridge') clients.eventBridge = client as EventBridgeClient;
      if (target === 'lambda') clients.lambda = client as LambdaClient;
    }
  }
  if (withStepFunctions) {
    onFirstUse.sfn = once(async () => capture((await import('./task-token.ts')).stepFunctionsClient()));
  }
  if (withDurableCallbacks && clients.lambda === undefined) {
    // The `lambda` target's client, made on first use, completes callbacks too: never a second Lambda client.
    const targetLambda = target === 'lambda' ? onFirstUse.target : undefined;
    onFirstUse.lambda =
      targetLambda === undefined
        ? once(async () => capture((await import('./durable-callback.ts')).lambdaClient()))
        : async () => (await targetLambda()) as LambdaClient;
  }
  if (Object.keys(onFirstUse).length > 0) clients.onFirstUse = onFirstUse;
  return clients;
}

function notBundled(target: string): Error {
  return new Error(
    `${HANDOFF_TARGET.env} is ${target}, but this function was bundled for the hand-off target ${(globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET}: set ${HANDOFF_TARGET.env} through the stack's hand-off (Handoff.bind), or synthesize and deploy again.`,
  );
}

/** Where hand-off events are reported: a structured logger without the messages. */
export interface HandoffLog {
  info(message: string, attributes: Record<string, unknown>): void;
  warn(message: string, attributes: Record<string, unknown>): void;
}

/**
 * Step Functions errors that mean the token was already completed, timed out, or never existed: a replayed resume
 * meets them, and no retry can change them, so they are logged and the hand-off counts as delivered.
 */
const SETTLED_TASK_ERRORS = new Set(['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken']);

/**
 * Lambda's errors for a callback already completed or timed out (`CallbackTimeoutException`) or whose execution is
 * gone (`ResourceNotFoundException`): settled, as `SETTLED_TASK_ERRORS` are.
 */
const SETTLED_CALLBACK_ERRORS = new Set(['CallbackTimeoutException', 'ResourceNotFoundException']);

/**
 * A hand-off to the configured target, plus `SendTaskSuccess` for pauses that carry a task token and
 * `SendDurableExecutionCallbackSuccess` for pauses that carry a durable callback id. All three are attempted, each
 * whatever the others did; the first failure is thrown (`HandoffFailedError`) once all have run, so the trigger
 * retries and the retry sends all three again (a settled token or callback then counts as delivered).
 */
export function createHandoff(config: HandoffConfig, clients: HandoffClients, log: HandoffLog): Handoff {
  const send = targetSender(config, clients);
  return {
    async deliver(result) {
      const { pointer, json: body } = pointerWithJson(result, HANDOFF_INLINE_LIMIT_BYTES);
      const ids = { runId: pointer.runId, interruptId: pointer.interruptId, continuationId: pointer.continuationId };
      const cancelled = pointer.outcome === 'cancelled';
      const deliveries: Promise<void>[] = [
        send(body, pointer.traceparent).then(
          () =>
            log.info('Handed off the continuation', {
              ...ids,
              target: config.target,
              messagesInline: 'messages' in pointer,
            }),
          (error: unknown) => {
            throw new HandoffFailedError(config.target, pointer.continuationId, { cause: error });
          },
        ),
      ];
      if (result.taskToken !== undefined) {
        const output = cancelled ? pointerWithJson(result, TASK_FAILURE_CAUSE_LIMIT_BYTES + 1).json : body;
        deliveries.push(completeTask(clients, result.taskToken, output, cancelled, ids, log));
      }
      if (result.callbackId !== undefined) {
        deliveries.push(completeCallback(clients, result.callbackId, body, cancelled, ids, log));
      }
      const failed = (await Promise.allSettled(deliveries)).find((settled) => settled.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    },
  };
}

/**
 * What sends a pointer's JSON to the configured target: its client, given or made on first use, and `target.ts`'s
 * `sendToTarget`, from the module the clients carry (loaded on the first hand-off when they carry a loader). A
 * missing client or module is a wiring mistake, thrown here, when the hand-off is made.
 */
function targetSender(
  config: HandoffConfig,
  clients: HandoffClients,
): (body: string, traceparent?: string) => Promise<void> {
  if (config.target === 'none') return async () => {};
  if (
    (globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET !== undefined &&
    config.target !== (globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET
  )
    throw notBundled(config.target);
  const given = { sqs: clients.sqs, eventbridge: clients.eventBridge, lambda: clients.lambda }[config.target];
  const client: (() => Promise<TargetClient>) | undefined =
    given === undefined ? clients.onFirstUse?.target : async () => given;
  const module = clients.targetModule;
  if (client === undefined || module === undefined) {
    throw new Error(
      `The hand-off needs ${CLIENT_NAMES[config.target]} and target.ts (HandoffClients.targetModule); create them with createHandoffClients.`,
    );
  }
  const sender = typeof module === 'function' ? module : async () => module;
  return async (body, traceparent) => {
    const [{ sendToTarget }, made] = await Promise.all([sender(), client()]);
    await sendToTarget(config, made, body, traceparent);
  };
}

const CLIENT_NAMES = { sqs: 'an SQS client', eventbridge: 'an EventBridge client', lambda: 'a Lambda client' } as const;

/** Completes the pause's task: `SendTaskSuccess` with the pointer, or `SendTaskFailure` naming the cancel. */
async function completeTask(
  clients: HandoffClients,
  taskToken: string,
  output: string,
  cancelled: boolean,
  ids: Record<string, string>,
  log: HandoffLog,
): Promise<void> {
  const call = cancelled ? 'SendTaskFailure' : 'SendTaskSuccess';
  let sfn: SFNClient | undefined;
  try {
    sfn = clients.sfn ?? (await clients.onFirstUse?.sfn?.());
  } catch (error) {
    throw new HandoffFailedError(`Step Functions ${call}`, ids.continuationId ?? '', { cause: error });
  }
  if (sfn === undefined) {
    // Only the local service runs without one (no AWS account); the Lambda wiring makes one on first use.
    log.warn('No Step Functions client: the pause task token was not completed', ids);
    return;
  }
  try {
    const { sendTaskResult: send } = await import('./task-token.ts');
    await send(sfn, taskToken, output, cancelled ? { error: PAUSE_CANCELLED } : undefined);
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (SETTLED_TASK_ERRORS.has(name)) {
      log.warn('The pause task token is already settled; nothing to complete', { ...ids, error: name });
      return;
    }
    throw new HandoffFailedError(`Step Functions ${call}`, ids.continuationId ?? '', { cause: error });
  }
  log.info(
    cancelled ? 'Failed the Step Functions task: the pause was cancelled' : 'Completed the Step Functions task',
    ids,
  );
}

/**
 * Completes the pause's durable callback: `SendDurableExecutionCallbackSuccess` with the pointer (the durable function
 * reads it as its `waitForCallback` result), or `SendDurableExecutionCallbackFailure` naming the cancel, with the
 * pointer as the error's data.
 */
async function completeCallback(
  clients: HandoffClients,
  callbackId: string,
  output: string,
  cancelled: boolean,
  ids: Record<string, string>,
  log: HandoffLog,
): Promise<void> {
  const call = cancelled ? 'SendDurableExecutionCallbackFailure' : 'SendDurableExecutionCallbackSuccess';
  let lambda: LambdaClient | undefined;
  try {
    lambda = clients.lambda ?? (await clients.onFirstUse?.lambda?.());
  } catch (error) {
    throw new HandoffFailedError(`Lambda ${call}`, ids.continuationId ?? '', { cause: error });
  }
  if (lambda === undefined) {
    // Only the local service runs without one (no AWS account); the Lambda wiring makes one on first use.
    log.warn('No Lambda client: the pause durable callback was not completed', ids);
    return;
  }
  try {
    const { sendCallbackResult: send } = await import('./durable-callback.ts');
    await send(
      lambda,
      callbackId,
      output,
      cancelled ? { error: PAUSE_CANCELLED, message: 'A person cancelled the pause.' } : undefined,
    );
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (SETTLED_CALLBACK_ERRORS.has(name)) {
      log.warn('The pause durable callback is already settled; nothing to complete', { ...ids, error: name });
      return;
    }
    throw new HandoffFailedError(`Lambda ${call}`, ids.continuationId ?? '', { cause: error });
  }
  log.info(cancelled ? 'Failed the durable callback: the pause was cancelled' : 'Completed the durable callback', ids);
}

/** The error a cancelled pause's task fails with: the error class's name, as a workflow's `Catch` matches it. */
const PAUSE_CANCELLED = ERROR_FATES.pause_cancelled.name;
