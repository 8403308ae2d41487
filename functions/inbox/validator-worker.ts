import type { JsonSchema } from '../checkpoints/checkpoint-store.ts';
import { schemaFailures } from '../checkpoints/json-schema/index.ts';
import type { AnswerFailure } from '../errors.ts';

/**
 * The inbox page's validator (a dedicated worker): the server's own JSON Schema check (`schemaFailures`, ajv 2020,
 * the same options), so an answer or edited arguments the page lets through are what the server accepts, and what it
 * refuses the page refuses first, with the same paths and messages. Runs in a worker because ajv compiles with
 * `new Function`, which the page's own policy forbids; see `assets.ts`.
 */

/** A request to the worker: check `value` against `schema`. */
export interface ValidateRequest {
  id: number;
  schema: JsonSchema;
  value: unknown;
}

/** The worker's reply: the failures (empty when valid), or why it could not check. */
export type ValidateReply = { id: number; failures: AnswerFailure[] } | { id: number; error: string };

interface WorkerScope {
  onmessage: ((event: { data: ValidateRequest }) => void) | null;
  postMessage(message: ValidateReply): void;
}

const scope = globalThis as unknown as WorkerScope;

scope.onmessage = ({ data }) => {
  try {
    scope.postMessage({ id: data.id, failures: schemaFailures(data.schema, data.value) });
  } catch (error) {
    scope.postMessage({ id: data.id, error: error instanceof Error ? error.message : String(error) });
  }
};
