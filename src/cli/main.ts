import type { Command } from './command.ts';
import { EXIT } from './command.ts';
import { versionLine } from '../kernel/runtime.ts';

interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  /** Loaded on use only: `stratd actions` need not load the venue, web3.js or BullMQ. */
  readonly load: () => Promise<Command>;
}

/** Every command of `stratd`. Add a command by adding its entry here. */
const COMMANDS: readonly CommandEntry[] = [
  { name: 'run', summary: 'Run the daemon (paper mode by default)', load: async () => (await import('./commands/run.ts')).runCommand },
  { name: 'doctor', summary: 'Check the API, RPC, cluster, fee balance and clock as live/dry-run start does', load: async () => (await import('./commands/doctor.ts')).doctorCommand },
  { name: 'actions', summary: 'Print the ledger of decisions and action state changes', load: async () => (await import('./commands/actions.ts')).actionsCommand },
  { name: 'status', summary: 'The status page as text: trading state, positions, distances, TP/SL coverage, actions', load: async () => (await import('./commands/status.ts')).statusCommand },
  { name: 'pause', summary: 'Kill switch: halt trading (or --reducing) in every process', load: async () => (await import('./commands/trading.ts')).pauseCommand },
  { name: 'resume', summary: 'Resume trading after a pause, a loss stop or a circuit breaker', load: async () => (await import('./commands/trading.ts')).resumeCommand },
  { name: 'reload', summary: 'Re-read configuration and strategies in every process (as SIGHUP does)', load: async () => (await import('./commands/reload.ts')).reloadCommand },
  { name: 'record', summary: 'Run the pollers and write every snapshot to a recording', load: async () => (await import('./commands/record.ts')).recordCommand },
  { name: 'replay', summary: 'Run strategies over a recording and print their intents', load: async () => (await import('./commands/replay.ts')).replayCommand },
  { name: 'backtest', summary: 'Replay a recording against a simulated venue, executing intents, and report per strategy', load: async () => (await import('./commands/backtest.ts')).backtestCommand },
  { name: 'config', summary: 'Check, show and document the configuration', load: async () => (await import('./commands/config.ts')).configCommand },
  { name: 'venue', summary: 'Run the simulated venue (trading API + JSON-RPC chain) for paper trading and tests', load: async () => (await import('./commands/venue.ts')).venueCommand },
  { name: 'act', summary: 'Carry out one action by hand (open, close, swap, ...) through the executor, with a preview and confirmation', load: async () => (await import('./commands/act.ts')).actCommand },
  { name: 'tx', summary: 'Inspect a transaction against the signing policy', load: async () => (await import('./commands/tx.ts')).txCommand },
  { name: 'paper', summary: 'Paper trading: "paper reset" starts over (fresh venue, wallet kept)', load: async () => (await import('./commands/paper.ts')).paperCommand },
  { name: 'keygen', summary: 'Create a new wallet key file (mode 0600)', load: async () => (await import('./commands/keygen.ts')).keygenCommand },
  { name: 'strategy', summary: 'Start a new strategy: a commented starter and its test', load: async () => (await import('./commands/strategy.ts')).strategyCommand },
  { name: 'api', summary: 'List, call and check the operations of the trading API', load: async () => (await import('./commands/api.ts')).apiCommand },
];

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help());
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`${versionLine()}\n`);
    return EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(`stratd: unknown command "${name}"\n\n${help()}`);
    return EXIT.usage;
  }
  const command = await entry.load();
  return command.run(rest);
}

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `usage: stratd <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun "stratd <command> --help" for a command's options.\n`;
}
