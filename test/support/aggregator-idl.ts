// The aggregator's two Anchor IDLs, read from the maintainers' data folder beside the checkout
// (never copied into the repository; see shared-data.ts): layouts built from them alone, in the
// shape the source's table has, and a borsh decoder of instruction data built from them alone.
import * as borsh from '@coral-xyz/borsh';
import type { AggregatorArgType, AggregatorInstructionLayout } from '../../src/chain/programs/aggregator/layouts.ts';
import { PROGRAM_IDL_FILES, snakeCase } from './program-idls.ts';
import { sharedDir, sharedText } from './shared-data.ts';

interface IdlAccount {
  readonly name: string;
  readonly isMut?: boolean;
  readonly isSigner?: boolean;
  readonly isOptional?: boolean;
  readonly writable?: boolean;
  readonly signer?: boolean;
  readonly optional?: boolean;
}
interface IdlField {
  readonly name: string;
  readonly type: unknown;
}
interface IdlType {
  readonly name: string;
  readonly type: { readonly kind: string; readonly fields?: readonly IdlField[]; readonly variants?: ReadonlyArray<{ name: string; fields?: readonly IdlField[] }> };
}
export interface AggregatorIdl {
  readonly instructions: ReadonlyArray<{ readonly name: string; readonly accounts: readonly IdlAccount[]; readonly args: readonly IdlField[] }>;
  readonly types: readonly IdlType[];
}

const [OLDER, LATER] = PROGRAM_IDL_FILES.aggregator;

let cache: { older: AggregatorIdl; later: AggregatorIdl } | undefined;
/** Both IDL files: the older one (v1 routes, pre-0.30 format) and the later one (route_v2 family). */
export function aggregatorIdls(): { older: AggregatorIdl; later: AggregatorIdl } {
  const dir = sharedDir('idl');
  if (dir === undefined) throw new Error('the IDL folder is absent');
  cache ??= { older: JSON.parse(sharedText(dir, OLDER)) as AggregatorIdl, later: JSON.parse(sharedText(dir, LATER)) as AggregatorIdl };
  return cache;
}

function definedName(type: unknown): string | undefined {
  const defined = (type as { defined?: unknown }).defined;
  if (typeof defined === 'string') return defined;
  if (defined && typeof defined === 'object') return (defined as { name: string }).name;
  return undefined;
}

function argType(type: unknown): AggregatorArgType {
  if (typeof type === 'string') return type as AggregatorArgType;
  const vec = (type as { vec?: unknown }).vec;
  const name = vec === undefined ? undefined : definedName(vec);
  if (name === 'RoutePlanStep') return 'routePlan';
  if (name === 'RoutePlanStepV2') return 'routePlanV2';
  throw new Error(`unexpected IDL argument type ${JSON.stringify(type)}`);
}

/** The instruction `snakeName` of an IDL, in the source's layout shape (names snake_case). */
export function idlAggregatorLayout(idl: AggregatorIdl, snakeName: string, discriminator: string): AggregatorInstructionLayout | undefined {
  const ix = idl.instructions.find((i) => snakeCase(i.name) === snakeName);
  if (!ix) return undefined;
  return {
    name: snakeName as AggregatorInstructionLayout['name'],
    discriminator,
    accounts: ix.accounts.map((a) => ({ name: snakeCase(a.name), signer: Boolean(a.isSigner ?? a.signer), writable: Boolean(a.isMut ?? a.writable), optional: Boolean(a.isOptional ?? a.optional) })),
    args: ix.args.map((a) => [snakeCase(a.name), argType(a.type)] as const),
  };
}

/** The Swap enum's variants of an IDL: name and field types in the source's notation (swap-variants.ts). */
export function idlSwapVariants(idl: AggregatorIdl): string[] {
  const swap = idl.types.find((t) => t.name === 'Swap');
  const fieldType = (type: unknown): string => {
    if (typeof type === 'string') return type;
    const option = (type as { option?: unknown }).option;
    if (option !== undefined) return `${fieldType(option)}?`;
    const name = definedName(type);
    if (name === 'Side') return 'side';
    if (name === 'RemainingAccountsInfo') return 'rai';
    throw new Error(`unexpected Swap field type ${JSON.stringify(type)}`);
  };
  return (swap?.type.variants ?? []).map((v) => (v.fields?.length ? `${v.name}(${v.fields.map((f) => fieldType(f.type)).join(',')})` : v.name));
}

type Layout = { decode(b: Buffer, o?: number): unknown; getSpan(b: Buffer, o?: number): number; replicate(name: string): Layout };

function borshOf(idl: AggregatorIdl, type: unknown): Layout {
  if (typeof type === 'string') {
    const scalar = { u8: borsh.u8, u16: borsh.u16, u32: borsh.u32, u64: borsh.u64, bool: borsh.bool }[type];
    if (!scalar) throw new Error(`unsupported IDL scalar ${type}`);
    return scalar() as unknown as Layout;
  }
  const t = type as { option?: unknown; vec?: unknown };
  if (t.option !== undefined) return borsh.option(borshOf(idl, t.option) as never) as unknown as Layout;
  if (t.vec !== undefined) return borsh.vec(borshOf(idl, t.vec) as never) as unknown as Layout;
  const defined = idl.types.find((d) => d.name === definedName(type));
  if (!defined) throw new Error(`IDL type ${JSON.stringify(type)} not found`);
  if (defined.type.kind === 'enum') {
    return borsh.rustEnum(
      (defined.type.variants ?? []).map((v) => borsh.struct((v.fields ?? []).map((f) => borshOf(idl, f.type).replicate(f.name)) as never, v.name)),
    ) as unknown as Layout;
  }
  return borsh.struct((defined.type.fields ?? []).map((f) => borshOf(idl, f.type).replicate(f.name)) as never) as unknown as Layout;
}

/** Decodes an instruction's arguments with borsh layouts built from the IDL alone: values as JSON-ish text. */
export function decodeArgsWithIdl(idl: AggregatorIdl, snakeName: string, data: Uint8Array): Record<string, unknown> {
  const ix = idl.instructions.find((i) => snakeCase(i.name) === snakeName);
  if (!ix) throw new Error(`${snakeName} is not in the IDL`);
  const buffer = Buffer.from(data);
  let offset = 8;
  const args: Record<string, unknown> = {};
  for (const a of ix.args) {
    const layout = borshOf(idl, a.type);
    args[snakeCase(a.name)] = plain(layout.decode(buffer, offset));
    offset += layout.getSpan(buffer, offset);
  }
  if (offset !== data.length) throw new Error(`${snakeName}: ${data.length - offset} trailing bytes`);
  return args;
}

/** BN amounts as decimal text, everything else as it decoded. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== 'object') return value;
  if ((value as { constructor?: { name?: string } }).constructor?.name === 'BN') return String(value);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
}
