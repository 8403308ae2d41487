import { parseChannelNames } from '../channels/notify.ts';
import { ALL_CHECKS } from '../checkpoints/checks.ts';
import { loadAnswerLinks } from './answer-links.ts';
import { createApiHandler } from './http-api.ts';
import { config, useCaseDeps } from './runtime.ts';

// The link key is read on first use, not here: a slow key store never holds up the function's init.
const links = loadAnswerLinks(config.linkSecretArn);
// The channels the stack turned on (§14): a pause's `notify` may name only these; their functions deliver.
const channels = parseChannelNames(process.env.HANDBACK_CHANNELS);
const deps = { ...useCaseDeps(ALL_CHECKS), ...(channels.length === 0 ? {} : { channels }) };

/** The Lambda entry point; its dependencies are wired once, at cold start, in `runtime.ts`. */
export const handler = createApiHandler(links === undefined ? deps : { ...deps, links });
