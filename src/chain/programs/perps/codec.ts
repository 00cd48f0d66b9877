import * as borsh from '@coral-xyz/borsh';
import { InstructionDataError } from '../../decode/instruction-data.ts';
import { encodeAnchorInstructionData, type AnchorArgInput } from '../anchor-codec.ts';
import type { AnchorArgType, AnchorInstructionLayout } from '../anchor-layout.ts';
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
 * bytes; our code only keeps the rules), encoded by the shared Anchor encoder for the simulated venue. Amounts travel as
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

/** Perps enums are one tag byte: the shared Anchor encoder writes them as a u8. */
function anchorArgType(type: PerpsArgType): AnchorArgType {
  if (typeof type === 'object') return type;
  return type === 'side' || type === 'requestType' ? 'u8' : type;
}

const anchorLayouts = new Map<string, AnchorInstructionLayout>();
function anchorLayoutOf(layout: PerpsInstructionLayout): AnchorInstructionLayout {
  let anchor = anchorLayouts.get(layout.name);
  if (!anchor) {
    anchor = {
      name: layout.name,
      discriminator: layout.discriminator,
      accounts: layout.accounts.map((a) => ({ ...a, optional: false })),
      args: layout.args.map(([field, type]) => [field, anchorArgType(type)] as const),
    };
    anchorLayouts.set(layout.name, anchor);
  }
  return anchor;
}

/**
 * Instruction data: discriminator, then every argument of the layout in order, written by the
 * shared Anchor encoder (one encode loop for every program); only the enum names become tags here.
 */
export function encodePerpsInstructionData(name: PerpsInstructionName, args: Readonly<Record<string, PerpsArgInput>>): Buffer {
  const layout = PERPS_INSTRUCTIONS[name];
  const tagged: Record<string, AnchorArgInput> = { ...args };
  for (const [field, type] of layout.args) {
    if ((type !== 'side' && type !== 'requestType') || !Object.hasOwn(args, field) || args[field] === undefined) continue;
    const variants: readonly string[] = type === 'side' ? SIDE_VARIANTS : REQUEST_TYPE_VARIANTS;
    const value = args[field];
    const tag = typeof value === 'string' ? variants.indexOf(value) : -1;
    if (tag < 0) throw new InstructionDataError(`${field}: expected one of ${variants.join(', ')}`);
    tagged[field] = BigInt(tag);
  }
  return encodeAnchorInstructionData(anchorLayoutOf(layout), tagged);
}
