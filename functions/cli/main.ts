#!/usr/bin/env node
import { COMMANDS, type Command } from './commands.ts';

/**
 * The `handback` bin: looks its subcommand up in one table (`functions/cli/commands.ts`) and runs it.
 * `handback --help` lists the table; `handback <command> --help` prints the command's own help.
 */

const [name, ...argv] = process.argv.slice(2);
const usage = () =>
  [
    'Usage: handback <command> [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([command, { summary }]) => `  ${command.padEnd(16)}${summary}`),
    '',
    'handback <command> --help shows what a command takes.',
  ].join('\n');

let code: number;
if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
  console.log(usage());
  code = name === undefined ? 2 : 0;
} else if (!Object.hasOwn(COMMANDS, name)) {
  console.error(`handback: no command ${JSON.stringify(name)}.\n\n${usage()}`);
  code = 2;
} else {
  const command: Command = COMMANDS[name as keyof typeof COMMANDS];
  if (argv.includes('--help')) {
    console.log(command.help);
    code = 0;
  } else code = await command.run(argv);
}
process.exitCode = code;
