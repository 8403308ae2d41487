import { createInboxHandler } from './inbox-http.ts';
import { logger } from './observability.ts';

/** The Lambda entry point of the inbox page (§12): static files, no table, no AWS client. */
export const handler = createInboxHandler(logger);
