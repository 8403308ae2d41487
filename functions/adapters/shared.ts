import type { CheckpointStore } from '../checkpoints/checkpoint-store.ts';
import type { JsonSchema } from '../wire.ts';

/**
 * What the framework adapters (§15) need of Handback: the store's `pause`, `getPause` and `getContinuation`, as the
 * library's store (`createDynamoDBCheckpointStore`, `createMemoryCheckpointStore`) and the HTTP client
 * (`handback/client`) both have them. Structural, so either fits and neither is loaded by an adapter.
 */
export type HandbackStore = Pick<CheckpointStore, 'pause' | 'getPause' | 'getContinuation'>;

/** How one tool's calls become asks: an `answer` ask (the person's answer is the call's result) or an approval. */
export type AskRule =
  | { kind: 'answer'; prompt?: string; answerSchema?: JsonSchema }
  | { kind?: 'approval'; prompt?: string; editable?: boolean };

/**
 * Runs each approved tool call at most once (§15): keyed by `continuationId` and `toolCallId`, so a retried or
 * redelivered continuation returns the output recorded the first time instead of running the tool again.
 */
export interface ToolExecutions {
  /** Runs `execute` the first time `key` is seen; every later call with that key gets the first call's output. */
  once(key: string, execute: () => Promise<string>): Promise<string>;
}

/**
 * Tool executions kept in this process's memory: enough for one worker that may see a hand-off twice (and for tests).
 * Lambdas that may each receive the same continuation need a durable implementation of `ToolExecutions`.
 */
export function createMemoryToolExecutions(): ToolExecutions {
  const outputs = new Map<string, Promise<string>>();
  return {
    once(key, execute) {
      let output = outputs.get(key);
      if (output === undefined) {
        output = execute();
        outputs.set(key, output);
        // A call that failed did not run to its end: a later delivery may try again.
        output.catch(() => outputs.delete(key));
      }
      return output;
    },
  };
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
