import { fileURLToPath } from 'node:url';
import type { Via } from '../functions/vocabulary.ts';

/** The repository root, resolved from this file so synthesis works from any working directory. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** An absolute path under the repository root. */
export function repoPath(relative: string): string {
  return fileURLToPath(new URL(`../${relative}`, import.meta.url));
}

/**
 * The Lambda entry points: one per trigger, each a thin handler over the same use cases; the sweep, the lifecycle
 * stream, the inbox page and the channels (§14); and the stack's own examples and helpers.
 */
export const ENTRY = {
  api: repoPath('functions/handlers/api.ts'),
  stepFunctions: repoPath('functions/handlers/step-functions.ts'),
  sqs: repoPath('functions/handlers/sqs.ts'),
  eventBridge: repoPath('functions/handlers/eventbridge.ts'),
  sweeper: repoPath('functions/handlers/sweeper.ts'),
  lifecycleEvents: repoPath('functions/handlers/lifecycle-events.ts'),
  inbox: repoPath('functions/handlers/inbox.ts'),
  mcp: repoPath('functions/handlers/mcp.ts'),
  slackEvents: repoPath('functions/handlers/slack-events.ts'),
  slackInteractions: repoPath('functions/handlers/slack-interactions.ts'),
  emailEvents: repoPath('functions/handlers/email-events.ts'),
  exampleAgent: repoPath('infra/example-agent/handler.ts'),
  durableExampleAgent: repoPath('infra/example-agent/durable-handler.ts'),
  tenantClaim: repoPath('infra/tenant-claim/handler.ts'),
} as const;

/**
 * The entry point each door (`VIAS`) comes in by on AWS: a link's decisions come through the API's function; the
 * library and the policies have none of their own (they run inside whichever function calls them).
 */
export const DOOR_ENTRY: Record<Via, string | undefined> = {
  api: ENTRY.api,
  link: ENTRY.api,
  slack: ENTRY.slackInteractions,
  'step-functions': ENTRY.stepFunctions,
  sqs: ENTRY.sqs,
  eventbridge: ENTRY.eventBridge,
  sweep: ENTRY.sweeper,
  library: undefined,
  policy: undefined,
};
