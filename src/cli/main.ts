import type { Command } from './command.ts';
import { EXIT } from './command.ts';
import { apiCommand } from './commands/api.ts';
import { keygenCommand } from './commands/keygen.ts';
import { txCommand } from './commands/tx.ts';
import { pauseCommand, resumeCommand } from './commands/trading.ts';
import { actionsCommand } from './commands/actions.ts';
import { configCommand } from './commands/config.ts';
import { runCommand } from './commands/run.ts';
import { venueCommand } from './commands/venue.ts';

/** Every command of `stratd`. Add a command by adding its module here. */
const COMMANDS: readonly Command[] = [runCommand, apiCommand, txCommand, keygenCommand, pauseCommand, resumeCommand, actionsCommand, configCommand, venueCommand];

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help());
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`stratd: unknown command "${name}"\n\n${help()}`);
    return EXIT.usage;
  }
  return command.run(rest);
}

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `usage: stratd <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun "stratd <command> --help" for a command's options.\n`;
}
