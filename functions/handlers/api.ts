import { ALL_CHECKS } from '../checkpoints/checks.ts';
import { loadAnswerLinks } from './answer-links.ts';
import { createApiHandler } from './http-api.ts';
import { config, useCaseDeps } from './runtime.ts';

// The link key is read on first use, not here: a slow key store never holds up the function's init.
const links = loadAnswerLinks(config.linkSecretArn);
const deps = useCaseDeps(ALL_CHECKS);

/** The Lambda entry point; its dependencies are wired once, at cold start, in `runtime.ts`. */
export const handler = createApiHandler(links === undefined ? deps : { ...deps, links });
