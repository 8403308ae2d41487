import { Duration } from 'aws-cdk-lib';

/** How often the sweep runs: the contract closes an expired pause within two minutes of `expiresAt` (§10). */
export const SWEEP_EVERY = Duration.minutes(1);

/**
 * The longest a due pause waits for the sweep: a tick every `SWEEP_EVERY`, and a sweep that runs at most as long
 * (its timeout). A workflow that waits on a pause keeps waiting at least this long past the pause's expiry, so that
 * the sweep, not the workflow's own timeout, closes it.
 */
export const SWEEP_BOUND = Duration.minutes(2);
