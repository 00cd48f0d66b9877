import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { formatProblems, isConfigError, loadConfig } from '../../config/index.ts';
import { paperOwnerPath, paperStateDir } from '../../daemon/paper-state-file.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';

const USAGE = `usage: stratd paper reset [--config <file>] [--set key=value]
  Starts paper trading over: deletes the saved venue state under ./var/venue (next to
  wallet.paperKeyFile: the paper wallet's
  balances and positions, the prices). The paper wallet key file is kept, so the next
  "stratd run" funds the same wallet again on a fresh venue. Stop the daemon first.
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
    const owner = paperOwnerPath(keyFile);
    if (existsSync(owner)) {
      const pid = Number(readFileSync(owner, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
        process.stderr.write(`stratd paper: the daemon (pid ${pid}) is running on this paper state and would save it again on exit; stop it first\n`);
        return EXIT.failed;
      }
    }
    const dir = paperStateDir(keyFile);
    const had = existsSync(dir);
    await rm(dir, { recursive: true, force: true });
    process.stdout.write(
      had
        ? `paper state deleted (${dir}); the next "stratd run" starts a fresh venue and funds the paper wallet (${config.wallet.paperKeyFile}, kept) again\n`
        : `no paper state under ${dir}; nothing to reset\n`,
    );
    return EXIT.ok;
  },
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
