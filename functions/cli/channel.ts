/** `handback channel`: a Claude Code channel server relaying an interactive session's permission prompts (§22). */

/** One line for `handback --help`. */
export const summary =
  "Claude Code channel: an interactive session's permission prompts decided by people in Handback.";

/** `handback channel --help`. */
export const help = `Usage: handback channel   (as an MCP server of .mcp.json, loaded by Claude Code as a channel)

A Claude Code channel server (MCP over stdio, capabilities claude/channel and claude/channel/permission). Each
permission prompt Claude Code relays to it becomes one approval ask in run claude-<session> in Handback — the
policies, approvers, four eyes and quorum apply — and the first decision that settles it answers the prompt
(allow or deny). The terminal can still answer first; then, or when the session ends, the ask is cancelled
("answered at the terminal or closed").

.mcp.json:
  {"mcpServers": {"handback": {"command": "npx", "args": ["--no-install", "handback", "channel"],
     "env": {"HANDBACK_URL": "http://127.0.0.1:3000", "HANDBACK_TOKEN": "<agent token>"}}}}
Then: claude --dangerously-load-development-channels server:handback

Environment: HANDBACK_URL and HANDBACK_TOKEN (an agent token), or DYNAMODB_ENDPOINT with TABLE_NAME and
HANDBACK_TENANT; HANDBACK_INBOX_URL. Claude Code sets CLAUDE_CODE_SESSION_ID and CLAUDE_PROJECT_DIR.
See docs/claude-code.md.`;

/** Serves until the session ends (stdin closes, or Claude Code signals); 1 when it cannot start. */
export async function run(argv: string[]): Promise<number> {
  if (argv.length > 0) {
    process.stderr.write(`handback channel takes no arguments (got ${argv.join(' ')}); see --help.\n`);
    return 2;
  }
  const env = process.env;
  const [{ StdioServerTransport }, { AGENTS, BackendConfigError, backendFromEnv }, channel, session, transcript] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../mcp/backend.ts'),
      import('../mcp/channel.ts'),
      import('../mcp/claude-session.ts'),
      import('../mcp/claude-transcript.ts'),
    ]);
  const log = (line: string) => process.stderr.write(`handback channel: ${line}\n`);
  const sessionId = env.CLAUDE_CODE_SESSION_ID?.trim();
  if (!session.isSessionId(sessionId)) {
    log(
      `CLAUDE_CODE_SESSION_ID is ${sessionId === undefined ? 'not set' : `not a Claude Code session id (a UUID): ${sessionId}`}. Claude Code sets it when it starts the channel.`,
    );
    return 1;
  }
  const cwd = env.CLAUDE_PROJECT_DIR?.trim() || process.cwd();
  let backend: Awaited<ReturnType<typeof backendFromEnv>>;
  try {
    backend = await backendFromEnv(env, AGENTS.claudeCode, { timeoutMs: 10_000 });
  } catch (error) {
    log(error instanceof BackendConfigError ? error.message : String(error));
    return 1;
  }
  const relay = channel.createChannelRelay({
    backend,
    session: { id: sessionId, cwd },
    lastPrompt: () => transcript.lastUserPrompt(transcript.transcriptPathOf(env, cwd, sessionId)),
    log,
  });
  // Claude Code ends a channel with SIGINT and SIGTERM (SIGHUP first when the terminal closes), and kills it about
  // half a second later: the withdrawals go out at the first of them.
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    // Kept for every signal after the first too: a second one must not end the process before the withdrawals are out.
    for (const signal of ['SIGHUP', 'SIGINT', 'SIGTERM'] as const) process.on(signal, () => resolve());
  });
  await relay.server.connect(new StdioServerTransport());
  await ended;
  await relay.end();
  await backend.close();
  return 0;
}
