import { deps } from './runtime.ts';
import { createSweepHandler } from './triggers.ts';

/** The Lambda entry point of the sweep, run every minute by a schedule; wired once, at cold start. */
export const handler = createSweepHandler(deps);
