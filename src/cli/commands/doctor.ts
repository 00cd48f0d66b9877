import { KeyFileError } from '../../chain/signer.ts';
import { LocalKeypairSigner } from '../../chain/keys/local-keypair-signer.ts';
import { formatProblems, isConfigError, loadConfig } from '../../config/index.ts';
import { formatCheck, preflightOptions, runPreflight } from '../../ops/preflight.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';

const USAGE = `usage: stratd doctor [--json] [--config <file>] [--set key.path=value ...]
  Runs the preflight that "stratd run" runs before live and dry-run mode start: the API answers and
  accepts the key (one authenticated read), the RPC answers and is on the expected cluster
  (preflight.genesisHash), the wallet holds preflight.minLamports for fees, and the local clock is
  within preflight.maxClockSkewMs of the hosts'. Prints one line per check (a fix under each
  failure); exits 0 when every check passes, 1 otherwise. --json: the checks as a JSON array.
  Paper mode has no external hosts to check (its venue is stratd's own): it says so and exits 0.
`;

export const doctorCommand: Command = {
  name: 'doctor',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs('doctor', argv, USAGE, { ...CONFIG_OPTIONS, json: { type: 'boolean' } });
    if (typeof parsed === 'number') return parsed;
    const { values } = parsed;
    let config;
    try {
      ({ config } = loadConfig({ argv: configArgv(values) }));
    } catch (error) {
      if (isConfigError(error)) {
        process.stderr.write(`stratd doctor: the configuration has problems:\n${formatProblems(error.problems)}`);
        return EXIT.failed;
      }
      throw error;
    }
    if (config.mode === 'paper') {
      const note = 'paper mode: the simulated venue needs no preflight; set mode=live or mode=dry-run to check the real API and RPC';
      process.stdout.write(values.json ? `${JSON.stringify({ mode: 'paper', checks: [], note })}\n` : `${note}\n`);
      return EXIT.ok;
    }
    let wallet;
    try {
      // Only the public key is used; dry-run loads the key as the daemon does (never signing).
      wallet = (await LocalKeypairSigner.load({ mode: config.mode, keyFile: config.wallet.keyFile || undefined, keyEnv: config.wallet.keyEnv })).publicKey.toBase58();
    } catch (error) {
      if (error instanceof KeyFileError) {
        process.stderr.write(`stratd doctor: ${error.message}\n`);
        return EXIT.failed;
      }
      throw error;
    }
    const checks = await runPreflight(preflightOptions(config, wallet));
    const ok = checks.every((c) => c.ok);
    if (values.json) process.stdout.write(`${JSON.stringify({ mode: config.mode, ok, checks })}\n`);
    else process.stdout.write(`${checks.map((c) => `${formatCheck(c)}\n`).join('')}${ok ? 'all checks passed\n' : `${checks.filter((c) => !c.ok).length} check(s) failed\n`}`);
    return ok ? EXIT.ok : EXIT.failed;
  },
};
