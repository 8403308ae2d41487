import { deps } from './runtime.ts';
import { createStepFunctionsHandler } from './triggers.ts';

/** The Lambda entry point; its dependencies are wired once, at cold start, in `runtime.ts`. */
export const handler = createStepFunctionsHandler(deps);
