import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';
import type { Keypair, PublicKey } from '@solana/web3.js';
import type { TransactionSigner } from './transaction-signer.ts';
import { readKeyFile, type SignerMode } from './key-file.ts';
import { KeyFileError } from './key-file-error.ts';
import { keypairFromSecretText } from './secret-key-text.ts';
import { SignerError } from './signer-error.ts';

interface LoadSignerOptions {
  readonly mode: SignerMode;
  /** Path of a solana-keygen key file; preferred over the environment variable. */
  readonly keyFile?: string;
  /** Name of the variable holding the key (JSON array or base58). Default STRATD_WALLET_KEY. */
  readonly keyEnv?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Delete the variable once read, so child processes and later readers never see it. Default true. */
  readonly scrubEnv?: boolean;
}

const DEFAULT_KEY_ENV = 'STRATD_WALLET_KEY';

/** The DER header of a PKCS#8 Ed25519 private key (RFC 8410), followed by the 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The hot wallet key, held in a private field: it is not enumerable, JSON.stringify and
 * util.inspect show only the public key, and no error this class raises carries key material.
 * It exposes the public key and signing, nothing else.
 */
export class LocalKeypairSigner implements TransactionSigner {
  readonly publicKey: PublicKey;
  readonly mode: SignerMode;
  readonly #privateKey: KeyObject;

  private constructor(keypair: Keypair, mode: SignerMode) {
    // Held as an OpenSSL key: Node's native Ed25519 signs in ~0.02 ms where web3.js's JavaScript
    // implementation takes ~0.5 ms (more before it is warm), on the path from decision to send.
    // Ed25519 is deterministic: the signature is byte for byte the one tx.sign would make.
    const der = Buffer.concat([PKCS8_ED25519_PREFIX, keypair.secretKey.subarray(0, 32)]);
    try {
      this.#privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    } finally {
      der.fill(0); // no second copy of the seed left on the heap
    }
    this.publicKey = keypair.publicKey;
    this.mode = mode;
  }

  static async fromKeyFile(path: string, options: { mode: SignerMode }): Promise<LocalKeypairSigner> {
    return new LocalKeypairSigner(await readKeyFile(path, options.mode), options.mode);
  }

  static fromEnv(name: string, options: { mode: SignerMode; env?: NodeJS.ProcessEnv; scrubEnv?: boolean }): LocalKeypairSigner {
    const env = options.env ?? process.env;
    const text = env[name];
    if (text === undefined || text.trim() === '') throw new KeyFileError('missing', name, 'the environment variable is not set');
    if (options.scrubEnv ?? true) delete env[name];
    return new LocalKeypairSigner(keypairFromSecretText(text, name), options.mode);
  }

  /** Loads the key once: from the key file when one is configured, else from the variable. */
  static async load(options: LoadSignerOptions): Promise<LocalKeypairSigner> {
    if (options.keyFile) return LocalKeypairSigner.fromKeyFile(options.keyFile, options);
    const name = options.keyEnv ?? DEFAULT_KEY_ENV;
    const env = options.env ?? process.env;
    if (env[name] === undefined) {
      throw new KeyFileError('missing', name, 'no key file is configured and the environment variable is not set (create one with "stratd keygen --out <file>")');
    }
    return LocalKeypairSigner.fromEnv(name, options);
  }

  /** Use signInspected (src/chain/signer.ts): it hands over only message bytes with a passing verdict. */
  async signMessage(message: Uint8Array): Promise<Uint8Array> {
    if (this.mode === 'dry-run') throw new SignerError('signing_disabled', 'dry-run mode never signs a transaction');
    return sign(null, message, this.#privateKey);
  }

  toJSON(): { signer: 'local'; publicKey: string; mode: SignerMode } {
    return { signer: 'local', publicKey: this.publicKey.toBase58(), mode: this.mode };
  }

  toString(): string {
    return `LocalKeypairSigner(${this.publicKey.toBase58()})`;
  }

  [inspect.custom](): string {
    return `LocalKeypairSigner { publicKey: '${this.publicKey.toBase58()}', mode: '${this.mode}' }`;
  }
}
