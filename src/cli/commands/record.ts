import { EXIT, parseCommandArgs, type Command, CONFIG_OPTIONS } from '../command.ts';
import { runCommand } from './run.ts';

const USAGE = `usage: stratd record --out <recording.jsonl> [--config <file>] [--set key.path=value ...]
  Runs the pollers (and only them) and writes every snapshot they read to the file, one JSON line
  each after a header line with the format version; appends when the file exists. The snapshots
  also go to the market queue as usual, so the deployment's strategy workers see them: run it in
  place of the process that runs the pollers role, or use "stratd run --record <file>" on that
  process. Stops on SIGTERM/SIGINT. Replay with "stratd replay".
`;

export const recordCommand: Command = {
  name: 'record',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs('record', argv, USAGE, { ...CONFIG_OPTIONS, out: { type: 'string' } });
    if (typeof parsed === 'number') return parsed;
    if (!parsed.values.out) {
      process.stderr.write(`stratd record: --out <file> is required\n\n${USAGE}`);
      return EXIT.usage;
    }
    const rest = argv.filter((_, i) => argv[i] !== '--out' && argv[i - 1] !== '--out' && !argv[i]!.startsWith('--out='));
    return runCommand.run(['--role', 'pollers', '--record', parsed.values.out, ...rest]);
  },
};
