import { createApiHandler } from './http-api.ts';
import { deps } from './runtime.ts';

/** The Lambda entry point; its dependencies are wired once, at cold start, in `runtime.ts`. */
export const handler = createApiHandler(deps);
