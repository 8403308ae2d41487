/** `handback claude-hook`: Claude Code's PreToolUse hook (§18). */

/** One line for `handback --help`. */
export const summary = 'Claude Code PreToolUse hook: defers a matched call until a person decides it in Handback.';

/** `handback claude-hook --help`. */
export const help = `Usage: handback claude-hook   (as a Claude Code PreToolUse hook command)

Reads the hook's JSON on stdin and prints its decision on stdout (hookSpecificOutput.permissionDecision):
  - a call seen first: pauses one approval ask in run claude-<session_id> (toolCallId: the tool_use_id) and
    answers "defer": claude -p exits with stop_reason "tool_deferred", and nothing keeps running;
  - run again by claude -p --resume <session>: "defer" while no one has decided, then "allow" with the decided
    input (approve or edit) or "deny" with the reason (reject, cancel, expiry). A decided call runs once: a second
    resume racing the first is denied ("already decided and handed to another run").
If Handback cannot be reached, or is not configured, the call is denied (fail closed), saying so.

Settings (.claude/settings.json), the matcher naming the tools people decide:
  {"hooks": {"PreToolUse": [{"matcher": "Write|Edit|Bash", "hooks": [{"type": "command",
     "command": "npx --no-install handback claude-hook || { echo 'Denied: the handback package is missing here (npm install handback), or its hook failed.' >&2; exit 2; }"}]}]}}
--no-install runs the handback this project installed, never a package fetched by name; without it, exit 2
makes Claude Code deny the call with that message.

Environment: HANDBACK_URL and HANDBACK_TOKEN (an agent token), or DYNAMODB_ENDPOINT with
TABLE_NAME and HANDBACK_TENANT; HANDBACK_INBOX_URL; HANDBACK_STATE_DIR (default ~/.handback: where deferred
sessions are noted for handback claude-resume). See docs/claude-code.md.`;

/** Reads stdin, prints the decision; exits 0 whatever it decided, as Claude Code reads JSON only then. */
export async function run(argv: string[]): Promise<number> {
  if (argv.length > 0) {
    process.stderr.write(`handback claude-hook takes no arguments (got ${argv.join(' ')}); see --help.\n`);
    return 2;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const { claudeHook } = await import('../mcp/claude-hook.ts');
  const output = await claudeHook(Buffer.concat(chunks).toString('utf8'), { env: process.env });
  process.stdout.write(`${JSON.stringify(output)}\n`);
  return 0;
}
