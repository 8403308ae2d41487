/**
 * What is loaded or made on first use is so once per container: a module's promise, a client made from one, or a
 * value made without waiting. A leaf module (it imports nothing), shared by the hand-off's clients, the API's answer
 * links and the deferred schemas.
 */

/**
 * `make` run on the first call and its promise kept, so every later or concurrent call gets the same one; a failure
 * is not kept, so the next call tries again.
 */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    if (made === undefined) {
      made = make();
      made.catch(() => {
        made = undefined;
      });
    }
    return made;
  };
}

/**
 * `make` run on the first call and its value kept, for what is made without waiting: fields several schemas spread
 * (`z.fields`), a deferred schema (`z.defer`), the MCP tools as `tools/list` lists them.
 */
export function onceSync<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
