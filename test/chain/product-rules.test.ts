// The argument bounds of the perps product rule, one at a time, on instructions the venue's own
// builders make: each bound refuses what exceeds it and accepts what does not.
import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { decodeTransaction } from '../../src/chain/decode.ts';
import { perpsPositionAddress, perpsPositionRequestAddress } from '../../src/chain/programs/perps/addresses.ts';
import { inspectTransaction, type PolicyIntent } from '../../src/chain/policy/index.ts';
import { PERPS_ACCOUNTS } from '../../src/chain/programs.ts';
import type { OperationId } from '../../src/api/registry.ts';
import { encodePerpsInstructionData } from '../../src/chain/programs/perps/codec.ts';
import { intentBounds } from '../../src/pipeline/executor/policy-inspector.ts';
import type { DecreaseIntent } from '../../src/sdk/intent.ts';
import { closeRequestInstruction, createTpslInstruction, decreaseInstruction, increaseInstruction, updateTpslInstruction } from '../../src/venue/tx/perps-instructions.ts';
import { buildTx, computeBudget, contextFor } from './fixtures.ts';

const wallet = Keypair.generate().publicKey;
const keeper = Keypair.generate().publicKey;
const SOL = PERPS_ACCOUNTS.custody.SOL;
const position = perpsPositionAddress(wallet.toBase58(), SOL, SOL, 'long');
const keys = { owner: wallet.toBase58(), position, custody: SOL, collateralCustody: SOL };
const instant = { keeper: keeper.toBase58(), requestTimeSec: 1_800_000_000n };

async function rules(ix: ReturnType<typeof increaseInstruction>, operationId: OperationId, intent: PolicyIntent): Promise<string[]> {
  const decoded = await decodeTransaction(buildTx({ payer: wallet, version: 0, instructions: [...computeBudget(), ix] }));
  return inspectTransaction(decoded, contextFor(wallet, operationId, { transactionType: 'instant', intent })).violations.map((v) => v.rule);
}

/** The violations' details, for the cases one rule covers several ways. */
async function details(ix: ReturnType<typeof increaseInstruction>, operationId: OperationId, intent: PolicyIntent): Promise<string[]> {
  const decoded = await decodeTransaction(buildTx({ payer: wallet, version: 0, instructions: [...computeBudget(), ix] }));
  return inspectTransaction(decoded, contextFor(wallet, operationId, { transactionType: 'instant', intent })).violations.map((v) => v.detail);
}

const decrease = (size: bigint, entire: boolean, priceSlippage: bigint) =>
  decreaseInstruction(keys, { desiredMint: MINTS.USDC, sizeUsdDelta: size, collateralUsdDelta: 0n, entirePosition: entire, priceSlippage }, instant);

describe('perps argument bounds', () => {
  it('sizeUsdDelta, entirePosition and the position the intent names', async () => {
    const bounds = { positionPubkey: position, maxSizeUsdDelta: 100n, entirePosition: false };
    expect(await rules(decrease(100n, false, 1n), 'perps.decrease', { perps: bounds })).toEqual([]);
    expect(await rules(decrease(101n, false, 1n), 'perps.decrease', { perps: bounds })).toEqual(['intent_exceeded']);
    expect(await rules(decrease(0n, true, 1n), 'perps.decrease', { perps: bounds })).toEqual(['intent_exceeded']);
    expect(await rules(decrease(0n, true, 1n), 'perps.decrease', { perps: { ...bounds, entirePosition: true } })).toEqual([]);
    const other = perpsPositionAddress(wallet.toBase58(), PERPS_ACCOUNTS.custody.ETH, PERPS_ACCOUNTS.custody.ETH, 'long');
    expect(await rules(decrease(100n, false, 1n), 'perps.decrease', { perps: { ...bounds, positionPubkey: other } })).toEqual(['product_account']);
  });

  it('a close is a close and a partial decrease is of the intent\'s size: a sliver in its place protects nothing', async () => {
    const close = { positionPubkey: position, entirePosition: true };
    // The intent closes the position; the build decreases it by $0.000001.
    expect(await details(decrease(1n, false, 1n), 'perps.decrease', { perps: close })).toEqual([expect.stringContaining('does not close the entire position')]);
    const partial = { positionPubkey: position, maxSizeUsdDelta: 1_000_000_000n, entirePosition: false };
    expect(await rules(decrease(1_000_000_000n, false, 1n), 'perps.decrease', { perps: partial })).toEqual([]);
    expect(await details(decrease(1n, false, 1n), 'perps.decrease', { perps: partial })).toEqual([expect.stringContaining('below the intent')]);
    expect(await rules(decrease(0n, false, 1n), 'perps.decrease', { perps: partial })).toEqual(['intent_exceeded']);
  });

  it('one request per intent: two decreases of the full size, or none at all, are refused', async () => {
    const partial = { positionPubkey: position, maxSizeUsdDelta: 1_000_000_000n, entirePosition: false };
    const twice = async (n: number) => {
      const ixs = Array.from({ length: n }, () => decrease(1_000_000_000n, false, 1n));
      const decoded = await decodeTransaction(buildTx({ payer: wallet, version: 0, instructions: [...computeBudget(), ...ixs] }));
      return inspectTransaction(decoded, contextFor(wallet, 'perps.decrease', { transactionType: 'instant', intent: { perps: partial } })).violations.map((v) => v.rule);
    };
    expect(await twice(1)).toEqual([]);
    expect(await twice(3)).toEqual(['intent_exceeded']);
    // A TP/SL "created" by a transaction with no perps instruction would land and protect nothing.
    expect(await twice(0)).toEqual(['product_instruction']);
  });

  it('priceSlippage: a long decrease may not accept a price below the reference less the slippage', async () => {
    const bounds = { referencePriceUsd: 100_000_000n, maxSlippageBps: 200n };
    expect(await rules(decrease(1n, false, 98_000_000n), 'perps.decrease', { perps: bounds })).toEqual([]);
    expect(await rules(decrease(1n, false, 97_999_999n), 'perps.decrease', { perps: bounds })).toEqual(['intent_exceeded']);
    expect(await rules(decrease(1n, false, 0n), 'perps.decrease', { perps: bounds })).toEqual(['intent_exceeded']);
  });

  it('priceSlippage must be bounded when the intent requires it: no reference price, no signature', async () => {
    const required = { requirePriceBound: true };
    expect(await rules(decrease(1n, false, 98_000_000n), 'perps.decrease', { perps: required })).toEqual(['intent_exceeded']);
    expect(await rules(decrease(1n, false, 98_000_000n), 'perps.decrease', { perps: { ...required, referencePriceUsd: 100_000_000n, maxSlippageBps: 200n } })).toEqual([]);
    expect(await rules(decrease(1n, false, 0n), 'perps.decrease', { perps: { ...required, referencePriceUsd: 100_000_000n, maxSlippageBps: 200n } })).toEqual(['intent_exceeded']);
  });

  it('priceSlippage of a short decrease (a purchase) may not exceed the reference plus the slippage', async () => {
    const short = perpsPositionAddress(wallet.toBase58(), PERPS_ACCOUNTS.custody.ETH, PERPS_ACCOUNTS.custody.USDC, 'short');
    const shortKeys = { owner: wallet.toBase58(), position: short, custody: PERPS_ACCOUNTS.custody.ETH, collateralCustody: PERPS_ACCOUNTS.custody.USDC };
    const buy = (priceSlippage: bigint) => decreaseInstruction(shortKeys, { desiredMint: MINTS.USDC, sizeUsdDelta: 1n, collateralUsdDelta: 0n, entirePosition: false, priceSlippage }, instant);
    const bounds = { referencePriceUsd: 100_000_000n, maxSlippageBps: 200n, requirePriceBound: true };
    expect(await rules(buy(102_000_000n), 'perps.decrease', { perps: bounds })).toEqual([]);
    expect(await rules(buy(102_000_001n), 'perps.decrease', { perps: bounds })).toEqual(['intent_exceeded']);
    expect(await rules(buy(0xffff_ffff_ffff_ffffn), 'perps.decrease', { perps: bounds })).toEqual(['intent_exceeded']);
  });

  it('a sale is bounded strictly: rounded up, and a slippage of 100 % or more leaves no floor at all', async () => {
    // 100_000_001 less 2 % is 98_000_000.98: the floor is 98_000_001.
    const odd = { referencePriceUsd: 100_000_001n, maxSlippageBps: 200n };
    expect(await rules(decrease(1n, false, 98_000_001n), 'perps.decrease', { perps: odd })).toEqual([]);
    expect(await rules(decrease(1n, false, 98_000_000n), 'perps.decrease', { perps: odd })).toEqual(['intent_exceeded']);
    for (const maxSlippageBps of [10_000n, 12_000n]) {
      const verdict = await rules(decrease(1n, false, 0n), 'perps.decrease', { perps: { referencePriceUsd: 100_000_000n, maxSlippageBps } });
      expect(verdict, String(maxSlippageBps)).toEqual(['intent_exceeded']);
    }
  });

  it('the executor bounds a decrease by its own slippage plus the drift from the mark', () => {
    const intent: DecreaseIntent = { type: 'decrease', key: 'k', reason: 'r', notionalUsd: '1', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '5', maxSlippageBps: '150' };
    expect(intentBounds(intent, 200, { markPriceUsd: 150_000_000n, driftBps: 300 }).perps).toMatchObject({ referencePriceUsd: 150_000_000n, maxSlippageBps: 450n, requirePriceBound: true });
    // Without the intent's own, execution.slippageBps (the build's default) counts.
    expect(intentBounds({ ...intent, maxSlippageBps: undefined }, 200, { markPriceUsd: 1n, driftBps: 300 }).perps?.maxSlippageBps).toBe(500n);
    expect(intentBounds(intent, 200).perps).toMatchObject({ referencePriceUsd: undefined, requirePriceBound: true });
  });

  it('a TP/SL intent places trigger requests only, firing on the side its type and the position say', async () => {
    const request = perpsPositionRequestAddress(position, 7n, 'decrease');
    const tpsl = (triggerAboveThreshold: boolean) =>
      createTpslInstruction(keys, { request: { pubkey: request, counter: 7n }, desiredMint: MINTS.USDC, sizeUsdDelta: 0n, triggerPrice: 120_000_000n, triggerAboveThreshold, entirePosition: true }, 'legacy');
    // A long's stop-loss fires below its trigger.
    const stopLoss = intentBounds({ type: 'tpsl-create', key: 'k', reason: 'r', notionalUsd: '1', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: '120000000', receiveToken: 'USDC' }, 0);
    expect(stopLoss.perps).toMatchObject({ triggerOnly: true, triggerAboveThreshold: false });
    expect(await rules(tpsl(false), 'perps.createTpsl', stopLoss)).toEqual([]);
    expect(await rules(tpsl(true), 'perps.createTpsl', stopLoss)).toEqual(['intent_exceeded']);
    // The intent's stop-loss covers the whole position; a request for $0.000001 of it covers nothing.
    const sliver = createTpslInstruction(keys, { request: { pubkey: request, counter: 7n }, desiredMint: MINTS.USDC, sizeUsdDelta: 1n, triggerPrice: 120_000_000n, triggerAboveThreshold: false, entirePosition: false }, 'legacy');
    expect(await details(sliver, 'perps.createTpsl', stopLoss)).toEqual([expect.stringContaining('does not close the entire position')]);
    // The same request2 as a market close, at any price and with no trigger: refused.
    const market = tpsl(false);
    market.data = encodePerpsInstructionData('createDecreasePositionRequest2', {
      collateralUsdDelta: 0n, sizeUsdDelta: 0n, requestType: 'market', priceSlippage: 0n, jupiterMinimumOut: null, triggerPrice: null, triggerAboveThreshold: null, entirePosition: true, counter: 7n,
    });
    expect(await details(market, 'perps.createTpsl', stopLoss)).toEqual([expect.stringContaining('fills at the market')]);
    // A trigger request2 whose trigger price is missing.
    const noTrigger = tpsl(false);
    noTrigger.data = encodePerpsInstructionData('createDecreasePositionRequest2', {
      collateralUsdDelta: 0n, sizeUsdDelta: 0n, requestType: 'trigger', priceSlippage: null, jupiterMinimumOut: null, triggerPrice: null, triggerAboveThreshold: false, entirePosition: true, counter: 7n,
    });
    expect(await details(noTrigger, 'perps.createTpsl', stopLoss)).toEqual([expect.stringContaining('without triggerPrice')]);
  });

  it("a TP/SL's own worst fill price stays within the configured slippage of its trigger", async () => {
    const request = perpsPositionRequestAddress(position, 8n, 'decrease');
    const takeProfit = intentBounds({ type: 'tpsl-create', key: 'k', reason: 'r', notionalUsd: '1', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', requestType: 'tp', triggerPrice: '200000000', receiveToken: 'USDC' }, 200);
    expect(takeProfit.perps).toMatchObject({ referencePriceUsd: 200_000_000n, maxSlippageBps: 200n });
    const withSlippage = (priceSlippage: bigint | null) => {
      const ix = createTpslInstruction(keys, { request: { pubkey: request, counter: 8n }, desiredMint: MINTS.USDC, sizeUsdDelta: 0n, triggerPrice: 200_000_000n, triggerAboveThreshold: true, entirePosition: true }, 'legacy');
      ix.data = encodePerpsInstructionData('createDecreasePositionRequest2', {
        collateralUsdDelta: 0n, sizeUsdDelta: 0n, requestType: 'trigger', priceSlippage, jupiterMinimumOut: null, triggerPrice: 200_000_000n, triggerAboveThreshold: true, entirePosition: true, counter: 8n,
      });
      return ix;
    };
    // None named: the program's trigger rules decide, as the API's own builds have it.
    expect(await rules(withSlippage(null), 'perps.createTpsl', takeProfit)).toEqual([]);
    expect(await rules(withSlippage(196_000_000n), 'perps.createTpsl', takeProfit)).toEqual([]);
    expect(await details(withSlippage(195_999_999n), 'perps.createTpsl', takeProfit)).toEqual([expect.stringContaining('accepts a worse price than 196000000')]);
    // A take-profit that, once fired, sells at any price.
    expect(await rules(withSlippage(0n), 'perps.createTpsl', takeProfit)).toEqual(['intent_exceeded']);
  });

  it('a TP/SL update changes only the named request, to exactly its trigger price', async () => {
    const request = perpsPositionRequestAddress(position, 5n, 'decrease');
    const update = (trigger: bigint) => updateTpslInstruction(keys, request, { sizeUsdDelta: 0n, triggerPrice: trigger }, instant);
    const bounds = { positionRequestPubkey: request, triggerPriceUsd: 190_000_000n };
    expect(await rules(update(190_000_000n), 'perps.updateTpslWithFee', { perps: bounds })).toEqual([]);
    expect(await rules(update(100_000_000n), 'perps.updateTpslWithFee', { perps: bounds })).toEqual(['intent_exceeded']);
    const otherRequest = perpsPositionRequestAddress(position, 6n, 'decrease');
    expect(await rules(update(190_000_000n), 'perps.updateTpslWithFee', { perps: { ...bounds, positionRequestPubkey: otherRequest } })).toEqual(['product_account']);
  });

  it("a TP/SL update keeps a partial request's size: it may not grow into one of the whole position", async () => {
    const request = perpsPositionRequestAddress(position, 5n, 'decrease');
    const update = (size: bigint) => updateTpslInstruction(keys, request, { sizeUsdDelta: size, triggerPrice: 190_000_000n }, instant);
    const intent = { type: 'tpsl-update', key: 'k', reason: 'r', notionalUsd: '0', tpslPubkey: request, triggerPrice: '190000000' } as const;
    const partial = intentBounds(intent, 200, {}, { requestType: 'tp', triggerPrice: 180_000_000n, side: 'long', entirePosition: false, sizeUsd: 50_000_000n });
    expect(await rules(update(50_000_000n), 'perps.updateTpslWithFee', partial)).toEqual([]);
    expect(await details(update(50_000_001n), 'perps.updateTpslWithFee', partial)).toEqual([expect.stringContaining("above the intent's 50000000")]);
    // A request of the whole position, or one the snapshot does not show yet: the program clamps
    // the size to the position, and nothing here says less.
    const entire = intentBounds(intent, 200, {}, { requestType: 'tp', triggerPrice: 180_000_000n, side: 'long', entirePosition: true, sizeUsd: 50_000_000n });
    expect(await rules(update(90_000_000n), 'perps.updateTpslWithFee', entire)).toEqual([]);
    expect(await rules(update(90_000_000n), 'perps.updateTpslWithFee', intentBounds(intent, 200))).toEqual([]);
  });

  it('a TP/SL cancel closes only the request the intent names, and returns nothing to a foreign account', async () => {
    const request = perpsPositionRequestAddress(position, 5n, 'decrease');
    const close = closeRequestInstruction(wallet.toBase58(), position, request, MINTS.USDC);
    const bounds = { positionRequestPubkey: request };
    expect(await rules(close, 'perps.cancelTpsl', { perps: bounds })).toEqual([]);
    const otherRequest = perpsPositionRequestAddress(position, 6n, 'decrease');
    expect(await rules(close, 'perps.cancelTpsl', { perps: { positionRequestPubkey: otherRequest } })).toEqual(['product_account']);
    const diverted = closeRequestInstruction(wallet.toBase58(), position, request, MINTS.USDC);
    diverted.keys[2]!.pubkey = Keypair.generate().publicKey; // ownerAta: someone else's account
    expect(await rules(diverted, 'perps.cancelTpsl', { perps: bounds })).toEqual(['product_account']);
    expect(await rules(close, 'perps.decrease', { perps: bounds })).toContain('product_instruction');
  });

  it('tokens paid into the program count against maxMoveTokens of the funding mint', async () => {
    const increase = (amount: bigint) => increaseInstruction(keys, { inputMint: MINTS.USDC, side: 'long', sizeUsdDelta: 1n, collateralTokenDelta: amount, priceSlippage: 1n }, instant);
    expect(await rules(increase(5_000_000n), 'perps.increase', { maxMoveTokens: { [MINTS.USDC]: 5_000_000n } })).toEqual([]);
    expect(await rules(increase(5_000_001n), 'perps.increase', { maxMoveTokens: { [MINTS.USDC]: 5_000_000n } })).toEqual(['intent_exceeded']);
    expect(await rules(increase(1n), 'perps.increase', { maxMoveTokens: { [MINTS.SOL]: 5_000_000n } })).toEqual(['intent_exceeded']);
    // Summed per mint across the transaction: two payments of the whole limit are twice the limit.
    const twice = await decodeTransaction(buildTx({ payer: wallet, version: 0, instructions: [...computeBudget(), increase(5_000_000n), increase(5_000_000n)] }));
    const limit = { maxMoveTokens: { [MINTS.USDC]: 5_000_000n } };
    const verdict = inspectTransaction(twice, contextFor(wallet, 'perps.increase', { transactionType: 'instant', intent: limit }));
    expect(verdict.violations.map((v) => v.rule)).toEqual(['intent_exceeded']);
    expect(verdict.violations[0]?.detail).toContain('moves 10000000 of mint');
    // The funding account must be the wallet's ATA of a perps mint; another wallet's is foreign.
    const stranger = { ...keys, owner: new PublicKey(Keypair.generate().publicKey).toBase58() };
    const foreign = increaseInstruction(stranger, { inputMint: MINTS.USDC, side: 'long', sizeUsdDelta: 1n, collateralTokenDelta: 1n, priceSlippage: 1n }, instant);
    expect(await rules(foreign, 'perps.increase', {})).toContain('product_account');
  });
});
