import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Construct } from 'constructs';
import { CEDAR_WASM_FILE, cedarWasmPath } from '../functions/policies/cedar.ts';
import { type PolicySettings, policySettingsFrom } from '../functions/policies/config.ts';
import { loadPolicyEngine, shippedSchemaPath } from '../functions/policies/engine-files.ts';
import {
  cedarSchema,
  cedarWasm,
  policies,
  policyDefault,
  policyMode,
  policySchema,
  policyTimeZone,
  policyVersion,
} from '../functions/settings.ts';

/**
 * The deployment's Cedar policies on AWS (§17): context `handback:policies` (with `handback:policySchema`,
 * `handback:policyMode`, `handback:policyDefault`) names the files; synthesis loads and validates them with Cedar
 * itself, as `npm start` does, so a file that does not parse or validate fails `cdk synth` with its line, column and
 * Cedar's words; and the functions that pause get them in their asset (`policies/`, beside `index.mjs`) with Cedar's
 * WebAssembly and Handback's schema, and the variables that name them. A deployment without them bundles none of it.
 */

/** The policies' four settings (`functions/settings.ts`), by what each gives. */
const POLICY_SETTINGS = {
  policies,
  schema: policySchema,
  mode: policyMode,
  default: policyDefault,
  timeZone: policyTimeZone,
  version: policyVersion,
} as const;

/** The context keys of the policies, by the setting each gives. */
export const POLICY_CONTEXT = {
  policies: policies.context,
  schema: policySchema.context,
  mode: policyMode.context,
  default: policyDefault.context,
  timeZone: policyTimeZone.context,
  version: policyVersion.context,
} as const;

/** Where a function's asset holds the policy files, relative to its root (the task root on Lambda). */
const ASSET_DIR = 'policies';
const FILES = {
  policies: 'policies.cedar',
  schema: 'args.cedarschema',
  shipped: 'handback.cedarschema',
  wasm: CEDAR_WASM_FILE,
} as const;

/** The policies a stack bundles: the settings with absolute paths, checked, and a hash of what they hold. */
export interface PolicyBundle {
  settings: PolicySettings;
  /** How many policies the file holds. */
  size: number;
  /** sha256 of the files and settings: what the asset's bundling is keyed by. */
  hash: string;
}

/** A policy setting that cannot work, in one line naming its context key (`ConfigurationError` in `settings.ts`). */
export type PolicyRefusal = (message: string) => Error;

/**
 * The policies context names, loaded and validated now (the real Cedar); undefined when `handback:policies` is not
 * set. A file that cannot be read, parsed or validated is `refuse`d naming the key, the file, the line and column,
 * and Cedar's words.
 */
export function policyBundleOf(scope: Construct, refuse: PolicyRefusal): PolicyBundle | undefined {
  const given = Object.fromEntries(
    Object.entries(POLICY_CONTEXT).map(([setting, key]) => {
      const value: unknown = scope.node.tryGetContext(key);
      if (value !== undefined && value !== null && typeof value !== 'string') {
        throw refuse(`Context ${key} must be a string, not ${JSON.stringify(value)}.`);
      }
      return [setting, value?.trim() || undefined];
    }),
  ) as Record<keyof typeof POLICY_CONTEXT, string | undefined>;
  let settings: PolicySettings | undefined;
  try {
    settings = policySettingsFrom(given, {
      policies: `Context ${POLICY_CONTEXT.policies}`,
      schema: `Context ${POLICY_CONTEXT.schema}`,
      mode: `Context ${POLICY_CONTEXT.mode}`,
      default: `Context ${POLICY_CONTEXT.default}`,
      timeZone: `Context ${POLICY_CONTEXT.timeZone}`,
      version: `Context ${POLICY_CONTEXT.version}`,
    });
  } catch (error) {
    throw refuse((error as Error).message);
  }
  if (settings === undefined) return undefined;
  for (const key of ['policies', 'schema'] as const) {
    const file = settings[key];
    if (file === undefined) continue;
    try {
      readFileSync(resolve(file));
    } catch (error) {
      throw refuse(`Context ${POLICY_CONTEXT[key]} names ${file}, which cannot be read: ${(error as Error).message}`);
    }
  }
  let size: number;
  try {
    // Relative paths are the app's working directory's, as the CDK CLI runs it: the project's root.
    size = loadPolicyEngine(settings).size;
  } catch (error) {
    throw refuse(`Context ${POLICY_CONTEXT.policies}: ${(error as Error).message}`);
  }
  const absolute: PolicySettings = { ...settings, policies: resolve(settings.policies) };
  if (settings.schema !== undefined) absolute.schema = resolve(settings.schema);
  const hash = createHash('sha256');
  for (const file of [absolute.policies, absolute.schema]) hash.update(file === undefined ? '' : readFileSync(file));
  hash.update(`${absolute.mode}:${absolute.default}:${absolute.timeZone}:${absolute.version ?? ''}`);
  return { settings: absolute, size, hash: hash.digest('hex') };
}

/** Copies the policy files, Handback's schema and Cedar's WebAssembly into a function's asset directory. */
export function copyPolicyFiles(outputDir: string, bundle: PolicyBundle): void {
  const dir = join(outputDir, ASSET_DIR);
  mkdirSync(dir, { recursive: true });
  copyFileSync(bundle.settings.policies, join(dir, FILES.policies));
  if (bundle.settings.schema !== undefined) copyFileSync(bundle.settings.schema, join(dir, FILES.schema));
  copyFileSync(shippedSchemaPath(), join(dir, FILES.shipped));
  copyFileSync(cedarWasmPath(), join(dir, FILES.wasm));
}

/** The variables that tell a function where its asset's policy files are and how they apply (`functions/handlers/config.ts`). */
export function policyEnvironment(bundle: PolicyBundle): Record<string, string> {
  const at = (file: string) => `${ASSET_DIR}/${file}`;
  return {
    [POLICY_SETTINGS.policies.env]: at(FILES.policies),
    ...(bundle.settings.schema === undefined ? {} : { [POLICY_SETTINGS.schema.env]: at(FILES.schema) }),
    [POLICY_SETTINGS.mode.env]: bundle.settings.mode,
    [POLICY_SETTINGS.default.env]: bundle.settings.default,
    [POLICY_SETTINGS.timeZone.env]: bundle.settings.timeZone,
    ...(bundle.settings.version === undefined ? {} : { [POLICY_SETTINGS.version.env]: bundle.settings.version }),
    [cedarSchema.env]: at(FILES.shipped),
    [cedarWasm.env]: at(FILES.wasm),
  };
}
