import * as channel from './channel.ts';
import * as claudeHook from './claude-hook.ts';
import * as claudePending from './claude-pending.ts';
import * as claudeResume from './claude-resume.ts';
import * as mcp from './mcp.ts';
import * as policies from './policies.ts';
import * as start from './start.ts';

/** One subcommand of the `handback` bin: a line for `handback --help`, its own help, and what it does. */
export interface Command {
  /** One line, shown in `handback --help`. */
  summary: string;
  /** What `handback <command> --help` prints. */
  help: string;
  /** Runs the command with the arguments after its name; resolves with the process's exit code. */
  run(argv: string[]): Promise<number>;
}

/** The `handback` bin's subcommands, by name: one module each (`functions/cli/<name>.ts`), one line here. */
export const COMMANDS = {
  start,
  mcp,
  channel,
  'claude-hook': claudeHook,
  'claude-resume': claudeResume,
  'claude-pending': claudePending,
  policies,
} as const satisfies Record<string, Command>;
