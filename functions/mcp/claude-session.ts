import { CLAUDE_RUN_PATTERN } from '../vocabulary.ts';

/**
 * A Claude Code session id (§22) is a UUID: the only form one may take before it names a run (`claude-<session>`)
 * or reaches a `claude --resume` command line, where anything else could be read as an option.
 */

/** Whether `id` is a Claude Code session id: a UUID. */
export function isSessionId(id: string | undefined): id is string {
  return id !== undefined && CLAUDE_RUN_PATTERN.test(`claude-${id}`);
}

/** The session of a Claude Code run id (`claude-<uuid>`), or undefined when it is not one. */
export function sessionOfRun(runId: string): string | undefined {
  return CLAUDE_RUN_PATTERN.exec(runId)?.groups?.session;
}
