import { deps } from './runtime.ts';
import { createEventBridgeHandler } from './triggers.ts';

/** The Lambda entry point; its dependencies are wired once, at cold start, in `runtime.ts`. */
export const handler = createEventBridgeHandler(deps);
