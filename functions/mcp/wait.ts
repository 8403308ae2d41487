import type { PauseView } from '../wire.ts';
import { isClosed } from './permission.ts';

/**
 * Waiting for people inside one tool call (§18): the pause is read again and again (strongly consistent, each read
 * one GET) until it closes or the wait is over, with a beat in between that keeps the caller's client from giving up
 * (MCP progress notifications). The pause never depends on the wait: past it, the pause stays open and decidable.
 */

/** How long and how often. */
export interface WaitOptions {
  /** The longest wait, in milliseconds. */
  waitMs: number;
  /** Between two reads. @default 1000 */
  pollMs?: number;
  /** Between two beats. @default 5000 (twice as often as the 10 s the contract promises) */
  beatMs?: number;
  /** Called every `beatMs` while waiting, with the milliseconds waited; its failure never ends the wait. */
  onBeat?: (waitedMs: number) => unknown;
  /** Ends the wait early (the caller went away). */
  signal?: AbortSignal;
}

/** Reads the pause until it closes or `waitMs` passes; returns the last view read (still `paused` past the wait). */
export async function waitForClose(read: () => Promise<PauseView>, options: WaitOptions): Promise<PauseView> {
  const started = Date.now();
  const pollMs = options.pollMs ?? 1000;
  const beat =
    options.onBeat === undefined
      ? undefined
      : setInterval(() => {
          Promise.resolve()
            .then(() => options.onBeat?.(Date.now() - started))
            .catch(() => {});
        }, options.beatMs ?? 5000);
  try {
    for (;;) {
      const view = await read();
      const left = options.waitMs - (Date.now() - started);
      if (isClosed(view) || left <= 0 || options.signal?.aborted) return view;
      await sleep(Math.min(pollMs, left), options.signal);
    }
  } finally {
    if (beat !== undefined) clearInterval(beat);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
