// The perps instruction table of the source must be exactly what the program's IDL says (names,
// discriminators, accounts with flags, argument layouts), and the codec must round-trip through
// layouts built from the IDL alone.
import { describe, expect, it } from 'vitest';
import { decodePerpsInstruction } from '../../src/chain/decode/perps.ts';
import { encodePerpsInstructionData } from '../../src/chain/programs/perps/codec.ts';
import { PERPS_INSTRUCTIONS, type PerpsInstructionName } from '../../src/chain/programs/perps/instructions.ts';
import { decodeWithIdl, idlLayout, PERPS_IDL_SKIP_REASON, perpsIdlAvailable } from '../support/perps-idl.ts';

const names = Object.keys(PERPS_INSTRUCTIONS) as PerpsInstructionName[];

describe.skipIf(!perpsIdlAvailable())(perpsIdlAvailable() ? 'perps instructions against the IDL' : PERPS_IDL_SKIP_REASON, () => {
  for (const name of names) {
    it(`${name}: discriminator, accounts and arguments match the IDL exactly`, () => {
      expect(PERPS_INSTRUCTIONS[name]).toEqual(idlLayout(name));
    });
  }

  it('encodes data that the IDL layouts decode to the same values', () => {
    const data = encodePerpsInstructionData('createDecreasePositionRequest2', {
      collateralUsdDelta: 5_000_000n,
      sizeUsdDelta: 12_345_678_901n,
      requestType: 'trigger',
      priceSlippage: null,
      jupiterMinimumOut: 7n,
      triggerPrice: 150_250_000n,
      triggerAboveThreshold: true,
      entirePosition: false,
      counter: 0xffff_ffff_ffff_fff0n,
    });
    const accounts = PERPS_INSTRUCTIONS.createDecreasePositionRequest2.accounts.map((a) => `acct-${a.name}`);
    expect(decodeWithIdl(data, accounts)).toEqual({
      name: 'createDecreasePositionRequest2',
      accounts: Object.fromEntries(accounts.map((a) => [a.slice(5), a])),
      args: {
        collateralUsdDelta: '5000000', sizeUsdDelta: '12345678901', requestType: '1', priceSlippage: 'null', jupiterMinimumOut: '7',
        triggerPrice: '150250000', triggerAboveThreshold: 'true', entirePosition: 'false', counter: '18446744073709551600',
      },
    });
    const ours = decodePerpsInstruction(accounts, data);
    expect(ours?.args).toEqual({
      collateralUsdDelta: '5000000', sizeUsdDelta: '12345678901', requestType: 'trigger', priceSlippage: null, jupiterMinimumOut: '7',
      triggerPrice: '150250000', triggerAboveThreshold: true, entirePosition: false, counter: '18446744073709551600',
    });
  });
});

describe('perps instruction decoding', () => {
  const accounts = PERPS_INSTRUCTIONS.instantUpdateTpsl.accounts.map((a) => a.name);
  const data = encodePerpsInstructionData('instantUpdateTpsl', { sizeUsdDelta: 1n, triggerPrice: 2n, requestTime: -3n });

  it('names accounts by role and keeps remaining accounts apart', () => {
    const ix = decodePerpsInstruction([...accounts, 'extra'], data);
    expect(ix?.accounts.positionRequest).toBe('positionRequest');
    expect(ix?.extraAccounts).toEqual(['extra']);
    expect(ix?.args).toEqual({ sizeUsdDelta: '1', triggerPrice: '2', requestTime: '-3' });
  });

  it('refuses trailing bytes, truncated data, a bad enum tag and missing accounts', () => {
    expect(() => decodePerpsInstruction(accounts, Buffer.concat([data, Buffer.of(0)]))).toThrow(/after the arguments/);
    expect(() => decodePerpsInstruction(accounts, data.subarray(0, data.length - 1))).toThrow(/do not decode/);
    expect(() => decodePerpsInstruction(accounts.slice(1), data)).toThrow(/accounts/);
    const tpsl = encodePerpsInstructionData('createDecreasePositionMarketRequest', {
      collateralUsdDelta: 0n, sizeUsdDelta: 0n, priceSlippage: 0n, jupiterMinimumOut: null, entirePosition: true, counter: 1n,
    });
    expect(decodePerpsInstruction(PERPS_INSTRUCTIONS.createDecreasePositionMarketRequest.accounts.map((a) => a.name), tpsl)?.args.entirePosition).toBe(true);
    const side = encodePerpsInstructionData('instantIncreasePosition', { sizeUsdDelta: 1n, collateralTokenDelta: null, side: 'short', priceSlippage: 1n, requestTime: 0n });
    side[8 + 8 + 1] = 7; // the side tag
    expect(() => decodePerpsInstruction(PERPS_INSTRUCTIONS.instantIncreasePosition.accounts.map((a) => a.name), side)).toThrow(/enum tag 7/);
  });

  it('leaves an unknown discriminator undecoded (the policy refuses it by name)', () => {
    expect(decodePerpsInstruction(accounts, Buffer.alloc(16, 1))).toBeUndefined();
  });
});

describe('perps instruction encoding (the shared Anchor encoder)', () => {
  // Edge values of every type: u64 0 and 2^64-1, i64 -2^63 and 2^63-1, None and Some, every enum variant.
  const samples = (variant: number): Record<PerpsInstructionName, Record<string, bigint | boolean | string | null>> =>
    Object.fromEntries(names.map((name) => [name, Object.fromEntries(PERPS_INSTRUCTIONS[name].args.map(([field, type]) => {
      const base = typeof type === 'object' ? type.option : type;
      if (typeof type === 'object' && variant % 2 === 1) return [field, null];
      if (base === 'u64') return [field, [0n, 2n ** 64n - 1n, 1n, 123456789012345n][variant]];
      if (base === 'i64') return [field, [-(2n ** 63n), 2n ** 63n - 1n, -1n, 0n][variant]];
      if (base === 'bool') return [field, variant % 2 === 0];
      return [field, (base === 'side' ? ['none', 'long', 'short'] : ['market', 'trigger'])[variant % (base === 'side' ? 3 : 2)]];
    }))])) as never;

  for (const variant of [0, 1, 2, 3]) {
    it(`every instruction's data decodes (borsh) back to what was encoded, sample ${variant}`, () => {
      const sample = samples(variant);
      for (const name of names) {
        const data = encodePerpsInstructionData(name, sample[name]!);
        expect(data.subarray(0, 8).toString('hex')).toBe(PERPS_INSTRUCTIONS[name].discriminator);
        const decoded = decodePerpsInstruction(PERPS_INSTRUCTIONS[name].accounts.map((a) => a.name), data);
        expect(decoded?.args, name).toEqual(Object.fromEntries(Object.entries(sample[name]!).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v])));
      }
    });
  }

  it('refuses a missing, unknown, out-of-range or misspelt argument by name', () => {
    const args = { sizeUsdDelta: 1n, collateralTokenDelta: null, side: 'long', priceSlippage: 1n, requestTime: 0n };
    expect(() => encodePerpsInstructionData('instantIncreasePosition', { ...args, side: 'sideways' })).toThrow(/side: expected one of none, long, short/);
    expect(() => encodePerpsInstructionData('instantIncreasePosition', { ...args, priceSlippage: -1n })).toThrow(/priceSlippage: -1 does not fit a u64/);
    expect(() => encodePerpsInstructionData('instantIncreasePosition', { ...args, extra: 1n })).toThrow(/unknown arguments extra/);
    const { side: _side, ...withoutSide } = args;
    expect(() => encodePerpsInstructionData('instantIncreasePosition', withoutSide)).toThrow(/argument side is missing/);
  });
});
