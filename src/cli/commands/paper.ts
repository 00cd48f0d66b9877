import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { formatProblems, isConfigError, loadConfig } from '../../config/index.ts';
import { lockPaperFolder, PaperLockedError } from '../../paper/lock.ts';
import { paperStateDir } from '../../paper/state-file.ts';
import { createLogger } from '../../kernel/logger.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';

const USAGE = `usage: stratd paper reset [--config <file>] [--set key=value]
  Starts paper trading over: deletes the saved venue state under ./var/venue (next to
  wallet.paperKeyFile: the paper wallet's balances, positions, TP/SL requests and orders, the
  prices). The paper wallet key file is kept, so the next "stratd run" funds the same wallet
  again on a fresh venue. Refused while a daemon runs in that folder (./var/stratd.lock).
`;

export const paperCommand: Command = {
  name: 'paper',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs('paper', argv, USAGE, CONFIG_OPTIONS, true);
    if (typeof parsed === 'number') return parsed;
    if (parsed.positionals[0] !== 'reset' || parsed.positionals.length !== 1) {
      process.stderr.write(USAGE);
      return EXIT.usage;
    }
    let config;
    try {
      ({ config } = loadConfig({ argv: configArgv(parsed.values) }));
    } catch (error) {
      if (!isConfigError(error)) throw error;
      process.stderr.write(`stratd paper: the configuration has problems:\n${formatProblems(error.problems)}`);
      return EXIT.failed;
    }
    const keyFile = config.wallet.paperKeyFile;
    const dir = paperStateDir(keyFile);
    const had = existsSync(dir);
    if (had) {
      // The daemon's own lock: while one runs here it would write the state again on exit.
      let lock;
      try {
        lock = await lockPaperFolder({ paperKeyFile: keyFile, logger: createLogger({ level: config.log.level, format: config.log.format }) });
      } catch (error) {
        if (!(error instanceof PaperLockedError)) throw error;
        process.stderr.write(`stratd paper: ${error.message}\n`);
        return EXIT.failed;
      }
      try {
        await rm(dir, { recursive: true, force: true });
      } finally {
        await lock.release();
      }
    }
    process.stdout.write(
      had
        ? `paper state deleted (${dir}); the next "stratd run" starts a fresh venue and funds the paper wallet (${config.wallet.paperKeyFile}, kept) again\n`
        : `no paper state under ${dir}; nothing to reset\n`,
    );
    return EXIT.ok;
  },
};
