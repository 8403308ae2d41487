import type { CheckpointStore } from '../checkpoints/checkpoint-store.ts';
import type { ClientContinuation, ClientDecideResult, HandbackOperations } from '../client/types.ts';
import { BadRequestError } from '../errors.ts';
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

/**
 * Where each approved call's run is recorded, so it runs at most once per continuation and call (§15), whatever is
 * retried or redelivered: claim before run. `createDynamoDBToolExecutions` keeps it across processes;
 * `createMemoryToolExecutions` in one process (tests, a single worker).
 */
export interface ExecutionLog {
  /**
   * Runs `run` for the delivery that claims `key` first and records its output; every later call with `key` gets
   * that output without running. A call while the claimer has not finished throws `ExecutionInProgressError`.
   */
  once(key: string, run: () => Promise<string>): Promise<string>;
  /** Whether the record outlives this process (an adapter warns once in production when it does not). */
  readonly durable?: boolean;
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
      let output = outputs.get(key);
      if (output === undefined) {
        output = run();
        outputs.set(key, output);
        // A run that rejected recorded nothing (the adapters turn a tool's error into its output): it may be tried again.
        output.catch(() => outputs.delete(key));
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

/** The key of one approved call's execution in one continuation. */
export function executionKey(continuationId: string, toolCallId: string): string {
  return `${continuationId}/${toolCallId}`;
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
