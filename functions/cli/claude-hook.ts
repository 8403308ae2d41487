/** `handback claude-hook`: Claude Code's PreToolUse hook (§18), and its PostToolUse hook reporting a claimed call's end (§19). */

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
As a PostToolUse (and PostToolUseFailure) hook it records how a call it allowed ended, so the inbox says
"ran at…"; it never blocks, and leaves every other call alone.

Settings (.claude/settings.json), the matcher naming the tools people decide:
  {"hooks": {"PreToolUse": [{"matcher": "Write|Edit|Bash", "hooks": [{"type": "command",
     "command": "npx --no-install handback claude-hook || { echo 'Denied: the handback package is missing here (npm install handback), or its hook failed.' >&2; exit 2; }"}]}],
   "PostToolUse": [{"matcher": "Write|Edit|Bash", "hooks": [{"type": "command", "command": "npx --no-install handback claude-hook"}]}],
   "PostToolUseFailure": [{"matcher": "Write|Edit|Bash", "hooks": [{"type": "command", "command": "npx --no-install handback claude-hook"}]}]}}
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
  const stdin = Buffer.concat(chunks).toString('utf8');
  const { claudeAfterHook, claudeHook } = await import('../mcp/claude-hook.ts');
  const output = AFTER.has(eventOf(stdin))
    ? await claudeAfterHook(stdin, { env: process.env })
    : await claudeHook(stdin, { env: process.env });
  process.stdout.write(`${JSON.stringify(output)}\n`);
  return 0;
}

/** The hook events after a call ran (§19): how it ended is reported. Everything else is read as `PreToolUse`. */
const AFTER = new Set<string | undefined>(['PostToolUse', 'PostToolUseFailure']);

function eventOf(stdin: string): string | undefined {
  try {
    const name = (JSON.parse(stdin) as { hook_event_name?: unknown } | null)?.hook_event_name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}
