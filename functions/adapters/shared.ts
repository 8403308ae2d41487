import type { CheckpointStore } from '../checkpoints/checkpoint-store.ts';
import type { ClientContinuation, ClientDecideResult, HandbackOperations } from '../client/types.ts';
import { ApprovalExpiredError, BadRequestError, PolicyEvaluationError, PolicyForbidsError } from '../errors.ts';
import { POLICY_ERROR_REJECTED, policyDefaultText, policyRejectionText } from '../rehydrate/texts.ts';
import type { Actor, JsonSchema } from '../wire.ts';

/**
 * What every framework adapter (§15) shares: one way to reach Handback (`handback`: the HTTP client, or a store with
 * its tenant) and one execution log (`executions`), so the five adapters are set up alike.
 */

/** What the adapters need of Handback: the HTTP client (`handback/client`) has it, and so does a store bound to a tenant. */
export type AdapterOperations = Pick<HandbackOperations, 'pause' | 'getPause' | 'getContinuation'>;

/** What the adapters need of the library's store (`createDynamoDBCheckpointStore`, `createMemoryCheckpointStore`). */
export type HandbackStore = Pick<CheckpointStore, 'pause' | 'getPause' | 'getContinuation'>;

/** A store, with the tenant its pauses are for and who acts (default the library's principal, §13). */
export interface StoreScope {
  store: HandbackStore;
  tenant: string;
  by?: Actor;
}

/** How an adapter reaches Handback: the HTTP client (its token names the tenant), or a store with its tenant. */
export type HandbackOption = AdapterOperations | StoreScope;

/** The client as it is; a store bound to its tenant (and principal). */
export function operationsOf(handback: HandbackOption): AdapterOperations {
  if (!('store' in handback)) return handback;
  const { store, tenant, by } = handback;
  const as = by === undefined ? {} : { by };
  return {
    pause: (input) => store.pause({ ...input, tenant, ...as }),
    getPause: (key, options) => store.getPause({ ...key, tenant }, options),
    getContinuation: (key) => store.getContinuation({ ...key, tenant }),
  };
}

/**
 * Where an adapter goes on from: the continuation (as `cancel` or the hand-off gives it), what `decide` returned (it
 * must have closed the pause), or the continuation's run and id (then it is read).
 */
export type ContinueInput = ClientContinuation | ClientDecideResult | { runId: string; continuationId: string };

/** The continuation an adapter goes on from; a `decide` result still pending is refused, naming what it waits for. */
export async function continuationOf(handback: AdapterOperations, input: ContinueInput): Promise<ClientContinuation> {
  if ('kind' in input && input.kind === 'pending') {
    throw new BadRequestError(
      `Pause ${input.interruptId} still waits for ${input.pending.join(', ')}: go on once its last decision is recorded.`,
    );
  }
  if ('messages' in input && Array.isArray(input.messages)) return input as ClientContinuation;
  return handback.getContinuation({
    runId: input.runId,
    continuationId: (input as { continuationId: string }).continuationId,
  });
}

/** How one tool's calls become asks: an `answer` ask (the person's answer is the call's result) or an approval. */
export type AskRule =
  | { kind: 'answer'; prompt?: string; answerSchema?: JsonSchema }
  | { kind?: 'approval'; prompt?: string; editable?: boolean };

/** One dispatched call's execution: its run, the continuation that dispatched it, and the call (§19's claim names all three). */
export type ExecutionKey = {
  runId: string;
  continuationId: string;
  toolCallId: string;
};

/**
 * Where each approved call's run is recorded, so it runs at most once per continuation and call (§15), whatever is
 * retried or redelivered: claim before run. `createHandbackToolExecutions` claims each through Handback (§19: judged
 * again by the policies in force, once under any race, and on the audit trail); `createDynamoDBToolExecutions` keeps
 * it in a table the agents share; `createMemoryToolExecutions` in one process (tests, a single worker).
 */
export interface ExecutionLog {
  /**
   * Runs `run` for the delivery that claims `key` first and records its output; every later call with `key` gets
   * that output without running (or, claimed through Handback, `AlreadyClaimedError`). A call while the claimer has
   * not finished throws `ExecutionInProgressError`; a claim Handback refuses at run time throws its error
   * (`PolicyForbidsError`, `PolicyEvaluationError`, `ApprovalExpiredError`), which the adapters tell the model.
   */
  once(key: ExecutionKey, run: () => Promise<string>): Promise<string>;
  /** Whether the record outlives this process (an adapter warns once in production when it does not). */
  readonly durable?: boolean;
  /**
   * The log claims dispatched calls through Handback (§19), which knows no other key: an adapter whose one run
   * executes several calls (LangGraph's resume) claims each approved call before it, not the run as a whole.
   */
  readonly claimsCalls?: boolean;
}

/**
 * The execution log in this process's memory: enough for one worker that may see a hand-off twice, and for tests.
 * Lambdas that may each receive the same continuation need `createDynamoDBToolExecutions`.
 */
export function createMemoryToolExecutions(): ExecutionLog {
  const outputs = new Map<string, Promise<string>>();
  return {
    durable: false,
    once(key, run) {
      const id = executionKey(key);
      let output = outputs.get(id);
      if (output === undefined) {
        output = run();
        outputs.set(id, output);
        // A run that rejected recorded nothing (the adapters turn a tool's error into its output): it may be tried again.
        output.catch(() => outputs.delete(id));
      }
      return output;
    },
  };
}

let warned = false;

/**
 * The adapter's execution log: the one given, or one in memory. In production (on Lambda, or `NODE_ENV=production`)
 * without a durable one it warns once per process, since two workers receiving the same continuation would each run
 * the approved calls.
 */
export function executionLogOf(given: ExecutionLog | undefined, adapter: string): ExecutionLog {
  const log = given ?? createMemoryToolExecutions();
  if (!warned && log.durable === false && inProduction()) {
    warned = true;
    console.warn(
      `${adapter}: the execution log is in this process's memory, so two workers receiving the same continuation would each run its approved calls. Pass executions: createDynamoDBToolExecutions({ client, tableName }).`,
    );
  }
  return log;
}

function inProduction(): boolean {
  const env = typeof process === 'undefined' ? {} : process.env;
  return env.AWS_LAMBDA_FUNCTION_NAME !== undefined || env.NODE_ENV === 'production';
}

/** The key of one approved call's execution in one continuation, as the memory and DynamoDB logs keep it. */
export function executionKey({ continuationId, toolCallId }: ExecutionKey): string {
  return `${continuationId}/${toolCallId}`;
}

/**
 * `executions.once(key, run)`, or — when Handback refused the call at run time (§19: a forbid of the policies in
 * force, their failure, or the approval's end; recorded on the audit trail) — `refused(words)`: the result an adapter
 * hands the model in its own encoding, so the call is told "Not run: …" and nothing runs.
 */
export async function onceUnlessRefused(
  executions: ExecutionLog,
  key: ExecutionKey,
  run: () => Promise<string>,
  refused: (words: string) => string,
): Promise<string> {
  try {
    return await executions.once(key, run);
  } catch (error) {
    const words = runTimeRefusalText(error);
    if (words === undefined) throw error;
    return refused(words);
  }
}

/** A tool's output as the text of its result: strings as they are, anything else as JSON. */
export function outputText(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? String(output));
}

/** JSON values equal as values, key order aside (how §5 compares answers). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = Object.entries(a);
  const right = b as Record<string, unknown>;
  return left.length === Object.keys(right).length && left.every(([key, value]) => sameJson(value, right[key]));
}

/** What the model is told of a call Handback refused at run time (§19's words: a policy decided, not a person). */
export function runTimeRefusalText(error: unknown): string | undefined {
  if (error instanceof PolicyForbidsError) {
    const [policyId] = error.policyIds;
    return policyId === undefined ? policyDefaultText(error.reason) : policyRejectionText(policyId, error.reason);
  }
  if (error instanceof PolicyEvaluationError) return POLICY_ERROR_REJECTED;
  if (error instanceof ApprovalExpiredError) {
    return `Not run: its approval was valid until ${error.approvedUntil}, and the call was not run in time. Ask again if it is still needed.`;
  }
  return undefined;
}
