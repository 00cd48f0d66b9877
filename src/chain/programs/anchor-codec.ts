import bs58 from 'bs58';
import { InstructionDataError } from '../decode/instruction-data.ts';
import { TRANSFER_HOOK_ACCOUNTS_TYPES, type AnchorArgType, type AnchorInstructionLayout, type AnchorScalar } from './anchor-layout.ts';

/**
 * Anchor instruction data of the order and fee-claim programs, read and written by hand: a handful
 * of fixed-size borsh types, each read bounds-checked so that short data fails naming the field
 * (buffer-layout would read past the end). Integers travel as decimal strings after decoding
 * (exact, JSON-printable), keys as base58, None as null.
 */

export interface RemainingAccountsSlice {
  readonly accountsType: (typeof TRANSFER_HOOK_ACCOUNTS_TYPES)[number];
  readonly length: number;
}
/** A decoded argument. */
export type AnchorArgValue = string | boolean | null | readonly RemainingAccountsSlice[];
/** What the encoder takes: bigint for integers, base58 for keys, null for None. */
export type AnchorArgInput = bigint | boolean | string | null | readonly RemainingAccountsSlice[];

/** A transaction is at most 1232 bytes: no real vec in one holds more entries than that. */
const MAX_VEC_ENTRIES = 1232;

class Reader {
  at = 8;
  readonly #view: DataView;
  constructor(private readonly data: Uint8Array) {
    this.#view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  take(bytes: number, field: string): number {
    if (this.at + bytes > this.data.length) {
      throw new InstructionDataError(`${field}: needs ${bytes} bytes at offset ${this.at}, data has ${this.data.length}`);
    }
    const start = this.at;
    this.at += bytes;
    return start;
  }

  scalar(type: AnchorScalar, field: string): string | boolean {
    switch (type) {
      case 'u8':
        return String(this.#view.getUint8(this.take(1, field)));
      case 'u16':
        return String(this.#view.getUint16(this.take(2, field), true));
      case 'u64':
        return this.#view.getBigUint64(this.take(8, field), true).toString();
      case 'i64':
        return this.#view.getBigInt64(this.take(8, field), true).toString();
      case 'bool': {
        const byte = this.#view.getUint8(this.take(1, field));
        if (byte > 1) throw new InstructionDataError(`${field}: bool byte ${byte} is neither 0 nor 1`);
        return byte === 1;
      }
      case 'pubkey': {
        const start = this.take(32, field);
        return bs58.encode(this.data.subarray(start, start + 32));
      }
    }
  }

  value(type: AnchorArgType, field: string): AnchorArgValue {
    if (type === 'transferHookAccountsInfo') return this.slices(field);
    if (typeof type === 'object') {
      const tag = this.#view.getUint8(this.take(1, field));
      if (tag === 0) return null;
      if (tag !== 1) throw new InstructionDataError(`${field}: option tag ${tag} is neither 0 nor 1`);
      return this.scalar(type.option, field);
    }
    return this.scalar(type, field);
  }

  slices(field: string): RemainingAccountsSlice[] {
    const count = this.#view.getUint32(this.take(4, field), true);
    if (count > MAX_VEC_ENTRIES) throw new InstructionDataError(`${field}: ${count} slices cannot fit in a transaction`);
    const out: RemainingAccountsSlice[] = [];
    for (let i = 0; i < count; i++) {
      const tag = this.#view.getUint8(this.take(1, `${field}[${i}].accounts_type`));
      const accountsType = TRANSFER_HOOK_ACCOUNTS_TYPES[tag];
      if (accountsType === undefined) throw new InstructionDataError(`${field}[${i}].accounts_type: enum tag ${tag} is not one of ${TRANSFER_HOOK_ACCOUNTS_TYPES.join(', ')}`);
      out.push({ accountsType, length: this.#view.getUint8(this.take(1, `${field}[${i}].length`)) });
    }
    return out;
  }
}

/** Decodes the arguments after the discriminator; the data must end exactly where they do. */
export function decodeAnchorArgs(layout: AnchorInstructionLayout, data: Uint8Array): Record<string, AnchorArgValue> {
  const reader = new Reader(data);
  const args: Record<string, AnchorArgValue> = {};
  for (const [name, type] of layout.args) args[name] = reader.value(type, `${layout.name}.${name}`);
  if (reader.at !== data.length) throw new InstructionDataError(`${layout.name}: ${data.length - reader.at} bytes after the arguments`);
  return args;
}

const SCALAR_BYTES: Readonly<Record<Exclude<AnchorScalar, 'bool' | 'pubkey'>, number>> = { u8: 1, u16: 2, u64: 8, i64: 8 };

function writeScalar(out: number[], type: AnchorScalar, value: AnchorArgInput, field: string): void {
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw new InstructionDataError(`${field}: expected a boolean`);
    out.push(value ? 1 : 0);
    return;
  }
  if (type === 'pubkey') {
    const bytes = typeof value === 'string' ? bs58.decode(value) : undefined;
    if (bytes?.length !== 32) throw new InstructionDataError(`${field}: expected a base58 public key`);
    out.push(...bytes);
    return;
  }
  if (typeof value !== 'bigint') throw new InstructionDataError(`${field}: expected a bigint`);
  const size = SCALAR_BYTES[type];
  const bytes = Buffer.alloc(size);
  if (type === 'i64') bytes.writeBigInt64LE(value);
  else if (value < 0n || value >= 1n << BigInt(8 * size)) throw new InstructionDataError(`${field}: ${value} does not fit a ${type}`);
  else if (type === 'u64') bytes.writeBigUInt64LE(value);
  else bytes.writeUIntLE(Number(value), 0, size);
  out.push(...bytes);
}

/** Instruction data: discriminator, then every argument of the layout in order (the simulated venue builds with it). */
export function encodeAnchorInstructionData(layout: AnchorInstructionLayout, args: Readonly<Record<string, AnchorArgInput>>): Buffer {
  const out: number[] = [...Buffer.from(layout.discriminator, 'hex')];
  for (const [field, type] of layout.args) {
    const value = Object.hasOwn(args, field) ? args[field] : undefined;
    if (value === undefined) throw new InstructionDataError(`${layout.name}: argument ${field} is missing`);
    if (type === 'transferHookAccountsInfo') {
      if (!Array.isArray(value)) throw new InstructionDataError(`${field}: expected a list of slices`);
      const slices = value as readonly RemainingAccountsSlice[];
      const length = Buffer.alloc(4);
      length.writeUInt32LE(slices.length);
      out.push(...length);
      for (const s of slices) out.push(TRANSFER_HOOK_ACCOUNTS_TYPES.indexOf(s.accountsType), s.length);
    } else if (typeof type === 'object') {
      if (value === null) out.push(0);
      else {
        out.push(1);
        writeScalar(out, type.option, value, field);
      }
    } else writeScalar(out, type, value, field);
  }
  const extra = Object.keys(args).filter((k) => !layout.args.some(([field]) => field === k));
  if (extra.length > 0) throw new InstructionDataError(`${layout.name}: unknown arguments ${extra.join(', ')}`);
  return Buffer.from(out);
}
