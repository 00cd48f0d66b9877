// The layouts of the Limit Order v2, DCA and Dynamic Bonding Curve instructions stratd signs must
// be exactly what the programs' IDLs say (accounts with their flags, arguments in order), the
// codec must round-trip through layouts built from the IDL alone, and bad input to the decoders is
// an error naming the fault (malformed to the policy), never a crash and never a pass.
import * as borsh from '@coral-xyz/borsh';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { decodeTransaction } from '../../src/chain/decode.ts';
import { decodeDbcInstruction } from '../../src/chain/decode/dbc.ts';
import { decodeDcaInstruction } from '../../src/chain/decode/dca.ts';
import { decodeLimitOrderInstruction } from '../../src/chain/decode/limit-order.ts';
import { DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, inspectTransaction } from '../../src/chain/policy/index.ts';
import { encodeAnchorInstructionData } from '../../src/chain/programs/anchor-codec.ts';
import type { AnchorArgType, AnchorInstructionLayout } from '../../src/chain/programs/anchor-layout.ts';
import { DBC_LAYOUTS } from '../../src/chain/programs/dbc/layouts.ts';
import { DCA_LAYOUTS } from '../../src/chain/programs/dca/layouts.ts';
import { LIMIT_ORDER_LAYOUTS } from '../../src/chain/programs/limit-order/layouts.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { MINTS } from '../../src/api/mints.ts';
import { triggerCreateInstructions } from '../../src/venue/tx/limit-order-instructions.ts';
import { needsShared, sharedDir, sharedText } from '../support/shared-data.ts';
import { snakeCase } from '../support/program-idls.ts';
import { BLOCKHASH, buildTx, computeBudget } from './fixtures.ts';

interface IdlAccount {
  name: string;
  isMut?: boolean;
  isSigner?: boolean;
  isOptional?: boolean;
  writable?: boolean;
  signer?: boolean;
  optional?: boolean;
}
interface IdlField {
  name: string;
  type: unknown;
}
interface IdlTypeDef {
  name: string;
  type: { kind: string; fields?: IdlField[]; variants?: Array<{ name: string }> };
}
interface Idl {
  instructions: Array<{ name: string; accounts: IdlAccount[]; args: IdlField[] }>;
  types: IdlTypeDef[];
}

const FILES = { limitOrder: 'jupiter-limit-order-v2-idl.json', dca: 'jupiter-dca-idl.json', dbc: 'meteora-dbc-idl.json' } as const;
const LAYOUTS: Record<keyof typeof FILES, Record<string, AnchorInstructionLayout>> = { limitOrder: LIMIT_ORDER_LAYOUTS, dca: DCA_LAYOUTS, dbc: DBC_LAYOUTS };
const idlDir = sharedDir('idl');

function readIdl(file: string): Idl {
  return JSON.parse(sharedText(idlDir!, file)) as Idl;
}

function definedName(type: unknown): string | undefined {
  const d = (type as { defined?: string | { name: string } }).defined;
  return typeof d === 'string' ? d : d?.name;
}

/** An argument of the IDL in the source's vocabulary; a defined struct argument is expanded to its fields. */
function argsOf(idl: Idl, field: IdlField): Array<readonly [string, AnchorArgType]> {
  const scalar = (t: unknown): AnchorArgType => {
    if (t === 'publicKey' || t === 'pubkey') return 'pubkey';
    if (typeof t === 'string') return t as AnchorArgType;
    const option = (t as { option?: unknown }).option;
    if (option !== undefined) return { option: scalar(option) as 'u64' };
    throw new Error(`unexpected IDL type ${JSON.stringify(t)}`);
  };
  const name = definedName(field.type);
  if (name === undefined) return [[field.name, scalar(field.type)]];
  if (name === 'TransferHookAccountsInfo') return [[field.name, 'transferHookAccountsInfo']];
  const def = idl.types.find((t) => t.name === name);
  return (def?.type.fields ?? []).flatMap((f) => argsOf(idl, f));
}

function idlLayout(idl: Idl, name: string): Omit<AnchorInstructionLayout, 'discriminator'> | undefined {
  const ix = idl.instructions.find((i) => snakeCase(i.name) === name);
  if (!ix) return undefined;
  return {
    name,
    accounts: ix.accounts.map((a) => ({ name: a.name, signer: a.signer ?? a.isSigner ?? false, writable: a.writable ?? a.isMut ?? false, optional: a.optional ?? a.isOptional ?? false })),
    args: ix.args.flatMap((f) => argsOf(idl, f)),
  };
}

/** A borsh layout of an IDL type, built from the IDL alone (no code of the source). */
function borshOf(idl: Idl, type: unknown): unknown {
  if (typeof type === 'string') {
    const scalars: Record<string, () => unknown> = { u64: borsh.u64, i64: borsh.i64, u16: borsh.u16, u8: borsh.u8, bool: borsh.bool, pubkey: borsh.publicKey, publicKey: borsh.publicKey };
    const scalar = scalars[type];
    if (!scalar) throw new Error(`unsupported IDL scalar ${type}`);
    return scalar();
  }
  const t = type as { option?: unknown; vec?: unknown };
  if (t.option !== undefined) return borsh.option(borshOf(idl, t.option) as never);
  if (t.vec !== undefined) return borsh.vec(borshOf(idl, t.vec) as never);
  const def = idl.types.find((d) => d.name === definedName(type))!;
  if (def.type.kind === 'enum') return borsh.u8();
  return borsh.struct((def.type.fields ?? []).map((f) => (borshOf(idl, f.type) as { replicate(n: string): unknown }).replicate(f.name)) as never);
}

function decodeWithIdl(idl: Idl, name: string, data: Buffer): Record<string, unknown> {
  const ix = idl.instructions.find((i) => snakeCase(i.name) === name)!;
  const out: Record<string, unknown> = {};
  let offset = 8;
  for (const arg of ix.args) {
    const layout = borshOf(idl, arg.type) as { decode(b: Buffer, o: number): unknown; getSpan(b: Buffer, o: number): number };
    out[arg.name] = JSON.parse(JSON.stringify(layout.decode(data, offset), (_k, v: unknown) => (v !== null && typeof v === 'object' && 'toBase58' in v ? String((v as { toBase58(): string }).toBase58()) : v)));
    offset += layout.getSpan(data, offset);
  }
  expect(offset).toBe(data.length);
  return out;
}

describe.skipIf(idlDir === undefined)(`order and fee-claim instruction layouts against the IDLs ${needsShared('idl')}`, () => {
  for (const [program, file] of Object.entries(FILES) as Array<[keyof typeof FILES, string]>) {
    for (const layout of Object.values(LAYOUTS[program])) {
      it(`${program} ${layout.name}: accounts with their flags and arguments match ${file}`, () => {
        const { discriminator, ...ours } = layout;
        expect(ours).toEqual(idlLayout(readIdl(file), layout.name));
        expect(discriminator).toMatch(/^[0-9a-f]{16}$/);
      });
    }
  }

  it("DBC's TransferHookAccountsInfo is a vec of { accounts_type: enum, length: u8 }, as the codec reads it", () => {
    const idl = readIdl(FILES.dbc);
    expect(idl.types.find((t) => t.name === 'TransferHookAccountsInfo')?.type.fields).toEqual([{ name: 'slices', type: { vec: { defined: { name: 'RemainingAccountsSlice' } } } }]);
    expect(idl.types.find((t) => t.name === 'RemainingAccountsSlice')?.type.fields).toEqual([
      { name: 'accounts_type', type: { defined: { name: 'AccountsType' } } },
      { name: 'length', type: 'u8' },
    ]);
    expect(idl.types.find((t) => t.name === 'AccountsType')?.type.variants?.map((v) => v.name)).toEqual(['TransferHookBase', 'TransferHookBaseReferral']);
  });

  it('encodes data that layouts built from the IDL alone decode to the same values', () => {
    const order = encodeAnchorInstructionData(LIMIT_ORDER_LAYOUTS.initialize_order, {
      unique_id: 0xffff_ffff_ffff_fff0n, making_amount: 123_456_789n, taking_amount: 9n, expired_at: -5n, fee_bps: null, slippage_bps: 65_535n,
    });
    expect(decodeWithIdl(readIdl(FILES.limitOrder), 'initialize_order', order)).toEqual({
      params: { unique_id: 'fffffffffffffff0', making_amount: '075bcd15', taking_amount: '09', expired_at: '-05', fee_bps: null, slippage_bps: 65_535 },
    });
    const dca = encodeAnchorInstructionData(DCA_LAYOUTS.open_dca_v2, {
      applicationIdx: 7n, inAmount: 300n, inAmountPerCycle: 100n, cycleFrequency: 600n, minPrice: 5n, maxPrice: null, startAt: 1_700_000_000n,
    });
    expect(decodeWithIdl(readIdl(FILES.dca), 'open_dca_v2', dca)).toEqual({
      applicationIdx: '07', inAmount: '012c', inAmountPerCycle: '64', cycleFrequency: '0258', minPrice: '05', maxPrice: null, startAt: '6553f100',
    });
    const claim = encodeAnchorInstructionData(DBC_LAYOUTS.claim_creator_trading_fee2, {
      max_base_amount: 1n, max_quote_amount: 2n, transfer_hook_accounts_info: [{ accountsType: 'TransferHookBaseReferral', length: 3 }],
    });
    expect(decodeWithIdl(readIdl(FILES.dbc), 'claim_creator_trading_fee2', claim)).toEqual({
      max_base_amount: '01', max_quote_amount: '02', transfer_hook_accounts_info: { slices: [{ accounts_type: 1, length: 3 }] },
    });
    // And our decoder reads the same bytes to the same values.
    const names = (l: AnchorInstructionLayout) => l.accounts.map((a) => `acct-${a.name}`);
    expect(decodeLimitOrderInstruction(names(LIMIT_ORDER_LAYOUTS.initialize_order), order)?.args).toEqual({
      unique_id: '18446744073709551600', making_amount: '123456789', taking_amount: '9', expired_at: '-5', fee_bps: null, slippage_bps: '65535',
    });
    expect(decodeDbcInstruction(names(DBC_LAYOUTS.claim_creator_trading_fee2), claim)?.args.transfer_hook_accounts_info).toEqual([{ accountsType: 'TransferHookBaseReferral', length: 3 }]);
  });
});

describe('order and fee-claim instruction decoding', () => {
  const names = (l: AnchorInstructionLayout) => l.accounts.map((a) => a.name);
  const order = encodeAnchorInstructionData(LIMIT_ORDER_LAYOUTS.initialize_order, { unique_id: 1n, making_amount: 2n, taking_amount: 3n, expired_at: null, fee_bps: 4n, slippage_bps: null });
  const accounts = names(LIMIT_ORDER_LAYOUTS.initialize_order);

  it('names accounts by role and keeps remaining accounts apart', () => {
    const ix = decodeLimitOrderInstruction([...accounts, 'extra'], order);
    expect(ix).toMatchObject({ program: 'limitOrder', type: 'initialize_order', accounts: { maker: 'maker', input_mint: 'input_mint' }, extraAccounts: ['extra'] });
    expect(ix?.args).toEqual({ unique_id: '1', making_amount: '2', taking_amount: '3', expired_at: null, fee_bps: '4', slippage_bps: null });
  });

  it('refuses short data, data beyond the arguments, too few accounts, a bad option tag and a bad bool', () => {
    expect(() => decodeLimitOrderInstruction(accounts, order.subarray(0, order.length - 1))).toThrow(/initialize_order\.slippage_bps: needs 1 bytes/);
    expect(() => decodeLimitOrderInstruction(accounts, Buffer.concat([order, Buffer.of(0)]))).toThrow(/1 bytes after the arguments/);
    expect(() => decodeLimitOrderInstruction(accounts.slice(1), order)).toThrow(/14 accounts, the layout names 15/);
    const badTag = Buffer.from(order);
    badTag[8 + 24] = 2; // expired_at's option tag
    expect(() => decodeLimitOrderInstruction(accounts, badTag)).toThrow(/expired_at: option tag 2/);
    const open = encodeAnchorInstructionData(DCA_LAYOUTS.open_dca, { applicationIdx: 0n, inAmount: 1n, inAmountPerCycle: 1n, cycleFrequency: 60n, minPrice: null, maxPrice: null, startAt: null, closeWsolInAta: true });
    const badBool = Buffer.from(open);
    badBool[badBool.length - 1] = 7;
    expect(() => decodeDcaInstruction(names(DCA_LAYOUTS.open_dca), badBool)).toThrow(/closeWsolInAta: bool byte 7/);
  });

  it('refuses a slice list longer than any transaction and an unknown slice kind', () => {
    const claim = encodeAnchorInstructionData(DBC_LAYOUTS.claim_trading_fee2, { max_amount_a: 1n, max_amount_b: 2n, transfer_hook_accounts_info: [] });
    const huge = Buffer.from(claim);
    huge.writeUInt32LE(0xffff_ffff, 24);
    expect(() => decodeDbcInstruction(names(DBC_LAYOUTS.claim_trading_fee2), huge)).toThrow(/4294967295 slices cannot fit/);
    const unknownKind = Buffer.concat([claim.subarray(0, 24), Buffer.from([1, 0, 0, 0, 9, 1])]);
    expect(() => decodeDbcInstruction(names(DBC_LAYOUTS.claim_trading_fee2), unknownKind)).toThrow(/accounts_type: enum tag 9/);
  });

  it('leaves an unknown or keeper-only discriminator undecoded (the instruction gate refuses it by name)', () => {
    expect(decodeLimitOrderInstruction(accounts, Buffer.alloc(16, 1))).toBeUndefined();
    expect(decodeLimitOrderInstruction(accounts, Buffer.from('e87a7319c78f88a2', 'hex'))).toBeUndefined(); // fill_order
    expect(decodeDcaInstruction(accounts, Buffer.alloc(4))).toBeUndefined();
  });

  it('a malformed instruction in a transaction is the policy\'s malformed verdict, not an exception', async () => {
    const wallet = Keypair.generate().publicKey;
    const [ix] = triggerCreateInstructions({ maker: wallet.toBase58(), orderKey: Keypair.generate().publicKey.toBase58(), inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: 1n, takingAmount: 1n, expiredAtSec: null, slippageBps: 0 });
    ix!.data = ix!.data.subarray(0, 20);
    const decoded = await decodeTransaction(buildTx({ payer: wallet, version: 0, instructions: [...computeBudget(), ix!] }));
    const verdict = inspectTransaction(decoded, { wallet, operationId: 'trigger.createOrder', txMetadata: { blockhash: BLOCKHASH }, priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS });
    expect(verdict.ok).toBe(false);
    expect(verdict.violations).toContainEqual({ rule: 'malformed', detail: expect.stringMatching(/^instruction 2 \(trigger\): initialize_order\.making_amount: needs 8 bytes/) });
    expect(decoded.instructions[2]?.programId).toBe(PROGRAMS.trigger);
  });
});
