import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cedarWasmPath, loadCedar } from './cedar.ts';
import type { PolicySettings } from './config.ts';
import { createPolicyEngine, type PolicyEngine, type PolicyEngineOptions } from './engine.ts';
import { loadPolicies } from './load.ts';

/**
 * A deployment's engine from its files: the policy file, its schema, Handback's schema and Cedar's WebAssembly. A
 * Lambda bundle has its own copies of the last two (`HANDBACK_CEDAR_SCHEMA`, `HANDBACK_CEDAR_WASM`, beside the
 * function's code); elsewhere they are the package's. Relative paths are the working directory's (the task root on
 * Lambda).
 */

/** Where Handback's schema (`handback.cedarschema`, at the package's root) is. */
export function shippedSchemaPath(env: Record<string, string | undefined> = process.env): string {
  const given = env.HANDBACK_CEDAR_SCHEMA;
  if (given !== undefined && given !== '') return resolved(given, env);
  return fileURLToPath(new URL('../../handback.cedarschema', import.meta.url));
}

/** Loads, checks and preparses the policies `settings` name; throws `InvalidPoliciesError` naming what is wrong. */
export function loadPolicyEngine(
  settings: PolicySettings,
  options: Pick<PolicyEngineOptions, 'onError'> & { env?: Record<string, string | undefined> } = {},
): PolicyEngine {
  const env = options.env ?? process.env;
  const read = (file: string) => ({ file, text: readFileSync(resolved(file, env), 'utf8') });
  const shippedPath = shippedSchemaPath(env);
  const shipped = { file: 'handback.cedarschema', text: readFileSync(shippedPath, 'utf8') };
  const cedar = loadCedar(cedarWasmPath(env));
  const loaded = loadPolicies(
    cedar,
    read(settings.policies),
    shipped,
    settings.schema === undefined ? undefined : read(settings.schema),
  );
  return createPolicyEngine(cedar, loaded, {
    mode: settings.mode,
    default: settings.default,
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  });
}

/** What an entry point logs with: the local service's and the Lambda functions' loggers both are one. */
export interface PolicyLog {
  info(message: string, fields: Record<string, unknown>): void;
  error(message: string, fields: Record<string, unknown>): void;
}

/**
 * `loadPolicyEngine` as the entry points run it: what loaded is logged once, and every failed evaluation (the ask
 * rejected, fail closed) with the erroring policies' ids.
 */
export function loadLoggedPolicyEngine(
  settings: PolicySettings,
  log: PolicyLog,
  env: Record<string, string | undefined> = process.env,
): PolicyEngine {
  const engine = loadPolicyEngine(settings, {
    env,
    onError: (failure) => log.error('Policy evaluation failed: the ask was rejected', { ...failure }),
  });
  log.info('Policies loaded', { policies: engine.size, mode: engine.mode, default: engine.default });
  return engine;
}

function resolved(path: string, env: Record<string, string | undefined>): string {
  return isAbsolute(path) ? path : join(env.LAMBDA_TASK_ROOT ?? process.cwd(), path);
}
