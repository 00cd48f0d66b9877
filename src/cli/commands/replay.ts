import { formatProblems, isConfigError, loadConfig } from '../../config/index.ts';
import { loadStrategies } from '../../pipeline/strategy-runtime/loader.ts';
import { readRecording, RecordingError } from '../../records/recording.ts';
import { replay } from '../../replay/replay.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';

const USAGE = `usage: stratd replay <recording.jsonl> [--strategy <name> ...] [--config <file>] [--set key.path=value ...]
  Runs strategies over a recording (stratd record, stratd run --record) with the recorded clock,
  through the same decision code as the strategy worker, and prints one JSON line per intent
  (and per strategy failure), in order. Nothing is executed. Settings come from the configuration
  (strategies.settings.<name>, --set to try others); without --strategy, strategies.enabled run.
  The same recording and settings print the same bytes.
`;

export const replayCommand: Command = {
  name: 'replay',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs('replay', argv, USAGE, { ...CONFIG_OPTIONS, strategy: { type: 'string', multiple: true } }, true);
    if (typeof parsed === 'number') return parsed;
    const [file, ...extra] = parsed.positionals;
    if (!file || extra.length > 0) {
      process.stderr.write(`stratd replay: give exactly one recording file\n\n${USAGE}`);
      return EXIT.usage;
    }
    const loaded = await loadReplayInputs('replay', file, parsed.values);
    if (typeof loaded === 'number') return loaded;
    await replay({ ...loaded, onEvent: (event) => process.stdout.write(`${JSON.stringify(event)}\n`) });
    return EXIT.ok;
  },
};

/** The recording and the strategies to run over it; prints the problem and answers an exit code when either is unusable. */
export async function loadReplayInputs(name: string, file: string, values: { config?: string; set?: string[]; strategy?: string[] }) {
  let config;
  try {
    ({ config } = loadConfig({ argv: configArgv(values) }));
  } catch (error) {
    if (!isConfigError(error)) throw error;
    process.stderr.write(`stratd ${name}: the configuration has problems:\n${formatProblems(error.problems)}`);
    return EXIT.failed;
  }
  let recording;
  try {
    recording = await readRecording(file);
  } catch (error) {
    if (!(error instanceof RecordingError)) throw error;
    process.stderr.write(`stratd ${name}: ${error.message}\n`);
    return EXIT.failed;
  }
  const enabled = values.strategy && values.strategy.length > 0 ? values.strategy.flatMap((s) => s.split(',')).map((s) => s.trim()) : config.strategies.enabled;
  const settings = Object.fromEntries(Object.entries(config.strategies.settings).filter(([key]) => enabled.includes(key)));
  const { strategies, problems, skipped } = await loadStrategies({ dir: config.strategies.dir, modules: config.strategies.modules, enabled, settings });
  for (const p of skipped) process.stderr.write(`stratd ${name}: skipped ${p.path}: ${p.message}\n`);
  if (problems.length > 0) {
    process.stderr.write(`stratd ${name}: cannot load strategies:\n${formatProblems(problems)}`);
    return EXIT.failed;
  }
  return { snapshots: recording.snapshots, balances: recording.balances, strategies, timeoutMs: config.strategies.timeoutMs, header: recording.header, config };
}
