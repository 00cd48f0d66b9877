// What each intent lets the wallet's balances do in the simulation check (docs/safety.md,
// "Simulation"), and which accounts are watched.
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { decodeTransaction } from '../../src/chain/decode.ts';
import { rentExemptMinimum } from '../../src/chain/policy/index.ts';
import { associatedTokenAccountOf } from '../../src/chain/policy/wallet-accounts.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { isProtective, simulationBounds, watchedAccounts } from '../../src/pipeline/executor/simulation-bounds.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { buildTx, computeBudget } from '../chain/fixtures.ts';

const payer = Keypair.generate().publicKey;
const wallet = payer.toBase58();
// One signature (5,000) and a priority fee of 300,000 units × 50,000 micro-lamports = 15,000 lamports.
const decoded = await decodeTransaction(buildTx({ payer, version: 0, instructions: computeBudget() }));
const FEES = 5_000n + 15_000n;
const base = { key: 'k', reason: 'r', notionalUsd: '0' };
const position = Keypair.generate().publicKey.toBase58();
const bounds = (intent: Intent, build = {}) => simulationBounds(intent, decoded, build, 165n, 100);

describe('simulationBounds', () => {
  it('a decrease moves no token; a with-fee TP/SL its USDC fee; cancels spend no rent', () => {
    const decrease: Intent = { ...base, type: 'decrease', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', entirePosition: true };
    expect(bounds(decrease, { accountRentLamports: '3000000' })).toEqual({ maxLamportsSpent: FEES + 3_000_000n, maxOutflow: {} });
    const update: Intent = { ...base, type: 'tpsl-update', tpslPubkey: position, triggerPrice: '1', feeTokenAmount: '250000', feeReceiver: position };
    expect(bounds(update, { accountRentLamports: '3000000' })).toEqual({ maxLamportsSpent: FEES, maxOutflow: { [MINTS.USDC]: 250_000n } });
    expect(bounds({ ...base, type: 'trigger-cancel', order: position }, { accountRentLamports: '9' })).toEqual({ maxLamportsSpent: FEES, maxOutflow: {} });
  });

  it('rent the build reports is capped at four accounts of maxAccountSpaceBytes', () => {
    const decrease: Intent = { ...base, type: 'decrease', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', entirePosition: true };
    expect(bounds(decrease, { accountRentLamports: '999999999999' }).maxLamportsSpent).toBe(FEES + 4n * rentExemptMinimum(165n));
  });

  it('escrows are exact; a swap has a minimum out from the quote less the slippage; an open at most its input', () => {
    const trigger: Intent = { ...base, type: 'trigger-create', inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '5000000', takingAmount: '1' };
    expect(bounds(trigger).exactOutflow).toEqual({ [MINTS.USDC]: 5_000_000n });
    const recurring: Intent = { ...base, type: 'recurring-create', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '9000000', numberOfOrders: 3, intervalSec: 60 };
    expect(bounds(recurring).exactOutflow).toEqual({ [MINTS.USDC]: 9_000_000n });
    const swap: Intent = { ...base, type: 'swap', inputMint: MINTS.USDC, outputMint: MINTS.JLP, amount: '10000000', maxSlippageBps: '50' };
    expect(bounds(swap, { quotedOutAmount: '2000000' })).toMatchObject({ maxOutflow: { [MINTS.USDC]: 10_000_000n }, minInflow: { [MINTS.JLP]: 1_990_000n } });
    expect(bounds(swap).minInflow).toEqual({ [MINTS.JLP]: 1n });
    // The intent's own minOutAmount when it is the larger (a quote of 1 unit bounds nothing below it).
    expect(bounds({ ...swap, minOutAmount: '1500000' }, { quotedOutAmount: '1' }).minInflow).toEqual({ [MINTS.JLP]: 1_500_000n });
    expect(bounds({ ...swap, minOutAmount: '1500000' }).minInflow).toEqual({ [MINTS.JLP]: 1_500_000n });
    expect(bounds({ ...swap, minOutAmount: '1' }, { quotedOutAmount: '2000000' }).minInflow).toEqual({ [MINTS.JLP]: 1_990_000n });
    const open: Intent = { ...base, type: 'open', marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '1000000000', leverage: '2', stopLossPrice: '1' };
    expect(bounds(open).maxOutflow).toEqual({ [MINTS.SOL]: 1_000_000_000n });
    expect(bounds({ ...base, type: 'lp-mint', depositToken: 'WBTC', depositTokenAmount: '7' }).maxOutflow).toEqual({ [MINTS.BTC]: 7n });
    expect(bounds({ ...base, type: 'deposit-borrow', depositTokenAmount: '8', borrowTokenAmount: '1' }).maxOutflow).toEqual({ [MINTS.JLP]: 8n });
  });

  it('protective: decreases and TP/SL creates and updates only', () => {
    expect(isProtective({ ...base, type: 'tpsl-create', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: '1', receiveToken: 'USDC' })).toBe(true);
    expect(isProtective({ ...base, type: 'trigger-cancel', order: position })).toBe(false);
  });
});

describe('watchedAccounts', () => {
  it('the wallet first, then its associated account of every known and named mint, then its other named token accounts', () => {
    const other = Keypair.generate().publicKey.toBase58();
    const memecoin = Keypair.generate().publicKey.toBase58();
    const watched = watchedAccounts(wallet, { ...base, type: 'swap', inputMint: MINTS.USDC, outputMint: memecoin, amount: '1' }, {
      mintPrograms: new Map([[memecoin, PROGRAMS.token2022]]),
      tokenAccounts: new Map([[other, { mint: MINTS.USDC, owner: wallet, program: PROGRAMS.token }]]),
    });
    expect(watched[0]).toEqual({ address: wallet, kind: 'wallet' });
    expect(watched).toContainEqual({ address: associatedTokenAccountOf(wallet, memecoin, PROGRAMS.token2022), kind: 'token', mint: memecoin });
    expect(watched).toContainEqual({ address: associatedTokenAccountOf(wallet, MINTS.USDC, PROGRAMS.token), kind: 'token', mint: MINTS.USDC });
    expect(watched.at(-1)).toEqual({ address: other, kind: 'token', mint: MINTS.USDC });
    expect(new Set(watched.map((w) => w.address)).size).toBe(watched.length);
  });
});
