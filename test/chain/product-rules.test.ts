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
import { closeRequestInstruction, decreaseInstruction, increaseInstruction, updateTpslInstruction } from '../../src/venue/tx/perps-instructions.ts';
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
    expect(await rules(decrease(1n, false, 1n), 'perps.decrease', { perps: { ...bounds, positionPubkey: other } })).toEqual(['product_account']);
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

  it('a TP/SL update changes only the named request, to exactly its trigger price', async () => {
    const request = perpsPositionRequestAddress(position, 5n, 'decrease');
    const update = (trigger: bigint) => updateTpslInstruction(keys, request, { sizeUsdDelta: 0n, triggerPrice: trigger }, instant);
    const bounds = { positionRequestPubkey: request, triggerPriceUsd: 190_000_000n };
    expect(await rules(update(190_000_000n), 'perps.updateTpslWithFee', { perps: bounds })).toEqual([]);
    expect(await rules(update(100_000_000n), 'perps.updateTpslWithFee', { perps: bounds })).toEqual(['intent_exceeded']);
    const otherRequest = perpsPositionRequestAddress(position, 6n, 'decrease');
    expect(await rules(update(190_000_000n), 'perps.updateTpslWithFee', { perps: { ...bounds, positionRequestPubkey: otherRequest } })).toEqual(['product_account']);
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
