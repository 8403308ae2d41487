/**
 * A value read on first use, not at cold start (a secret: the answer-link key, Slack's bot token and signing secret),
 * so a slow or failing store costs only the requests that need it: kept `ttlMs` (so a rotated value is picked up),
 * one read at a time however many requests wait. A failed read is remembered `failureTtlMs` (requests meanwhile fail
 * fast, with the error `unavailable` makes), unless a value read before is still at hand: then that one goes on
 * serving until a read succeeds.
 */

/** How a cached read behaves; the defaults are the ones `docs/choices.md` explains for the link key. */
export interface CachedReadOptions {
  /** How long a value read is used before it is read again. @default 300_000 (5 minutes) */
  ttlMs?: number;
  /** How long a failed read is remembered before the next request tries again. @default 5_000 */
  failureTtlMs?: number;
  /** Milliseconds since the epoch; for tests. */
  now?: () => number;
  /** Told of each failed read (never the value). */
  onFailure?: (error: unknown) => void;
}

/** The error a request gets while no value can be had: in `retryInMs`, with the read's own error when there is one. */
export type Unavailable = (retryInMs: number, cause?: unknown) => Error;

/** `load`, read when first asked for and cached as `options` say. */
export function createCachedRead<T>(
  load: () => Promise<T>,
  unavailable: Unavailable,
  options: CachedReadOptions = {},
): () => Promise<T> {
  const ttlMs = options.ttlMs ?? 300_000;
  const failureTtlMs = options.failureTtlMs ?? 5_000;
  const now = options.now ?? Date.now;
  let value: { current: T } | undefined;
  let freshUntil = 0;
  let failedUntil = 0;
  let reading: Promise<T> | undefined;

  const read = async (): Promise<T> => {
    try {
      const loaded = await load();
      value = { current: loaded };
      freshUntil = now() + ttlMs;
      failedUntil = 0;
      return loaded;
    } catch (error) {
      options.onFailure?.(error);
      failedUntil = now() + failureTtlMs;
      if (value !== undefined) return value.current;
      throw unavailable(failureTtlMs, error);
    } finally {
      reading = undefined;
    }
  };

  return async () => {
    const at = now();
    if (value !== undefined && at < freshUntil) return value.current;
    if (at < failedUntil) {
      if (value !== undefined) return value.current;
      throw unavailable(failedUntil - at);
    }
    reading ??= read();
    return reading;
  };
}
