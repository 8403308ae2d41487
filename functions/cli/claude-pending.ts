import { parseArgs } from 'node:util';

/** `handback claude-pending`: the Claude Code calls deferred on this machine, and where their pauses stand (§22). */

/** One line for `handback --help`. */
export const summary = 'Lists the Claude Code calls the hook deferred on this machine, and where each pause stands.';

/** `handback claude-pending --help`. */
export const help = `Usage: handback claude-pending [--json]

Lists the calls handback claude-hook deferred on this machine (claude -p runs that ended with "tool_deferred"),
oldest first: when, the tool, the pause's state (waiting for a decision, or closed and waiting for
handback claude-resume), the session, its directory, and the pause with its inbox page.

  --json   one JSON array instead of lines

Environment: as handback claude-hook (HANDBACK_URL and HANDBACK_TOKEN, or a store; HANDBACK_STATE_DIR). Without
them the calls are listed with their state unknown.`;

/** Prints the list; 0, or 2 for arguments it does not take. */
export async function run(argv: string[]): Promise<number> {
  let json: boolean | undefined;
  try {
    ({
      values: { json },
    } = parseArgs({ args: argv, options: { json: { type: 'boolean' } } }));
  } catch (error) {
    process.stderr.write(`handback claude-pending: ${error instanceof Error ? error.message : error}; see --help.\n`);
    return 2;
  }
  const [{ AGENTS, BackendConfigError, backendFromEnv }, { pendingCalls, pendingLines }] = await Promise.all([
    import('../mcp/backend.ts'),
    import('../mcp/claude-pending.ts'),
  ]);
  let backend: Awaited<ReturnType<typeof backendFromEnv>> | undefined;
  try {
    backend = await backendFromEnv(process.env, AGENTS.claudeCode, { timeoutMs: 10_000 });
  } catch (error) {
    if (!(error instanceof BackendConfigError)) throw error;
    process.stderr.write(`handback claude-pending: ${error.message} Listing without the pauses' states.\n`);
  }
  try {
    const calls = await pendingCalls(process.env, backend);
    process.stdout.write(json ? `${JSON.stringify(calls, null, 2)}\n` : `${pendingLines(calls).join('\n')}\n`);
    return 0;
  } finally {
    await backend?.close();
  }
}
