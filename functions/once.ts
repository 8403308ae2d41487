/**
 * What is loaded on first use is loaded once per container: a module's promise, or a client made from one. A leaf
 * module (it imports nothing), shared by the hand-off's clients and the API's answer links.
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
