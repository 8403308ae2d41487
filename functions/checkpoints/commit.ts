import { StorageUnavailableError } from '../errors.ts';
import type { CheckpointPersistence } from './persistence.ts';
import type { PauseRecord } from './record.ts';

/**
 * The one commit loop every change of a pause runs, a new pause's included: read, decide against what was read (a
 * pure change or a refusal), write conditionally on what was read — a new record only where its number is free, a
 * changed one only at the revision read — and on a lost race read again and decide again. No transactions: every
 * change is one conditional write of one record (§8).
 */

/** What a round writes: a new pause (with its transcript's bytes), or a change of the record it read. */
export type Write = { create: Uint8Array; after: PauseRecord } | { before: PauseRecord; after: PauseRecord };

/** A round's decision: a result without a write, a write and its result, or a read again. */
export type Step<T> =
  | { result: T; write?: undefined }
  | {
      write: Write;
      result: T;
      /** Runs once the write is in. */
      onWritten?: () => void;
      /** Bookkeeping only: no observer is told. */
      quiet?: boolean;
    }
  | { retry: true };

/** What the loop runs on. */
export interface CommitDeps {
  persistence: CheckpointPersistence;
  clock: () => Date;
  /** Told of every committed change that is not `quiet`. */
  changed: (before: PauseRecord | undefined, after: PauseRecord) => void;
}

/** Read-decide-write rounds one request runs at most before it gives up as overloaded (16 racers need 16). */
const WRITE_ROUNDS = 40;

/**
 * Runs `change` on what `read` reads (with the time, and the round, from 1) until its write is in or it needs none, at
 * most `rounds` times; then `give-up` returns undefined and `throw` (the default) throws `StorageUnavailableError`.
 */
export async function commit<S, T>(
  deps: CommitDeps,
  read: () => Promise<S>,
  change: (stored: S, nowMs: number, round: number) => Promise<Step<T>>,
  options: { rounds?: number; onOverload?: 'throw' | 'give-up' } = {},
): Promise<T> {
  const rounds = options.rounds ?? WRITE_ROUNDS;
  for (let round = 1; round <= rounds; round++) {
    const step = await change(await read(), deps.clock().getTime(), round);
    if ('retry' in step) continue;
    if (step.write === undefined) return step.result;
    const { write } = step;
    const before = 'before' in write ? write.before : undefined;
    const written =
      before === undefined
        ? (await deps.persistence.create(write.after, (write as { create: Uint8Array }).create)) === 'created'
        : (await deps.persistence.update(before, write.after)) === 'updated';
    if (!written) continue;
    if (step.quiet !== true) deps.changed(before, write.after);
    step.onWritten?.();
    return step.result;
  }
  if (options.onOverload === 'give-up') return undefined as T;
  throw new StorageUnavailableError(
    'The pause changed under this request more times than it retries; retry the same request, which is safe.',
  );
}
