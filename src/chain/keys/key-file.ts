import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Keypair } from '@solana/web3.js';
import { KeyFileError } from './key-file-error.ts';
import { keypairFromSecretText } from './secret-key-text.ts';

/** How the daemon runs; only live mode insists on a private key file. */
export type SignerMode = 'live' | 'paper' | 'dry-run';

// A solana-keygen file is about 230 bytes; anything far larger is not a key file.
const MAX_KEY_FILE_BYTES = 4096;
const GROUP_OR_OTHER_BITS = 0o077;
const PRIVATE_FILE_MODE = 0o600;

/**
 * Reads a key file once. The checks run on the opened descriptor (no race between check and
 * read); in live mode a file that group or others may access is refused.
 */
export async function readKeyFile(path: string, mode: SignerMode): Promise<Keypair> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new KeyFileError('not_found', path, 'the key file does not exist');
    throw new KeyFileError('unreadable', path, `the key file cannot be opened (${code ?? 'error'})`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new KeyFileError('not_a_file', path, 'the key path is not a regular file');
    if (stats.size > MAX_KEY_FILE_BYTES) throw new KeyFileError('too_large', path, `the key file has ${stats.size} bytes; a key file has about 230`);
    if (mode === 'live' && process.platform !== 'win32' && (stats.mode & GROUP_OR_OTHER_BITS) !== 0) {
      const octal = (stats.mode & 0o777).toString(8).padStart(3, '0');
      throw new KeyFileError('insecure_permissions', path, `the key file has mode ${octal}; live mode requires that only the owner can access it (chmod 600 ${path})`);
    }
    const buffer = await handle.readFile();
    try {
      return keypairFromSecretText(buffer.toString('utf8'), path);
    } finally {
      buffer.fill(0);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Writes a key pair as solana-keygen JSON with mode 0600. Without `force` an existing file is
 * never touched; with it, the new key goes to a private temporary file renamed over the old one.
 */
export async function writeKeyFile(path: string, keypair: Keypair, options: { force?: boolean } = {}): Promise<void> {
  const target = options.force ? join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`) : path;
  const text = Buffer.from(`${JSON.stringify(Array.from(keypair.secretKey))}\n`, 'utf8');
  let handle;
  try {
    handle = await open(target, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new KeyFileError('exists', path, 'a file already exists there; pass --force to replace it');
    throw new KeyFileError('unwritable', path, `the key file cannot be created (${code ?? 'error'})`);
  }
  try {
    // The umask may only remove bits; chmod makes the mode exactly 0600 either way.
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(target, { force: true });
    throw new KeyFileError('unwritable', path, `the key file cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  } finally {
    text.fill(0);
  }
  await handle.close();
  if (target !== path) await rename(target, path);
}
