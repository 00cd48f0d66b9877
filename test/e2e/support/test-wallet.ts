import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { writeKeyFile } from '../../../src/chain/signer.ts';

/** A wallet whose secret the test knows: a solana-keygen key file in a private temporary directory. */
export interface TestWallet {
  readonly keypair: Keypair;
  readonly publicKey: string;
  readonly keyFile: string;
  remove(): Promise<void>;
}

export async function createTestWallet(label: string): Promise<TestWallet> {
  const dir = await mkdtemp(join(tmpdir(), `stratd-e2e-safety-${label}-`));
  const keypair = Keypair.generate();
  const keyFile = join(dir, 'wallet.json');
  await writeKeyFile(keyFile, keypair);
  return {
    keypair,
    publicKey: keypair.publicKey.toBase58(),
    keyFile,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
