import { VersionedTransaction } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { captureVenueState, restoreVenueState, venueStateSchema } from '../../src/venue/venue-state.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { control, fundedWallet, sign, testVenue, type FundedPosition } from './venue-fixture.ts';

// A paper venue saved and resumed on a fresh venue (as a restarted daemon does): everything the
// wallet had on the first one — stops at their level, orders with their progress, the keeper's
// queue, landed signatures — is there on the second, and new ids do not collide with old ones.

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A second venue, `laterMs` after the save, resumed from `saved` (through JSON, as from the file). */
async function resumed(saved: unknown, laterMs: number): Promise<{ venue: Venue; client: ApiClient }> {
  const state = venueStateSchema.parse(JSON.parse(JSON.stringify(saved)));
  const venue = await startVenue({ seed: 42, clock: { startMs: state.venueMs + laterMs, speed: 0 }, tickMs: 0, volatility: 0, chainStart: { slot: state.chain.slot + 1, blockHeight: state.chain.blockHeight + 1 } });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  closers.push(async () => {
    await client.close();
    await venue.close();
  });
  restoreVenueState(venue, state);
  return { venue, client };
}

describe('the venue state across a restart', () => {
  it('keeps TP/SL requests at their level, limit, trigger and recurring orders, pending keeper requests, landings and id counters', async () => {
    const first = await testVenue();
    closers.push(first.close);
    const { client, venue } = first;
    const { wallet, address, positions } = await fundedWallet(venue, { positions: [{ market: 'SOL', side: 'long', leverage: '3', collateralUsd: '300000000' }, { market: 'ETH', side: 'long', leverage: '2', collateralUsd: '200000000' }] });
    const [sol, eth] = positions as [FundedPosition, FundedPosition];
    venue.advance(1_800_000); // borrow interest accrues for half an hour
    await control(venue, 'price', { market: 'ETH', priceUsd: '2950000000' });

    // A stop-loss at 120, then tightened to 135 (the move a restart used to undo).
    const created = await client.call('perps.createTpsl', { owner: address, positionPubkey: sol.positionPubkey, tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '0', entirePosition: true, triggerPrice: '120000000', requestType: 'sl' }] });
    await client.call('perps.execute', { action: 'create-tpsl', serializedTxBase64: sign(created.serializedTxBase64, wallet) });
    const stop = created.tpslPubkeys[0] as string;
    const moved = await client.call('perps.updateTpsl', { positionRequestPubkey: stop, triggerPrice: '135000000' });
    const movedTx = await client.call('perps.execute', { action: 'update-tpsl', serializedTxBase64: sign(moved.serializedTxBase64, wallet) });
    // A perps limit order, a swap trigger order, a recurring order with one cycle done.
    await control(venue, 'limit-orders', { wallet: address, market: 'ETH', side: 'long', inputMint: MINTS.USDC, inputAmount: '50000000', triggerPrice: '2800000000', leverage: '2' });
    const trigger = await client.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: address, payer: address, params: { makingAmount: '10000000', takingAmount: '1000000000' } });
    await client.call('trigger.execute', { requestId: trigger.requestId!, signedTransaction: sign(trigger.transaction, wallet) });
    const recurring = await client.call('recurring.createOrder', { user: address, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 200_000_000, numberOfOrders: 2, interval: 3600 } } });
    await client.call('recurring.execute', { requestId: recurring.requestId!, signedTransaction: sign(recurring.transaction, wallet) });
    // A legacy decrease that landed and waits for the keeper when the venue stops.
    const decrease = await client.call('perps.decrease', { positionPubkey: eth.positionPubkey, receiveToken: 'USDC', sizeUsdDelta: '100000000' });
    const decreaseTx = Buffer.from(sign(decrease.serializedTxBase64, wallet), 'base64');
    const landed = venue.chain.submit(decreaseTx, { via: 'rpc' });
    expect(landed.landed).toBe(true);
    expect(venue.market.perps.pendingRequests()).toHaveLength(1);

    const before = {
      positions: (await client.call('perps.positions', { walletAddress: address })).dataList,
      trades: await client.call('perps.trades', { walletAddress: address }),
      limitOrders: await client.call('perps.limitOrders', { walletAddress: address }),
      triggers: await client.call('trigger.getTriggerOrders', { user: address, orderStatus: 'active' }),
      recurring: await client.call('recurring.getRecurringOrders', { user: address, orderStatus: 'active', recurringType: 'all', includeFailedTx: false }),
    };
    expect(before.positions.find((p) => p.positionPubkey === sol.positionPubkey)?.tpslRequests).toEqual([expect.objectContaining({ positionRequestPubkey: stop, triggerPriceUsd: '135000000' })]);
    expect(before.triggers.orders).toHaveLength(1);
    expect(JSON.stringify(before.limitOrders)).toContain('2800000000');
    expect((before.recurring.all as { trades: unknown[] }[]).map((o) => o.trades.length)).toEqual([1]);
    const saved = captureVenueState(venue);

    // Ten seconds later, on a fresh venue.
    const second = await resumed(saved, 10_000);
    const after = {
      positions: (await second.client.call('perps.positions', { walletAddress: address })).dataList,
      trades: await second.client.call('perps.trades', { walletAddress: address }),
      limitOrders: await second.client.call('perps.limitOrders', { walletAddress: address }),
      triggers: await second.client.call('trigger.getTriggerOrders', { user: address, orderStatus: 'active' }),
      recurring: await second.client.call('recurring.getRecurringOrders', { user: address, orderStatus: 'active', recurringType: 'all', includeFailedTx: false }),
    };
    const stopsOf = (list: typeof before.positions) => list.find((p) => p.positionPubkey === sol.positionPubkey)?.tpslRequests;
    expect(stopsOf(after.positions)).toEqual(stopsOf(before.positions));
    expect(after.trades).toEqual(before.trades);
    expect(before.trades.count).toBeGreaterThan(0);
    expect(after.limitOrders).toEqual(before.limitOrders);
    expect(after.triggers).toEqual(before.triggers);
    expect(after.recurring).toEqual(before.recurring);
    expect(second.venue.market.oracle.snapshot()).toEqual(venue.market.oracle.snapshot());
    expect(second.venue.market.oracle.price('ETH')).toBe(2_950_000_000n);
    const book = (v: Venue) => [...v.market.perps.positions.values()].map((p) => [p.pubkey, p.sizeUsd, p.collateralUsd, p.entryPrice, p.lockedTokens, p.interestSnapshot]);
    expect(book(second.venue)).toEqual(book(venue));
    const pools = (v: Venue) => [...v.market.custodies.values()].map((c) => [c.symbol, c.owned, c.locked, c.cumulativeInterestRate]);
    expect(pools(second.venue)).toEqual(pools(venue));
    expect(second.venue.chain.getBalance(address)).toBe(venue.chain.getBalance(address));
    expect(second.venue.chain.tokenBalances(address)).toEqual(venue.chain.tokenBalances(address));

    // The chain still knows what landed (an executor that restarts asks), and lands none of it twice.
    expect(second.venue.chain.getSignatureStatus(movedTx.txid)).toMatchObject({ err: null });
    expect(second.venue.chain.submit(decreaseTx, { via: 'rpc' })).toMatchObject({ duplicate: true, landed: true });
    expect(second.venue.chain.slot()).toBeGreaterThan(saved.chain.slot);

    // The keeper executes the request that was waiting.
    second.venue.advance(2_000);
    const outcome = second.venue.market.perps.outcomes.find((o) => o.signature === landed.signature);
    expect(outcome?.status).toBe('executed');

    // New ids go on after the old ones.
    const again = await second.client.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: address, payer: address, params: { makingAmount: '10000000', takingAmount: '1000000000' } });
    expect(again.order).not.toBe(trigger.order);
    const nextStop = await second.client.call('perps.createTpsl', { owner: address, positionPubkey: sol.positionPubkey, tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '0', entirePosition: true, triggerPrice: '200000000', requestType: 'tp' }] });
    expect(nextStop.tpslPubkeys[0]).not.toBe(stop);
    expect(VersionedTransaction.deserialize(Buffer.from(nextStop.serializedTxBase64, 'base64'))).toBeDefined();
  });
});
