import { parseArgs } from 'node:util';
import { Keypair } from '@solana/web3.js';
import { KeyFileError, writeKeyFile } from '../../chain/signer.ts';
import { EXIT, type Command } from '../command.ts';

const USAGE = `usage:
  stratd keygen --out <file> [--force]
      Writes a new wallet key file (solana-keygen JSON, mode 0600) and prints its public key.
      An existing file is never overwritten unless --force is given.
`;

export const keygenCommand: Command = {
  name: 'keygen',
  usage: USAGE,
  async run(argv) {
    let values;
    try {
      ({ values } = parseArgs({
        args: argv,
        options: {
          out: { type: 'string' },
          force: { type: 'boolean', default: false },
          help: { type: 'boolean', short: 'h', default: false },
        },
      }));
    } catch (error) {
      process.stderr.write(`stratd keygen: ${(error as Error).message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    if (values.help) {
      process.stdout.write(USAGE);
      return EXIT.ok;
    }
    if (!values.out) {
      process.stderr.write(`stratd keygen: --out <file> is required\n\n${USAGE}`);
      return EXIT.usage;
    }
    const keypair = Keypair.generate();
    try {
      await writeKeyFile(values.out, keypair, { force: values.force });
    } catch (error) {
      if (!(error instanceof KeyFileError)) throw error;
      process.stderr.write(`stratd keygen: ${error.message}\n`);
      return EXIT.failed;
    }
    process.stdout.write(`${keypair.publicKey.toBase58()}\n`);
    return EXIT.ok;
  },
};
