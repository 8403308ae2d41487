import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as cedar from '@cedar-policy/cedar-wasm/web';

/**
 * Cedar itself (`@cedar-policy/cedar-wasm`), the only module that imports it. Its `web` build is the one that takes
 * the WebAssembly bytes from us (`initSync`) instead of reading them beside itself: in a Lambda bundle this module is
 * a chunk loaded on first use and the `.wasm` is a file of the asset (`HANDBACK_CEDAR_WASM`), so a deployment without
 * policies reads neither.
 */

/**
 * The Cedar calls Handback makes. Its types are read from the `nodejs` build, the same API without the `web` build's
 * `initSync` input types (which name DOM's `RequestInfo` and `BufferSource`): the package's declarations then
 * type-check in a consumer project without the DOM library.
 */
export type Cedar = Omit<typeof CedarCalls, 'default'>;

import type * as CedarCalls from '@cedar-policy/cedar-wasm/nodejs';
import type { Type } from '@cedar-policy/cedar-wasm/nodejs';

export type {
  AuthorizationAnswer,
  DetailedError,
  EntityJson,
  PolicyJson,
  SchemaJson,
  SourceLocation,
} from '@cedar-policy/cedar-wasm/nodejs';

/** A type of the schema as JSON, its names as strings. */
export type CedarType = Type<string>;

/** The file name of Cedar's WebAssembly module, in the package and beside a bundle. */
export const CEDAR_WASM_FILE = 'cedar_wasm_bg.wasm';

/**
 * Where Cedar's WebAssembly module is: `given` (a bundle's own copy, `HANDBACK_CEDAR_WASM`; relative to `root`, else
 * the working directory), else the installed package's.
 */
export function cedarWasmPath(given?: string, root: string = process.cwd()): string {
  if (given !== undefined && given !== '') return isAbsolute(given) ? given : join(root, given);
  return fileURLToPath(new URL(CEDAR_WASM_FILE, import.meta.resolve('@cedar-policy/cedar-wasm/web')));
}

/** Cedar, its WebAssembly module compiled and instantiated once per process (a few hundred milliseconds, once). */
export function loadCedar(wasmPath: string = cedarWasmPath()): Cedar {
  cedar.initSync({ module: readFileSync(wasmPath) });
  return cedar;
}
