import { useCaseDeps } from './runtime.ts';
import { createSweepHandler } from './triggers.ts';

/**
 * The Lambda entry point of the sweep, run every minute by a schedule; wired once, at cold start. The sweep closes
 * pauses with reminders, expiries and rejections, never with a person's answer, so its store runs none of the
 * pause or schema checks, and its bundle leaves them out.
 */
export const handler = createSweepHandler(useCaseDeps({}));
