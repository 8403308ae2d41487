import { CheckpointService, type CheckpointServiceOptions } from './checkpoint-service.ts';
import type { CheckpointStore } from './checkpoint-store.ts';
import { ALL_CHECKS } from './checks.ts';
import type { Codec } from './codec.ts';
import { MemoryPersistence } from './memory.ts';

/** What every checkpoint store is built with, whatever holds its records (`handback/dynamodb` adds its table). */
export interface CheckpointStoreOptions {
  /** The time now. @default () => new Date() */
  clock?: () => Date;
  /** Random bytes for ids. @default node:crypto randomBytes */
  randomBytes?: (size: number) => Uint8Array;
  /** The codec new checkpoints are compressed with; both are always readable. @default 'br' */
  codec?: Codec;
  /** Called after every committed change of a pause (lifecycle events); never awaited, never fails a request. */
  onChange?: CheckpointServiceOptions['onChange'];
  /** The checks the store runs, each loaded on first use (see `CheckpointChecks`). @default ALL_CHECKS */
  checks?: CheckpointServiceOptions['checks'];
  /**
   * The recipient domains (§16): an agent's pause names approvers by email, and email recipients, only inside them.
   * @default none
   */
  recipientDomains?: CheckpointServiceOptions['recipientDomains'];
  /**
   * The deployment's Cedar policies (§17), loaded on the first pause that needs them: e.g.
   * `() => import('handback/policies').then((m) => m.loadPolicyEngine({ policies: 'policies.cedar', … }))`.
   * @default - no policy applies
   */
  policies?: CheckpointServiceOptions['policies'];
  /**
   * The deployment's directory of persons (§20), read on each request: e.g. `readDirectoryFile('people.json')`.
   * @default none: tokens' subjects and Slack users are persons, an address alone is not
   */
  directory?: CheckpointServiceOptions['directory'];
  /** §21: the escalation ladder of asks no policy escalates (`parseLadder`). @default none */
  escalation?: CheckpointServiceOptions['escalation'];
}

/**
 * A checkpoint store in memory, with the same rules: for an agent's unit tests, never for production. Its module
 * imports nothing of the AWS SDK, so the package's root entry (which exports it) needs nothing but Node.
 */
export function createMemoryCheckpointStore(options: CheckpointStoreOptions = {}): CheckpointStore {
  return new CheckpointService({
    ...options,
    checks: options.checks ?? ALL_CHECKS,
    persistence: new MemoryPersistence(),
  });
}
