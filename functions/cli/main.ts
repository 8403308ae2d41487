#!/usr/bin/env node
import { COMMANDS, type Command } from './commands.ts';

/**
 * The `handback` bin (package.json `bin`): `handback <command> [arguments]`, each command looked up in the table of
 * `commands.ts`. `handback --help` lists them; `handback <command> --help` prints that command's help.
 */

const [name, ...rest] = process.argv.slice(2);

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((command) => command.length));
  const lines = Object.entries(COMMANDS).map(([command, { summary }]) => `  ${command.padEnd(width)}  ${summary}`);
  return `Usage: handback <command> [arguments]\n\nCommands:\n${lines.join('\n')}\n\nRun handback <command> --help for a command's arguments.\n`;
}

async function main(): Promise<number> {
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? process.stderr : process.stdout).write(usage());
    return name === undefined ? 2 : 0;
  }
  const command: Command | undefined = Object.hasOwn(COMMANDS, name)
    ? COMMANDS[name as keyof typeof COMMANDS]
    : undefined;
  if (command === undefined) {
    process.stderr.write(`handback: no command ${JSON.stringify(name)}.\n\n${usage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.help);
    return 0;
  }
  return command.run(rest);
}

process.exitCode = await main();
