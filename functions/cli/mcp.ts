/** `handback mcp`: Handback's MCP server over stdio (§18). */
import { LIMITS } from '../vocabulary.ts';

/** One line for `handback --help`. */
export const summary = 'MCP server over stdio: request_permission and ask_person, decided by people in Handback.';

/** `handback mcp --help`. */
export const help = `Usage: handback mcp

An MCP server over stdio with two tools, both decided by people in Handback (the inbox, Slack, email):
  request_permission  Claude Code's permission prompt: {tool_name, input, tool_use_id?, prompt?}
                      -> {"behavior":"allow","updatedInput":...} or {"behavior":"deny","message":...}
  ask_person          {question, schema?, prompt?, ask_id?} -> the person's answer as JSON

Each call waits for people, sending progress notifications, for HANDBACK_MCP_WAIT_SECONDS (default ${LIMITS.mcpWaitSeconds.default}); past
that it answers that the pause still waits (request_permission: deny with "interrupt": true), and the same
tool_use_id (or ask_id) asked again gets the decision.

Environment:
  HANDBACK_URL, HANDBACK_TOKEN  a Handback service and an agent token (scope handback/agent)
  DYNAMODB_ENDPOINT, TABLE_NAME without a URL: the store the service runs on
  HANDBACK_TENANT               with a store: the tenant (default "${LIMITS.defaultTenant}")
  HANDBACK_INBOX_URL            where people decide, for the messages (default <HANDBACK_URL>/inbox)
  HANDBACK_MCP_WAIT_SECONDS     how long one call waits (default ${LIMITS.mcpWaitSeconds.default})

Claude Code: claude -p --mcp-config .mcp.json --permission-prompt-tool mcp__handback__request_permission
See docs/mcp.md and docs/claude-code.md.`;

/** Serves until the client closes stdin. */
export async function run(argv: string[]): Promise<number> {
  if (argv.length > 0) {
    process.stderr.write(`handback mcp takes no arguments (got ${argv.join(' ')}); see handback mcp --help.\n`);
    return 2;
  }
  const [{ runStdioServer }, { BackendConfigError }] = await Promise.all([
    import('../mcp/stdio.ts'),
    import('../mcp/backend.ts'),
  ]);
  try {
    return await runStdioServer(process.env);
  } catch (error) {
    // stdout is the protocol's: what went wrong goes to stderr, which MCP clients show or log.
    process.stderr.write(`handback mcp: ${error instanceof BackendConfigError ? error.message : error}\n`);
    return 1;
  }
}
