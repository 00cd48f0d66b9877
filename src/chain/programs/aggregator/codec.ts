import { InstructionDataError, InstructionDataReader } from '../../decode/instruction-data.ts';
import type { AggregatorArgType, AggregatorInstructionLayout } from './layouts.ts';
import { AGGREGATOR_LAYOUTS } from './layouts.ts';
import type { AggregatorInstructionName } from './instructions.ts';
import { SWAP_VARIANT_LIST, type SwapFieldType } from './swap-variants.ts';

/**
 * Aggregator instruction data: decoded with the length-checked reader (every read names its
 * field), encoded here for the simulated venue. Amounts travel as decimal strings after decoding.
 * The route plan comes first in the v1 routes, so the amounts after it are reached only by walking
 * every step: a step whose AMM variant is unknown, or whose fields run past the data, makes the
 * whole instruction malformed (never a guess at where the amounts are).
 */

/** One step of a route plan: the AMM it swaps through and which share of which amount. */
export interface RouteStep {
  /** The Swap variant's name (swap-variants.ts). */
  readonly swap: string;
  /** v1 plans: percent of the input (0-100); v2 plans: bps of it (0-10000). */
  readonly share: number;
  readonly inputIndex: number;
  readonly outputIndex: number;
}

export type AggregatorArgValue = string | boolean;

interface DecodedAggregatorArgs {
  /** Scalars by IDL name: integers as decimal strings, bools as bools. */
  readonly args: Readonly<Record<string, AggregatorArgValue>>;
  /** The route plan, for the instructions that carry one. */
  readonly routePlan: readonly RouteStep[];
}

/** The smallest a step can be: a field-less variant tag, its share and two indexes. */
const MIN_STEP_BYTES = { routePlan: 4, routePlanV2: 5 } as const;

function skipField(r: InstructionDataReader, type: SwapFieldType, field: string): void {
  switch (type) {
    case 'bool':
    case 'u8':
    case 'side':
      r.u8(field);
      return;
    case 'u32':
      r.u32(field);
      return;
    case 'u64':
      r.u64(field);
      return;
    case 'rai?': {
      const tag = r.u8(field);
      if (tag === 0) return;
      if (tag !== 1) throw new InstructionDataError(`${field}: option tag ${tag} is neither 0 nor 1`);
      skipField(r, 'rai', field);
      return;
    }
    case 'rai': {
      const slices = r.u32(`${field} slices`);
      if (slices * 2 > r.remaining) throw new InstructionDataError(`${field}: ${slices} slices do not fit in the data`);
      for (let i = 0; i < slices; i++) r.u16(`${field} slice ${i}`);
      return;
    }
  }
}

function readPlan(r: InstructionDataReader, type: 'routePlan' | 'routePlanV2', field: string): RouteStep[] {
  const length = r.u32(`${field} length`);
  // A hostile length cannot make the walk allocate or loop beyond what the data could hold.
  if (length * MIN_STEP_BYTES[type] > r.remaining) throw new InstructionDataError(`${field}: ${length} steps do not fit in the ${r.remaining} bytes left`);
  const steps: RouteStep[] = [];
  for (let i = 0; i < length; i++) {
    const where = `${field}[${i}]`;
    const tag = r.u8(`${where}.swap`);
    const variant = SWAP_VARIANT_LIST[tag];
    if (variant === undefined) throw new InstructionDataError(`${where}.swap: variant ${tag} is none of the ${SWAP_VARIANT_LIST.length} AMMs the IDL lists`);
    variant.fields.forEach((f, j) => skipField(r, f, `${where}.swap.${variant.name}.${j}`));
    const share = type === 'routePlan' ? r.u8(`${where}.percent`) : r.u16(`${where}.bps`);
    steps.push({ swap: variant.name, share, inputIndex: r.u8(`${where}.input_index`), outputIndex: r.u8(`${where}.output_index`) });
  }
  return steps;
}

/** Decodes the arguments after the discriminator; the data must end exactly where they do. */
export function decodeAggregatorArgs(layout: AggregatorInstructionLayout, data: Uint8Array): DecodedAggregatorArgs {
  const r = new InstructionDataReader(data.subarray(8));
  const args: Record<string, AggregatorArgValue> = {};
  let routePlan: RouteStep[] = [];
  try {
    for (const [name, type] of layout.args) {
      switch (type) {
        case 'u8':
          args[name] = String(r.u8(name));
          break;
        case 'u16':
          args[name] = String(r.u16(name));
          break;
        case 'u64':
          args[name] = r.u64(name).toString();
          break;
        case 'bool': {
          const byte = r.u8(name);
          if (byte > 1) throw new InstructionDataError(`${name}: ${byte} is not a bool`);
          args[name] = byte === 1;
          break;
        }
        case 'routePlan':
        case 'routePlanV2':
          routePlan = readPlan(r, type, name);
          break;
      }
    }
  } catch (error) {
    if (error instanceof InstructionDataError) throw new InstructionDataError(`${layout.name}: arguments do not decode (${error.message})`);
    throw error;
  }
  if (r.remaining !== 0) throw new InstructionDataError(`${layout.name}: ${r.remaining} bytes after the arguments`);
  return { args, routePlan };
}

/** What the encoder takes: bigint/number for integers, booleans, the plan as steps of field-less AMMs. */
export type AggregatorArgInput = bigint | number | boolean | readonly RouteStep[];

function writeUint(out: number[], value: AggregatorArgInput, bytes: 1 | 2 | 8, field: string): void {
  if (typeof value !== 'bigint' && typeof value !== 'number') throw new InstructionDataError(`${field}: expected an integer`);
  const n = BigInt(value);
  if (n < 0n || n >= 1n << BigInt(bytes * 8)) throw new InstructionDataError(`${field}: ${n} does not fit in ${bytes} bytes`);
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64LE(n);
  out.push(...buffer.subarray(0, bytes));
}

function writePlan(out: number[], steps: AggregatorArgInput, type: 'routePlan' | 'routePlanV2', field: string): void {
  if (!Array.isArray(steps)) throw new InstructionDataError(`${field}: expected route steps`);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(steps.length);
  out.push(...length);
  for (const [i, step] of (steps as readonly RouteStep[]).entries()) {
    const tag = SWAP_VARIANT_LIST.findIndex((v) => v.name === step.swap);
    const variant = SWAP_VARIANT_LIST[tag];
    if (variant === undefined || variant.fields.length > 0) throw new InstructionDataError(`${field}[${i}]: ${step.swap} is not a field-less AMM variant`);
    out.push(tag);
    writeUint(out, step.share, type === 'routePlan' ? 1 : 2, `${field}[${i}].share`);
    writeUint(out, step.inputIndex, 1, `${field}[${i}].input_index`);
    writeUint(out, step.outputIndex, 1, `${field}[${i}].output_index`);
  }
}

const WIDTH: Readonly<Record<Exclude<AggregatorArgType, 'bool' | 'routePlan' | 'routePlanV2'>, 1 | 2 | 8>> = { u8: 1, u16: 2, u64: 8 };

/** Instruction data: discriminator, then every argument of the layout in order. */
export function encodeAggregatorInstructionData(name: AggregatorInstructionName, args: Readonly<Record<string, AggregatorArgInput>>): Buffer {
  const layout = AGGREGATOR_LAYOUTS[name];
  const out: number[] = [...Buffer.from(layout.discriminator, 'hex')];
  for (const [field, type] of layout.args) {
    const value = Object.hasOwn(args, field) ? args[field] : undefined;
    if (value === undefined) throw new InstructionDataError(`${name}: argument ${field} is missing`);
    if (type === 'bool') {
      if (typeof value !== 'boolean') throw new InstructionDataError(`${field}: expected a boolean`);
      out.push(value ? 1 : 0);
    } else if (type === 'routePlan' || type === 'routePlanV2') writePlan(out, value, type, field);
    else writeUint(out, value, WIDTH[type], field);
  }
  const extra = Object.keys(args).filter((k) => !layout.args.some(([field]) => field === k));
  if (extra.length > 0) throw new InstructionDataError(`${name}: unknown arguments ${extra.join(', ')}`);
  return Buffer.from(out);
}
