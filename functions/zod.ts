import { config } from 'zod/mini';
import { globalConfig, globalRegistry } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';
import { onceSync } from './once.ts';

/**
 * zod for all of functions/: `zod/mini`, the tree-shakeable functional API (the classic `z` namespace keeps all of
 * zod in every Lambda bundle). Import it as `import * as z from './zod.ts'`, never from 'zod/mini' directly: a
 * namespace import only keeps what is used, and this module loads the English locale, which zod/mini leaves out, once
 * and only when none is configured yet, as the classic API does. Without it every issue reads "Invalid input".
 */
if (!globalConfig.localeError) config(en());

export * from 'zod/mini';

/**
 * A schema built by its first use, not at import: `export const x = z.defer(() => z.object({ … }))` is `x` in every
 * way a caller sees (parse, check, compose, JSON Schema, `instanceof`), built once, when something first reads it.
 * Building schemas was most of what a function's own init spent its time on (§23): those of every input and view,
 * where one request parses a few. A deferred schema composed of deferred ones builds none of them until it is used.
 *
 * The deferred schema stands for the built one wherever zod keeps a schema's identity: a schema derived from it
 * (`check`, `clone`) has it as its parent, `register` and `apply` are given it, and its metadata (`z.meta`,
 * `z.describe`) is the built schema's, so JSON Schema (a registry's `$ref`s among them) is what the built one gives.
 */
export function defer<T extends object>(make: () => T): T {
  // Before its first use the deferred schema is an object with the methods below and, as its prototype, a proxy that
  // builds the schema on any other read. Building makes it an ordinary object: the built schema's own properties
  // (`_zod` shared), these methods over theirs, the built schema's prototype. So every later use — a parent schema
  // reading its `_zod` on each parse among them — is a plain property read, no proxy trap.
  const schema = onceSync((): T => {
    const built = make();
    const properties = Object.getOwnPropertyDescriptors(built);
    for (const key of Object.keys(own)) delete properties[key];
    Object.defineProperties(deferred, properties);
    Object.setPrototypeOf(deferred, Object.getPrototypeOf(built));
    const meta = globalRegistry.get(built as never);
    if (meta !== undefined) globalRegistry.add(deferred as never, meta);
    return built;
  });
  type Derived = { _zod?: { parent?: unknown } } | undefined;
  const derive =
    (method: 'check' | 'clone') =>
    (...args: unknown[]) => {
      const derived = (Reflect.get(schema(), method) as (...given: unknown[]) => Derived)(...args);
      if (derived?._zod !== undefined && derived._zod.parent === schema()) derived._zod.parent = deferred;
      return derived;
    };
  // zod binds these to the built schema; each derives from, registers or hands on `deferred` instead.
  const own: Record<string, unknown> = {
    check: derive('check'),
    with: derive('check'),
    clone: derive('clone'),
    brand: () => deferred,
    register: (registry: { add: (schema: unknown, meta: unknown) => unknown }, meta: unknown) => {
      registry.add(deferred, meta);
      return deferred;
    },
    apply: (fn: (schema: unknown, ...rest: unknown[]) => unknown, ...rest: unknown[]) => fn(deferred, ...rest),
  };
  const ordinary = (): object => {
    schema();
    return deferred;
  };
  const building = new Proxy(Object.create(null) as object, {
    get: (_, key) => Reflect.get(ordinary(), key),
    has: (_, key) => Reflect.has(ordinary(), key),
    set: (_, key, value) => Reflect.set(ordinary(), key, value),
    getPrototypeOf: () => Reflect.getPrototypeOf(ordinary()),
  });
  const deferred = Object.create(building, Object.getOwnPropertyDescriptors(own)) as T;
  return deferred;
}

/**
 * Fields several deferred schemas spread (`{ ...fields() }`), built when the first of them is and shared by the rest,
 * so a module's shapes build nothing at import either.
 */
export function fields<T extends object>(make: () => T): () => T {
  return onceSync(make);
}
