// Every benign write operation passes the whole signing policy, simulation on, as the daemon
// composes its executor (assembleExecutor, as `stratd run` does): one venue, one wallet, one
// executor, each operation built by the venue, decoded by every program's rules, simulated on the
// venue's node, signed and landed. A rule of one program's engineer that refuses another's build
// (the typical merge defect) fails here, naming the operation and the rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import type { Executor } from '../../src/pipeline/executor/executor.ts';
import { actionIdFor, actionJobSchema } from '../../src/records/action.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { readBoughtMints } from '../../src/records/bought-mints.ts';
import { dailyPnlKey } from '../../src/risk/daily-loss.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { paperExecutor, type PaperExecutor } from '../support/daemon-executor.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`benign-writes-${process.pid}`);
let venue: Venue;
let paper: PaperExecutor;
let client: ApiClient;
let executor: Executor;
let wallet: string;
let dbcPool: string;
let keys = 0;

beforeAll(async () => {
  // Fees charged: the simulation's lamport bounds (fee, priority fee, rent) are judged too.
  venue = await startVenue({ seed: 11, clock: { speed: 1 }, volatility: 0, fees: 'charge' });
  paper = await paperExecutor(venue, scope);
  ({ client, executor, wallet } = paper);
  expect(paper.config.policy.simulation.enabled).toBe(true);
  const funded = await fetch(`${venue.apiUrl}/__venue/fund`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wallet, sol: '20000000000', usdc: '10000000000', dbcPoolUnclaimed: '3000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '100000000', leverage: '3' }] }),
  });
  expect(funded.status).toBe(200);
  dbcPool = ((await funded.json()) as { dbcPool: { poolAddress: string } }).dbcPool.poolAddress;
});
afterAll(async () => {
  await paper.close();
  await venue.close();
  await scope.clean();
  await scope.close();
});

async function positions() {
  return (await client.call('perps.positions', { walletAddress: wallet })).dataList;
}

async function solPosition(side: 'long' | 'short') {
  const view = (await positions()).map(positionView).find((v) => v?.side === side && v.marketMint === MINTS.SOL && v.sizeUsd > 0n);
  if (!view) throw new Error(`no SOL ${side} on the venue`);
  return view;
}

/** An intent without its key and reason (given here). */
type Unkeyed = Intent extends infer I ? (I extends Intent ? Omit<I, 'key' | 'reason'> : never) : never;

/** Drives one intent to its end, after the fresh positions snapshot the pollers would keep (marks, exposure, current TP/SL). */
async function land(intent: Unkeyed): Promise<void> {
  const now = Date.now();
  await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: now, wallet, positions: await positions() });
  const key = `${intent.type}:${String(++keys)}`;
  const job = actionJobSchema.parse({ actionId: actionIdFor('benign', key, now), strategy: 'benign', intent: { key, reason: 'benign', ...intent }, decidedAtMs: now, window: now, trigger: { kind: 'positions', key: 'benign', tickMs: now, receivedAtMs: now } });
  await executor.accept(job);
  const final = await executor.drive(job.actionId);
  expect({ type: intent.type, state: final?.state, reason: final?.reason, detail: final?.detail }).toEqual({ type: intent.type, state: 'landed', reason: undefined, detail: undefined });
}

const mark = () => venue.market.price(MINTS.SOL);

describe('every benign write passes the whole policy with simulation on (assembleExecutor)', () => {
  it('TP/SL create, update, cancel and a decrease of the long', async () => {
    const long = await solPosition('long');
    const sl = (long.liquidationPriceUsd! + long.markPriceUsd) / 2n;
    await land({ type: 'tpsl-create', notionalUsd: '0', positionPubkey: long.positionPubkey, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: sl.toString(), receiveToken: 'USDC' });
    const [request] = (await solPosition('long')).tpslRequests;
    await land({ type: 'tpsl-update', notionalUsd: '0', tpslPubkey: request!.pubkey, triggerPrice: (sl + (long.markPriceUsd - sl) / 2n).toString() });
    await land({ type: 'tpsl-cancel', notionalUsd: '0', tpslPubkey: request!.pubkey });
    await land({ type: 'decrease', notionalUsd: '50000000', positionPubkey: long.positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '50000000' });
  });

  it('trigger order create, cancel and cancel-all', async () => {
    const create = { type: 'trigger-create', notionalUsd: '10000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '10000000', takingAmount: '1000000000' } as const;
    await land(create);
    const [order] = (await client.call('trigger.getTriggerOrders', { user: wallet, orderStatus: 'active' })).orders;
    await land({ type: 'trigger-cancel', notionalUsd: '0', order: String(order!.orderKey) });
    await land(create);
    await land({ type: 'trigger-cancel-all', notionalUsd: '0' });
  });

  it('recurring order create and cancel', async () => {
    await land({ type: 'recurring-create', notionalUsd: '300000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '300000000', numberOfOrders: 3, intervalSec: 3600 });
    const [order] = (await client.call('recurring.getRecurringOrders', { user: wallet, orderStatus: 'active', recurringType: 'time', includeFailedTx: false })).time as Array<{ orderKey: string }>;
    await land({ type: 'recurring-cancel', notionalUsd: '0', order: order!.orderKey });
  });

  it('swap', async () => {
    await land({ type: 'swap', notionalUsd: '50000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '50000000' });
    // A listed mint has a price of its own: not remembered. A token no list prices is, for the
    // heldTokens poller, which prices such mints before any airdrop.
    expect(await readBoughtMints(scope.redis, scope.prefix, wallet)).toEqual([]);
    const [token] = await client.call('tokens.ranked', { category: 'toptrending', interval: '1h', limit: 1 });
    await land({ type: 'swap', notionalUsd: '5000000', inputMint: MINTS.USDC, outputMint: token!.id, amount: '5000000', minOutAmount: '1' });
    expect(await readBoughtMints(scope.redis, scope.prefix, wallet)).toEqual([token!.id]);
  });

  it('a round trip of swaps books its realised PnL into the day the daily loss stop reads', async () => {
    const basis = () => scope.redis.hget(`${scope.prefix}risk:spot-basis:${wallet}`, MINTS.SOL);
    const [, boughtBefore = '0', costBefore = '0'] = /^(\d+):(\d+)$/.exec((await basis()) ?? '') ?? [];
    await land({ type: 'swap', notionalUsd: '40000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '40000000' });
    const [, bought = '0', cost = '0'] = /^(\d+):(\d+)$/.exec((await basis()) ?? '') ?? [];
    // The amount the execute reply said it bought, at the dollars paid.
    expect(BigInt(cost) - BigInt(costBefore)).toBe(40_000_000n);
    expect(BigInt(bought)).toBeGreaterThan(BigInt(boughtBefore));
    const dayKey = dailyPnlKey(scope.prefix, Date.now());
    const dayBefore = BigInt((await scope.redis.get(dayKey)) ?? '0');
    const usdcBefore = venue.chain.getTokenBalance(wallet, MINTS.USDC);
    // Sell all of it: what came back less what it cost is the day's realised PnL.
    await land({ type: 'swap', notionalUsd: '40000000', inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: bought });
    const proceeds = venue.chain.getTokenBalance(wallet, MINTS.USDC) - usdcBefore;
    expect(proceeds).toBeGreaterThan(0n);
    expect(BigInt((await scope.redis.get(dayKey)) ?? '0') - dayBefore).toBe(proceeds - BigInt(cost));
    expect(await basis()).toBeNull();
  });

  it('open a short with its stop; increase and add collateral to the long', async () => {
    const m = mark();
    await land({
      type: 'open', notionalUsd: '300000000', marketMint: MINTS.SOL, side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000', leverage: '3',
      stopLossPrice: ((m * 110n) / 100n).toString(), takeProfitPrice: ((m * 90n) / 100n).toString(),
    });
    const long = await solPosition('long');
    await land({ type: 'increase', notionalUsd: '50000000', positionPubkey: long.positionPubkey, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '100000000', sizeUsdDelta: '50000000' });
    await land({ type: 'add-collateral', notionalUsd: '0', positionPubkey: long.positionPubkey, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '200000000' });
  });

  it('limit order create, update and cancel', async () => {
    const trigger = (mark() * 90n) / 100n;
    await land({ type: 'limit-order-create', notionalUsd: '300000000', marketMint: MINTS.SOL, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: '100000000', triggerPrice: trigger.toString(), leverage: '3' });
    const [order] = (await client.call('perps.limitOrders', { walletAddress: wallet })).dataList;
    // No limit-orders snapshot lists it yet: the executor reads the wallet's orders to hold the update to the order's size.
    await land({ type: 'limit-order-update', notionalUsd: '0', positionRequestPubkey: String(order!.positionRequestPubkey), triggerPrice: ((trigger * 95n) / 100n).toString() });
    await land({ type: 'limit-order-cancel', notionalUsd: '0', positionRequestPubkey: String(order!.positionRequestPubkey) });
  });

  it('LP mint, deposit-borrow and a Studio fee claim', async () => {
    await land({ type: 'lp-mint', notionalUsd: '100000000', depositToken: 'USDC', depositTokenAmount: '100000000' });
    await land({ type: 'deposit-borrow', notionalUsd: '100000000', depositTokenAmount: '20000000', borrowTokenAmount: '1000000' });
    await land({ type: 'studio-claim-fee', notionalUsd: '0', poolAddress: dbcPool, maxQuoteAmount: '1000000' });
  });

  it('every one of them was simulated and passed', async () => {
    const outcomes = Object.fromEntries((await paper.metrics.policySimulations.get()).values.map((v) => [v.labels.outcome, v.value]));
    expect(outcomes).toEqual({ passed: 23 });
  });
});
