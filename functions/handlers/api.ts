import { createApiHandler } from './http-api.ts';
import { deps, loadAnswerLinks } from './runtime.ts';

const links = await loadAnswerLinks();

/** The Lambda entry point; its dependencies are wired once, at cold start, in `runtime.ts`. */
export const handler = createApiHandler(links === undefined ? deps : { ...deps, links });
