import { TRUSTED_TYPES_POLICY } from './policy.ts';
import type { AnswerFailure, JsonSchema } from './types.ts';

/**
 * The page's side of the validator worker (`../validator-worker.ts`): the server's own JSON Schema check, run off the
 * page's thread and outside its CSP. Started on first use. When the worker cannot run (blocked, crashed, too slow)
 * the check says `undefined` and the page sends anyway: the server checks every decision itself and its answer is
 * shown by the field it is about.
 */

declare const __VALIDATOR_FILE__: string;

interface TrustedTypesLike {
  createPolicy(
    name: string,
    rules: { createScriptURL(url: string): string },
  ): { createScriptURL(url: string): unknown };
}

const TIMEOUT_MS = 10_000;

let worker: Worker | undefined;
let broken = false;
let nextId = 0;
const waiting = new Map<number, (failures: AnswerFailure[] | undefined) => void>();

function start(): Worker | undefined {
  if (worker !== undefined || broken) return worker;
  const file = `inbox/${__VALIDATOR_FILE__}`;
  try {
    // Under Trusted Types (the page's CSP requires them) a worker's URL must come from a policy; this one makes no
    // URL but the validator's.
    const types = (globalThis as { trustedTypes?: TrustedTypesLike }).trustedTypes;
    const policy = types?.createPolicy(TRUSTED_TYPES_POLICY, {
      createScriptURL(url) {
        if (url !== file) throw new TypeError(`Not the validator: ${url}`);
        return url;
      },
    });
    worker = new Worker((policy?.createScriptURL(file) ?? file) as string);
  } catch {
    broken = true;
    return undefined;
  }
  worker.onmessage = (event: MessageEvent<{ id: number; failures?: AnswerFailure[] }>) => {
    const resolve = waiting.get(event.data.id);
    waiting.delete(event.data.id);
    resolve?.(event.data.failures);
  };
  worker.onerror = () => {
    broken = true;
    for (const resolve of waiting.values()) resolve(undefined);
    waiting.clear();
  };
  return worker;
}

/** The failures of `value` against `schema` as the server would list them; `undefined` when it cannot tell. */
export function checkSchema(schema: JsonSchema, value: unknown): Promise<AnswerFailure[] | undefined> {
  const running = start();
  if (running === undefined) return Promise.resolve(undefined);
  const id = nextId++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      resolve(undefined);
    }, TIMEOUT_MS);
    waiting.set(id, (failures) => {
      clearTimeout(timer);
      resolve(failures);
    });
    running.postMessage({ id, schema, value });
  });
}
