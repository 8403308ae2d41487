import { ALL_CHECKS } from '../checkpoints/checks.ts';
import { parseChannelNames } from '../checkpoints/notify.ts';
import { mcpWaitMs } from '../mcp/backend.ts';
import * as S from '../settings.ts';
import { LIMITS } from '../vocabulary.ts';
import { settingOf } from './config.ts';
import { createApiHandler } from './http-api.ts';
import { createMcpRoute } from './mcp-http.ts';
import { useCaseDeps } from './runtime.ts';

/**
 * The Lambda entry point of `POST /mcp` (§18): the API's own router (the caller's token, tenant and scope decided in
 * its one place, errors as problems) with the MCP route's handler given, on a function of its own so the API
 * function's bundle and cold start carry no MCP SDK. A call waits at most `LIMITS.mcpWaitSeconds.http` (less with
 * `HANDBACK_MCP_WAIT_SECONDS`), inside API Gateway's 30 s.
 */
const channels = parseChannelNames(settingOf(S.channels));
const deps = { ...useCaseDeps(ALL_CHECKS), ...(channels.length === 0 ? {} : { channels }) };
const waitMs = mcpWaitMs(settingOf(S.mcpWaitSeconds), LIMITS.mcpWaitSeconds.http);

export const handler = createApiHandler(deps, { handlers: { mcp: createMcpRoute(deps, { waitMs }) } });
