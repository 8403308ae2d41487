import { fileURLToPath } from 'node:url';

/** The repository root, resolved from this file so synthesis works from any working directory. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** An absolute path under the repository root. */
export function repoPath(relative: string): string {
  return fileURLToPath(new URL(`../${relative}`, import.meta.url));
}

/** The Lambda entry points, one per trigger; each is a thin handler over the same resume use case. */
export const ENTRY = {
  api: repoPath('functions/handlers/api.ts'),
  stepFunctions: repoPath('functions/handlers/step-functions.ts'),
  sqs: repoPath('functions/handlers/sqs.ts'),
  eventBridge: repoPath('functions/handlers/eventbridge.ts'),
  exampleAgent: repoPath('infra/example-agent/handler.ts'),
} as const;
