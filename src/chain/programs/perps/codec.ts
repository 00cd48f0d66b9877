import * as borsh from '@coral-xyz/borsh';
import { InstructionDataError } from '../../decode/instruction-data.ts';
import {
  PERPS_INSTRUCTIONS,
  REQUEST_TYPE_VARIANTS,
  SIDE_VARIANTS,
  type PerpsArgType,
  type PerpsInstructionLayout,
  type PerpsInstructionName,
} from './instructions.ts';

/**
 * Perps instruction data: decoded by @coral-xyz/borsh (a kept borsh implementation reads the
 * bytes; our code only keeps the rules), encoded here for the simulated venue. Amounts travel as
 * decimal strings after decoding (JSON-printable, exact); enums as their variant names.
 */

/** A decoded argument: u64/i64 as a decimal string, bool, enum variant name, or null for None. */
export type PerpsArgValue = string | boolean | null;
/** What the encoder takes: bigint for integers, variant names for enums, null for None. */
export type PerpsArgInput = bigint | boolean | string | null;

interface BorshLayout {
  decode(b: Buffer, offset?: number): unknown;
  getSpan(b: Buffer, offset?: number): number;
}

function fieldLayout(name: string, type: PerpsArgType): BorshLayout {
  if (typeof type === 'object') return borsh.option(type.option === 'u64' ? borsh.u64() : borsh.bool(), name) as BorshLayout;
  switch (type) {
    case 'u64':
      return borsh.u64(name) as BorshLayout;
    case 'i64':
      return borsh.i64(name) as BorshLayout;
    case 'bool':
      return borsh.bool(name) as BorshLayout;
    case 'side':
    case 'requestType':
      return borsh.u8(name) as BorshLayout;
  }
}

const structs = new Map<string, BorshLayout>();
function structOf(layout: PerpsInstructionLayout): BorshLayout {
  let struct = structs.get(layout.name);
  if (!struct) {
    struct = borsh.struct(layout.args.map(([name, type]) => fieldLayout(name, type)) as never) as BorshLayout;
    structs.set(layout.name, struct);
  }
  return struct;
}

function variantName(variants: readonly string[], tag: unknown, field: string): string {
  const name = typeof tag === 'number' ? variants[tag] : undefined;
  if (name === undefined) throw new InstructionDataError(`${field}: enum tag ${String(tag)} is not one of ${variants.join(', ')}`);
  return name;
}

/** Decodes the arguments after the discriminator; the data must end exactly where they do. */
export function decodePerpsArgs(layout: PerpsInstructionLayout, data: Uint8Array): Record<string, PerpsArgValue> {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const struct = structOf(layout);
  let raw: Record<string, unknown>;
  let span: number;
  try {
    span = struct.getSpan(buffer, 8);
    // buffer-layout reads past the end without complaint: bound the span first.
    if (8 + span > data.length) throw new InstructionDataError(`needs ${8 + span} bytes, data has ${data.length}`);
    raw = struct.decode(buffer, 8) as Record<string, unknown>;
  } catch (error) {
    throw new InstructionDataError(`${layout.name}: arguments do not decode (${(error as Error).message})`);
  }
  if (8 + span !== data.length) throw new InstructionDataError(`${layout.name}: ${data.length - 8 - span} bytes after the arguments`);
  const args: Record<string, PerpsArgValue> = {};
  for (const [name, type] of layout.args) {
    const value = raw[name];
    if (type === 'side') args[name] = variantName(SIDE_VARIANTS, value, name);
    else if (type === 'requestType') args[name] = variantName(REQUEST_TYPE_VARIANTS, value, name);
    else if (value === null || typeof value === 'boolean') args[name] = value;
    // BN: its decimal text is exact.
    else args[name] = String(value);
  }
  return args;
}

function writeScalar(out: number[], type: Exclude<PerpsArgType, object>, value: PerpsArgInput, field: string): void {
  switch (type) {
    case 'u64':
    case 'i64': {
      if (typeof value !== 'bigint') throw new InstructionDataError(`${field}: expected a bigint`);
      const bytes = Buffer.alloc(8);
      if (type === 'u64') bytes.writeBigUInt64LE(value);
      else bytes.writeBigInt64LE(value);
      out.push(...bytes);
      return;
    }
    case 'bool':
      if (typeof value !== 'boolean') throw new InstructionDataError(`${field}: expected a boolean`);
      out.push(value ? 1 : 0);
      return;
    case 'side':
    case 'requestType': {
      const variants: readonly string[] = type === 'side' ? SIDE_VARIANTS : REQUEST_TYPE_VARIANTS;
      const tag = typeof value === 'string' ? variants.indexOf(value) : -1;
      if (tag < 0) throw new InstructionDataError(`${field}: expected one of ${variants.join(', ')}`);
      out.push(tag);
      return;
    }
  }
}

/** Instruction data: discriminator, then every argument of the layout in order. */
export function encodePerpsInstructionData(name: PerpsInstructionName, args: Readonly<Record<string, PerpsArgInput>>): Buffer {
  const layout = PERPS_INSTRUCTIONS[name];
  const out: number[] = [...Buffer.from(layout.discriminator, 'hex')];
  for (const [field, type] of layout.args) {
    const value = Object.hasOwn(args, field) ? args[field] : undefined;
    if (value === undefined) throw new InstructionDataError(`${name}: argument ${field} is missing`);
    if (typeof type === 'object') {
      if (value === null) out.push(0);
      else {
        out.push(1);
        writeScalar(out, type.option, value, field);
      }
    } else writeScalar(out, type, value, field);
  }
  const extra = Object.keys(args).filter((k) => !layout.args.some(([field]) => field === k));
  if (extra.length > 0) throw new InstructionDataError(`${name}: unknown arguments ${extra.join(', ')}`);
  return Buffer.from(out);
}
