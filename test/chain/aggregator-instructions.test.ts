// The aggregator's instruction table in the source must be exactly what the program's two IDL
// generations say (accounts with flags, argument names, types and order, the Swap enum's variants),
// the encoder's bytes must decode the same with borsh layouts built from the IDL alone, and bad
// input must be refused with an error, never decoded into a guess.
import { describe, expect, it } from 'vitest';
import { decodeAggregatorInstruction } from '../../src/chain/decode/aggregator.ts';
import { encodeAggregatorInstructionData } from '../../src/chain/programs/aggregator/codec.ts';
import { AGGREGATOR_INSTRUCTIONS, type AggregatorInstructionName } from '../../src/chain/programs/aggregator/instructions.ts';
import { AGGREGATOR_LAYOUTS } from '../../src/chain/programs/aggregator/layouts.ts';
import { SWAP_VARIANTS } from '../../src/chain/programs/aggregator/swap-variants.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { aggregatorIdls, decodeArgsWithIdl, idlAggregatorLayout, idlSwapVariants } from '../support/aggregator-idl.ts';
import { PROGRAM_IDLS_SKIP_REASON, programIdlsAvailable } from '../support/program-idls.ts';

const names = Object.keys(AGGREGATOR_LAYOUTS) as AggregatorInstructionName[];
/** The later IDL's own instructions; every other one is transcribed from the older IDL. */
const LATER_ONLY: ReadonlySet<string> = new Set(['route_v2', 'shared_accounts_route_v2', 'exact_out_route_v2', 'shared_accounts_exact_out_route_v2', 'close_token']);

describe.skipIf(!programIdlsAvailable())(programIdlsAvailable() ? 'aggregator instructions against both IDLs' : PROGRAM_IDLS_SKIP_REASON, () => {
  for (const name of names) {
    it(`${name}: accounts (order, flags) and arguments (names, types, order) match the IDL exactly`, () => {
      const { older, later } = aggregatorIdls();
      expect(AGGREGATOR_LAYOUTS[name]).toEqual(idlAggregatorLayout(LATER_ONLY.has(name) ? later : older, name, AGGREGATOR_INSTRUCTIONS[name]));
    });
  }

  it('the later IDL lists the v1 routes with the same arguments and the older accounts first (then the event CPI accounts)', () => {
    const { later } = aggregatorIdls();
    for (const name of names.filter((n) => !LATER_ONLY.has(n) && n.includes('route'))) {
      const ours = AGGREGATOR_LAYOUTS[name];
      const theirs = idlAggregatorLayout(later, name, ours.discriminator);
      expect(theirs?.args, name).toEqual(ours.args);
      // The later IDL spells token2022_program token_2022_program.
      const accounts = theirs?.accounts.map((a) => ({ ...a, name: a.name.replace('token_2022', 'token2022') }));
      expect(accounts?.slice(0, ours.accounts.length), name).toEqual(ours.accounts);
      expect(accounts?.slice(ours.accounts.length).map((a) => a.name), name).toEqual(['event_authority', 'program']);
    }
  });

  it('the Swap variants are the later IDL\'s, and the older IDL\'s are their first 62 (two renamed)', () => {
    const { older, later } = aggregatorIdls();
    expect(SWAP_VARIANTS).toEqual(idlSwapVariants(later));
    const renamed = (v: string) => v.replace('PumpdotfunWrapped', 'PumpWrapped');
    expect(idlSwapVariants(older).map(renamed)).toEqual(SWAP_VARIANTS.slice(0, idlSwapVariants(older).length));
  });

  it('encodes route and route_v2 data that the IDL layouts decode to the same values', () => {
    const { older, later } = aggregatorIdls();
    const plan = [{ swap: 'TokenSwap', share: 60, inputIndex: 0, outputIndex: 1 }, { swap: 'RaydiumCP', share: 40, inputIndex: 0, outputIndex: 1 }];
    const v1 = encodeAggregatorInstructionData('shared_accounts_route', { id: 3, route_plan: plan, in_amount: 1_000_000_007n, quoted_out_amount: 2n ** 64n - 1n, slippage_bps: 65_535, platform_fee_bps: 255 });
    expect(decodeArgsWithIdl(older, 'shared_accounts_route', v1)).toMatchObject({ id: 3, in_amount: '1000000007', quoted_out_amount: '18446744073709551615', slippage_bps: 65_535, platform_fee_bps: 255 });
    const v2 = encodeAggregatorInstructionData('route_v2', { in_amount: 5n, quoted_out_amount: 6n, slippage_bps: 50, platform_fee_bps: 300, positive_slippage_bps: 7, route_plan: plan.map((s) => ({ ...s, share: s.share * 100 })) });
    const decoded = decodeArgsWithIdl(later, 'route_v2', v2);
    expect(decoded).toMatchObject({ in_amount: '5', quoted_out_amount: '6', slippage_bps: 50, platform_fee_bps: 300, positive_slippage_bps: 7 });
    expect((decoded.route_plan as Array<{ bps: number; swap: Record<string, unknown> }>).map((s) => [Object.keys(s.swap)[0], s.bps])).toEqual([['TokenSwap', 6000], ['RaydiumCP', 4000]]);
    // Ours reads what the IDL reads.
    const accounts = AGGREGATOR_LAYOUTS.route_v2.accounts.map((a) => `acct-${a.name}`);
    expect(decodeAggregatorInstruction(accounts, v2)).toMatchObject({ type: 'route_v2', args: { in_amount: '5', quoted_out_amount: '6', slippage_bps: '50', platform_fee_bps: '300' }, routePlan: [{ swap: 'TokenSwap', share: 6000 }, { swap: 'RaydiumCP', share: 4000 }] });
  });
});

describe('aggregator instruction decoding', () => {
  const accounts = AGGREGATOR_LAYOUTS.route.accounts.map((a) => a.name);
  const plan = [{ swap: 'TokenSwap', share: 100, inputIndex: 0, outputIndex: 1 }];
  const data = encodeAggregatorInstructionData('route', { route_plan: plan, in_amount: 1_000n, quoted_out_amount: 990n, slippage_bps: 50, platform_fee_bps: 0 });

  it('names accounts by role, leaves absent optional accounts out and keeps the AMM accounts apart', () => {
    const withNone = [...accounts];
    withNone[4] = PROGRAMS.aggregator; // destination_token_account: "none"
    const ix = decodeAggregatorInstruction([...withNone, 'amm-pool'], data);
    expect(ix?.accounts.user_transfer_authority).toBe('user_transfer_authority');
    expect(ix?.accounts.destination_token_account).toBeUndefined();
    expect(ix?.extraAccounts).toEqual(['amm-pool']);
    expect(ix?.args).toEqual({ in_amount: '1000', quoted_out_amount: '990', slippage_bps: '50', platform_fee_bps: '0' });
    expect(ix?.routePlan).toEqual(plan);
  });

  it('walks every field of a step: a variant with fields (Whirlpool, WhirlpoolSwapV2 with Some slices) decodes, the amounts after it too', () => {
    // route: vec of 2 steps, Whirlpool(a_to_b) and WhirlpoolSwapV2(a_to_b, Some({ slices: [{1,2}] })), then the amounts.
    const steps = Buffer.from([2, 0, 0, 0, 17, 1, 50, 0, 1, 47, 0, 1, 1, 0, 0, 0, 1, 2, 50, 0, 1]);
    const amounts = Buffer.alloc(8 + 8 + 2 + 1);
    amounts.writeBigUInt64LE(77n, 0);
    amounts.writeBigUInt64LE(66n, 8);
    amounts.writeUInt16LE(100, 16);
    const ix = decodeAggregatorInstruction(accounts, Buffer.concat([data.subarray(0, 8), steps, amounts]));
    expect(ix?.routePlan.map((s) => s.swap)).toEqual(['Whirlpool', 'WhirlpoolSwapV2']);
    expect(ix?.args.in_amount).toBe('77');
    expect(ix?.args.quoted_out_amount).toBe('66');
  });

  it('refuses short data, extra data, an unknown AMM variant, an impossible step count and missing accounts', () => {
    expect(() => decodeAggregatorInstruction(accounts, data.subarray(0, data.length - 1))).toThrow(/route: arguments do not decode \(platform_fee_bps: needs 1 bytes/);
    expect(() => decodeAggregatorInstruction(accounts, Buffer.concat([data, Buffer.of(0)]))).toThrow(/1 bytes after the arguments/);
    const unknownVariant = Buffer.from(data);
    unknownVariant[12] = 200; // the first step's Swap tag
    expect(() => decodeAggregatorInstruction(accounts, unknownVariant)).toThrow(/variant 200 is none of the 106 AMMs/);
    const hugePlan = Buffer.from(data);
    hugePlan.writeUInt32LE(0xffff_ffff, 8);
    expect(() => decodeAggregatorInstruction(accounts, hugePlan)).toThrow(/4294967295 steps do not fit/);
    expect(() => decodeAggregatorInstruction(accounts.slice(1), data)).toThrow(/6 accounts, the layout names 7/);
    const badBool = encodeAggregatorInstructionData('close_token', { id: 1, burn_all: true });
    badBool[9] = 2;
    expect(() => decodeAggregatorInstruction(AGGREGATOR_LAYOUTS.close_token.accounts.map((a) => a.name), badBool)).toThrow(/burn_all: 2 is not a bool/);
  });

  it('leaves an unknown discriminator undecoded (the instruction gate refuses it by name)', () => {
    expect(decodeAggregatorInstruction(accounts, Buffer.alloc(16, 1))).toBeUndefined();
    expect(decodeAggregatorInstruction(accounts, Buffer.alloc(4, 1))).toBeUndefined();
  });

  it('the encoder refuses what it cannot write exactly', () => {
    expect(() => encodeAggregatorInstructionData('route', { route_plan: plan, in_amount: -1n, quoted_out_amount: 1n, slippage_bps: 0, platform_fee_bps: 0 })).toThrow(/does not fit/);
    expect(() => encodeAggregatorInstructionData('route', { route_plan: plan, in_amount: 1n, quoted_out_amount: 1n, slippage_bps: 0 })).toThrow(/platform_fee_bps is missing/);
    expect(() => encodeAggregatorInstructionData('route', { route_plan: [{ ...plan[0]!, swap: 'Whirlpool' }], in_amount: 1n, quoted_out_amount: 1n, slippage_bps: 0, platform_fee_bps: 0 })).toThrow(/field-less/);
  });
});
