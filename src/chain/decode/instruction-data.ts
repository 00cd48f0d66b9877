import bs58 from 'bs58';

/** An instruction's data or accounts do not have the shape its program requires. */
export class InstructionDataError extends Error {
  override readonly name = 'InstructionDataError';
  readonly kind = 'malformed_instruction' as const;
}

/**
 * Reads the little-endian fields of one instruction's data. Every read checks the length, so a
 * truncated instruction fails with a message naming the field instead of reading garbage.
 */
export class InstructionDataReader {
  #offset = 0;
  readonly #view: DataView;

  constructor(private readonly data: Uint8Array) {
    this.#view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  get remaining(): number {
    return this.data.length - this.#offset;
  }

  u8(field: string): number {
    this.#need(1, field);
    return this.#view.getUint8(this.#offset++);
  }

  u16(field: string): number {
    this.#need(2, field);
    const value = this.#view.getUint16(this.#offset, true);
    this.#offset += 2;
    return value;
  }

  u32(field: string): number {
    this.#need(4, field);
    const value = this.#view.getUint32(this.#offset, true);
    this.#offset += 4;
    return value;
  }

  /** u64 amounts stay bigint and travel as decimal strings (money is exact). */
  u64(field: string): bigint {
    this.#need(8, field);
    const value = this.#view.getBigUint64(this.#offset, true);
    this.#offset += 8;
    return value;
  }

  pubkey(field: string): string {
    this.#need(32, field);
    const key = bs58.encode(this.data.subarray(this.#offset, this.#offset + 32));
    this.#offset += 32;
    return key;
  }

  /** SPL Token's COption<Pubkey> in instruction data: a one-byte tag, then the key when 1. */
  optionalPubkey(field: string): string | null {
    const tag = this.u8(field);
    if (tag === 0) return null;
    if (tag !== 1) throw new InstructionDataError(`${field}: option tag ${tag} is neither 0 nor 1`);
    return this.pubkey(field);
  }

  /** bincode string of the System program: u64 length, then UTF-8 bytes. */
  string(field: string): string {
    const length = this.u64(field);
    if (length > BigInt(this.remaining)) throw new InstructionDataError(`${field}: length ${length} exceeds the data`);
    const bytes = this.data.subarray(this.#offset, this.#offset + Number(length));
    this.#offset += Number(length);
    return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  }

  #need(bytes: number, field: string): void {
    if (this.remaining < bytes) {
      throw new InstructionDataError(`${field}: needs ${bytes} bytes at offset ${this.#offset}, data has ${this.data.length}`);
    }
  }
}

/** The account at `position` of an instruction, or an error naming the role it plays. */
export function accountAt(accounts: readonly string[], position: number, role: string): string {
  const key = accounts[position];
  if (key === undefined) throw new InstructionDataError(`account #${position} (${role}) is missing`);
  return key;
}
