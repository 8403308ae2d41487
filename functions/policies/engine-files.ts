import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join } from 'node:path';
import { cedarWasmPath, loadCedar } from './cedar.ts';
import type { PolicySettings } from './config.ts';
import { createPolicyEngine, type PolicyEngine, type PolicyEngineOptions } from './engine.ts';
import { loadPolicies } from './load.ts';

/**
 * A deployment's engine from its files: the policy file, its schema, Handback's schema and Cedar's WebAssembly. A
 * Lambda bundle has its own copies of the last two beside the function's code (`PolicyFiles`, which its reader of the
 * environment gives); elsewhere they are the package's. Relative paths are `root`'s (the task root on Lambda), else
 * the working directory's.
 */

/** Where the engine's own files are, when not the installed package's: a Lambda bundle's copies. */
export interface PolicyFiles {
  /** Handback's schema (`HANDBACK_CEDAR_SCHEMA`). */
  schema?: string;
  /** Cedar's WebAssembly module (`HANDBACK_CEDAR_WASM`). */
  wasm?: string;
  /** Where relative paths start (`LAMBDA_TASK_ROOT`). @default the working directory */
  root?: string;
}

/** Where Handback's schema (`handback.cedarschema`, at the package's root) is: `files.schema`, else the package's. */
export function shippedSchemaPath(files: PolicyFiles = {}): string {
  if (files.schema !== undefined && files.schema !== '') return resolved(files.schema, files);
  // The package's root by its own name, not by this module's place: the bin runs it from a chunk of dist/cli/chunks/,
  // the library from dist/policies/, the repository from functions/policies/.
  return join(dirname(createRequire(import.meta.url).resolve('handback/package.json')), 'handback.cedarschema');
}

/** Loads, checks and preparses the policies `settings` name; throws `InvalidPoliciesError` naming what is wrong. */
export function loadPolicyEngine(
  settings: PolicySettings,
  options: Pick<PolicyEngineOptions, 'onError'> & { files?: PolicyFiles } = {},
): PolicyEngine {
  const files = options.files ?? {};
  const read = (file: string) => ({ file, text: readFileSync(resolved(file, files), 'utf8') });
  const shipped = { file: 'handback.cedarschema', text: readFileSync(shippedSchemaPath(files), 'utf8') };
  const cedar = loadCedar(cedarWasmPath(files.wasm, files.root));
  const loaded = loadPolicies(
    cedar,
    read(settings.policies),
    shipped,
    settings.schema === undefined ? undefined : read(settings.schema),
  );
  return createPolicyEngine(cedar, loaded, {
    mode: settings.mode,
    default: settings.default,
    timeZone: settings.timeZone,
    ...(settings.version === undefined ? {} : { version: settings.version }),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  });
}

/** What an entry point logs with: the local service's and the Lambda functions' loggers both are one. */
export interface PolicyLog {
  info(message: string, fields: Record<string, unknown>): void;
  error(message: string, fields: Record<string, unknown>): void;
}

/**
 * `loadPolicyEngine` as the entry points run it: what loaded is logged once (the version, the mode, the default and
 * each policy), and every failed evaluation (the ask rejected, fail closed) with the erroring policies' ids.
 */
export function loadLoggedPolicyEngine(
  settings: PolicySettings,
  log: PolicyLog,
  files: PolicyFiles = {},
): PolicyEngine {
  const engine = loadPolicyEngine(settings, {
    files,
    onError: (failure) => log.error('Policy evaluation failed: the ask was rejected', { ...failure }),
  });
  // What an auditor reads back (§19): which set decided, and each policy's id, annotations and text.
  log.info('Policies loaded', {
    version: engine.version,
    mode: engine.mode,
    default: engine.default,
    timeZone: engine.timeZone,
    size: engine.size,
    policies: engine.policies,
  });
  return engine;
}

function resolved(path: string, files: PolicyFiles): string {
  return isAbsolute(path) ? path : join(files.root ?? process.cwd(), path);
}
