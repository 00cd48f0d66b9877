import { scrubKeyMaterial } from './key-material.ts';

/**
 * Why a wallet key could not be loaded or written. Messages say what is wrong and where (a path or
 * an environment variable name), never what the key material contains.
 */
type KeyFileErrorKind =
  | 'missing' // neither a key file nor the key variable is configured
  | 'not_found'
  | 'not_a_file'
  | 'unreadable'
  | 'unwritable'
  | 'too_large'
  | 'insecure_permissions' // live mode: the file is readable or writable by group or others
  | 'invalid_format' // neither a JSON array of 64 numbers nor base58
  | 'invalid_key' // 64 bytes whose public half does not match the secret half
  | 'exists'; // keygen refuses to overwrite without --force

export class KeyFileError extends Error {
  override readonly name = 'KeyFileError';
  readonly kind: KeyFileErrorKind;
  /** The path or environment variable name the key came from. */
  readonly source: string;

  constructor(kind: KeyFileErrorKind, source: string, message: string) {
    // The source is a path or a variable name, unless a key was pasted there by mistake.
    const shown = scrubKeyMaterial(source);
    super(`${shown}: ${scrubKeyMaterial(message)}`);
    this.kind = kind;
    this.source = shown;
  }

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, source: this.source, message: this.message };
  }
}
