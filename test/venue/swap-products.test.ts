import { Connection } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { ApiClient } from '../../src/api/client.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { control, fundedWallet, sign, testVenue } from './venue-fixture.ts';

// The swap side and the LP token through their whole life: open, fill when the market allows,
// pay out; every balance change matches the numbers the API announced.

let venue: Venue;
let client: ApiClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ venue, client, close } = await testVenue());
});

afterAll(async () => {
  await close();
});

describe('trigger orders', () => {
  it('open when executed (escrow), fill when the price crosses their rate, pay the maker less 10 bps', async () => {
    await control(venue, 'price', { market: 'SOL', price: '150' });
    const { wallet, address } = await fundedWallet(venue);
    // Sell 1 SOL for 160 USDC: above the market until SOL reaches 160.
    const built = await client.call('trigger.createOrder', { inputMint: MINTS.SOL, outputMint: MINTS.USDC, maker: address, payer: address, params: { makingAmount: '1000000000', takingAmount: '160000000' } });
    const lamports = venue.chain.getBalance(address);
    await client.call('trigger.execute', { requestId: built.requestId!, signedTransaction: sign(built.transaction, wallet) });
    expect(lamports - venue.chain.getBalance(address)).toBe(1_000_000_000n);
    await control(venue, 'price', { market: 'SOL', price: '159.99' });
    expect((await client.call('trigger.getTriggerOrders', { user: address, orderStatus: 'active' })).orders).toHaveLength(1);
    const usdc = venue.chain.getTokenBalance(address, MINTS.USDC);
    await control(venue, 'price', { market: 'SOL', price: '160' });
    const history = await client.call('trigger.getTriggerOrders', { user: address, orderStatus: 'history' });
    expect(history.orders[0]).toMatchObject({ status: 'Completed', rawRemainingMakingAmount: '0' });
    expect(history.orders[0]?.trades[0]).toMatchObject({ rawInputAmount: '1000000000', rawOutputAmount: '160000000', action: 'Fill' });
    expect(venue.chain.getTokenBalance(address, MINTS.USDC) - usdc).toBe(160_000_000n - 160_000n);
  });
});

describe('recurring orders', () => {
  it('fill one slice per interval at market and close when the deposit is used', async () => {
    await control(venue, 'price', { market: 'SOL', price: '100' });
    const { wallet, address } = await fundedWallet(venue);
    const built = await client.call('recurring.createOrder', { user: address, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 300_000_000, numberOfOrders: 3, interval: 600 } } });
    const lamports = venue.chain.getBalance(address);
    const executed = await client.call('recurring.execute', { requestId: built.requestId!, signedTransaction: sign(built.transaction, wallet) });
    const fills = async (status: 'active' | 'history') =>
      ((await client.call('recurring.getRecurringOrders', { user: address, orderStatus: status, recurringType: 'time', includeFailedTx: false })).time as { trades: unknown[]; rawInUsed: string }[]);
    expect((await fills('active'))[0]?.trades).toHaveLength(1);
    venue.advance(599_000);
    expect((await fills('active'))[0]?.trades).toHaveLength(1);
    venue.advance(1_000);
    expect((await fills('active'))[0]?.trades).toHaveLength(2);
    venue.advance(600_000);
    const done = await fills('history');
    expect(done[0]).toMatchObject({ rawInUsed: '300000000' });
    expect(done[0]?.trades).toHaveLength(3);
    // 100 USDC per slice at 100 USD/SOL, less 10 bps: 0.999 SOL each.
    expect(venue.chain.getBalance(address) - lamports).toBe(3n * 999_000_000n);
    expect(executed.order).toBeTruthy();
  });
});

describe('LP token, lending and the fee claim', () => {
  it('LP mint credits exactly the quoted JLP once the legacy tx lands through RPC', async () => {
    const { wallet, address } = await fundedWallet(venue);
    const built = await client.call('perps.lpMint', { depositToken: 'USDC', depositTokenAmount: '1000000000', walletAddress: address });
    const connection = new Connection(venue.rpcUrl, 'processed');
    await connection.sendRawTransaction(Buffer.from(sign(built.serializedTxBase64 as string, wallet), 'base64'));
    expect(venue.chain.getTokenBalance(address, MINTS.JLP).toString()).toBe(built.mintTokenAmount);
    expect(venue.chain.getTokenBalance(address, MINTS.USDC)).toBe(9_000_000_000n);

    const borrow = await client.call('perps.depositBorrow', { walletAddress: address, depositTokenAmount: built.mintTokenAmount, borrowTokenAmount: '500000000' });
    await connection.sendRawTransaction(Buffer.from(sign(borrow.serializedTxBase64 as string, wallet), 'base64'));
    expect(venue.chain.getTokenBalance(address, MINTS.JLP)).toBe(0n);
    expect(venue.chain.getTokenBalance(address, MINTS.USDC)).toBe(9_500_000_000n);
    const again = await client.call('perps.depositBorrow', { walletAddress: address, depositTokenAmount: '0', borrowTokenAmount: '0' });
    expect(again).toMatchObject({ collateralTokenAmount: built.mintTokenAmount, borrowSizeUsd: '500000000', positionPubkey: borrow.positionPubkey });
    const tooMuch = await client.call('perps.depositBorrow', { walletAddress: address, depositTokenAmount: '0', borrowTokenAmount: '1000000000' }).catch((e: unknown) => e);
    expect(tooMuch).toMatchObject({ kind: 'business', code: 'borrow_exceeds_margin_limits' });
  });

  it('the fee claim pays the pool owner at most maxQuoteAmount', async () => {
    const { wallet, address, dbcPool } = await fundedWallet(venue, { dbcPoolUnclaimed: '7000000' });
    const built = await client.call('studio.claimFee', { ownerWallet: address, poolAddress: (dbcPool as { poolAddress: string }).poolAddress, maxQuoteAmount: 5_000_000 });
    const connection = new Connection(venue.rpcUrl, 'processed');
    await connection.sendRawTransaction(Buffer.from(sign(built.transaction, wallet), 'base64'));
    expect(venue.chain.getTokenBalance(address, MINTS.USDC)).toBe(10_005_000_000n);
  });
});
