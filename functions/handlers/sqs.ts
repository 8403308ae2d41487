import { useCaseDeps } from './runtime.ts';
import { createSqsHandler } from './triggers.ts';

/**
 * The Lambda entry point; its dependencies are wired once, at cold start, in `runtime.ts`. It resumes, decides and
 * cancels but never records a pause, so its store runs only the answers' schema checks.
 */
export const handler = createSqsHandler(useCaseDeps({ schemas: () => import('../checkpoints/json-schema/index.ts') }));
