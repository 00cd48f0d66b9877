import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { writeKeyFile } from '../chain/signer.ts';
import type { Logger } from '../kernel/logger.ts';

/** Creates the paper wallet's key file when it does not exist yet. */
export async function ensurePaperWallet(path: string, logger: Logger): Promise<void> {
  if (existsSync(path)) return;
  await mkdir(dirname(path), { recursive: true });
  const keypair = Keypair.generate();
  await writeKeyFile(path, keypair);
  logger.info({ path, publicKey: keypair.publicKey.toBase58() }, 'paper mode: new paper wallet');
}

