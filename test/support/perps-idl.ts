// The perps program's Anchor IDL, read from the maintainers' data folder beside the checkout
// (never copied into the repository; see shared-data.ts). Tests that need it skip with one line
// when it is absent.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as borsh from '@coral-xyz/borsh';
import type { PerpsArgType, PerpsInstructionLayout } from '../../src/chain/programs/perps/instructions.ts';
import { needsShared, SHARED_ROOT } from './shared-data.ts';

export const PERPS_IDL_PATH = join(SHARED_ROOT, 'idl', 'jupiter-perpetuals-idl.json');
export const PERPS_IDL_SKIP_REASON = `perps instructions against the IDL ${needsShared('idl')}`;

interface IdlType {
  name: string;
  type: { kind: string; fields?: Array<{ name: string; type: unknown }>; variants?: Array<{ name: string }> };
}
interface Idl {
  instructions: Array<{ name: string; accounts: Array<{ name: string; isMut: boolean; isSigner: boolean }>; args: Array<{ name: string; type: { defined: string } }> }>;
  types: IdlType[];
}

export function perpsIdlAvailable(): boolean {
  return existsSync(PERPS_IDL_PATH);
}

let cached: Idl | undefined;
function idl(): Idl {
  cached ??= JSON.parse(readFileSync(PERPS_IDL_PATH, 'utf8')) as Idl;
  return cached;
}

/** Anchor's rule: sha256("global:" + snake_case(name))[0..8]. */
export function anchorDiscriminator(name: string): string {
  const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return createHash('sha256').update(`global:${snake}`).digest().subarray(0, 8).toString('hex');
}

function typeOf(name: string): IdlType {
  const found = idl().types.find((t) => t.name === name);
  if (!found) throw new Error(`IDL type ${name} not found`);
  return found;
}

function argType(type: unknown): PerpsArgType {
  if (typeof type === 'string') return type as PerpsArgType;
  const t = type as { option?: unknown; defined?: string };
  if (t.option !== undefined) return { option: argType(t.option) as 'u64' | 'bool' };
  if (t.defined === 'Side') return 'side';
  if (t.defined === 'RequestType') return 'requestType';
  throw new Error(`unexpected IDL type ${JSON.stringify(type)}`);
}

/** The layout of one instruction, built from the IDL alone, in the shape the source uses. */
export function idlLayout(name: string): PerpsInstructionLayout | undefined {
  const ix = idl().instructions.find((i) => i.name === name);
  if (!ix) return undefined;
  const args = ix.args.flatMap((a) => (typeOf(a.type.defined).type.fields ?? []).map((f) => [f.name, argType(f.type)] as const));
  return {
    name,
    discriminator: anchorDiscriminator(name),
    accounts: ix.accounts.map((a) => ({ name: a.name, signer: a.isSigner, writable: a.isMut })),
    args,
  };
}

function borshOf(type: unknown): unknown {
  if (typeof type === 'string') {
    const scalar = { u64: borsh.u64, i64: borsh.i64, bool: borsh.bool, u8: borsh.u8 }[type];
    if (!scalar) throw new Error(`unsupported IDL scalar ${type}`);
    return scalar();
  }
  const t = type as { option?: unknown; defined?: string };
  if (t.option !== undefined) return borsh.option(borshOf(t.option) as never);
  const defined = typeOf(t.defined ?? '');
  if (defined.type.kind === 'enum') return borsh.u8();
  return borsh.struct((defined.type.fields ?? []).map((f) => (borshOf(f.type) as { replicate(n: string): unknown }).replicate(f.name)) as never);
}

/**
 * Decodes instruction data with layouts built from the IDL only (independent of the source's
 * table): the instruction name, accounts by IDL name, and the arguments as text.
 */
export function decodeWithIdl(data: Uint8Array, accounts: readonly string[]): { name: string; accounts: Record<string, string>; args: Record<string, string> } | undefined {
  const disc = Buffer.from(data.subarray(0, 8)).toString('hex');
  const ix = idl().instructions.find((i) => anchorDiscriminator(i.name) === disc);
  if (!ix) return undefined;
  const args: Record<string, string> = {};
  let offset = 8;
  const buffer = Buffer.from(data);
  for (const param of ix.args) {
    const layout = borshOf(param.type) as { decode(b: Buffer, o: number): Record<string, unknown>; getSpan(b: Buffer, o: number): number };
    const value = layout.decode(buffer, offset);
    offset += layout.getSpan(buffer, offset);
    for (const [k, v] of Object.entries(value)) args[k] = String(v);
  }
  if (offset !== data.length) throw new Error(`${ix.name}: ${data.length - offset} trailing bytes`);
  return { name: ix.name, accounts: Object.fromEntries(ix.accounts.map((a, i) => [a.name, accounts[i] ?? ''])), args };
}
