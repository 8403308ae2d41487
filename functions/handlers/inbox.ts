import { inboxSignIn, lambdaRuntime } from './config.ts';
import { createInboxHandler } from './inbox-http.ts';
import { JsonLogger } from './telemetry.ts';

/**
 * The Lambda entry point of the inbox page (§12): static files, no table, no AWS client — so no tracer or metrics
 * either (Lambda's own X-Ray segment still shows each invocation), only the logger for refused requests.
 */
export const handler = createInboxHandler(
  new JsonLogger({ serviceName: 'handback', runtime: lambdaRuntime }),
  inboxSignIn(),
);
