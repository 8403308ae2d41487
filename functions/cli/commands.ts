import * as claudeHook from './claude-hook.ts';
import * as claudeResume from './claude-resume.ts';
import * as mcp from './mcp.ts';

/**
 * The `handback` bin's commands, in one table: `main.ts` looks each up here. A command is a module of its own
 * exporting its one-line summary, its help and `run`; it loads what it needs when it runs, so `handback --help` and
 * the commands that start often (a hook runs before every matched tool call) load nothing else.
 */

/** One command of the bin. */
export interface Command {
  /** One line for `handback --help`. */
  summary: string;
  /** What `handback <command> --help` prints. */
  help: string;
  /** Runs it with the arguments after its name; resolves with the exit code. */
  run(argv: string[]): Promise<number>;
}

/** Every command, by name. */
export const COMMANDS = {
  mcp,
  'claude-hook': claudeHook,
  'claude-resume': claudeResume,
} as const satisfies Record<string, Command>;
