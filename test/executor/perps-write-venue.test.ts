// The perps write side through the executor against the simulated venue: open (with its stop-loss
// attached at open), increase, add collateral, LP mint and deposit-borrow. Each is decided as an
// action job, built by the venue's API, inspected by the signing policy, signed, sent and seen on
// the venue. Hostile builds (the relay answers with another request's build) are refused unsigned.
import { TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { decodeTransaction } from '../../src/chain/decode.ts';
import { encodePerpsInstructionData } from '../../src/chain/programs/perps/codec.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { readTpslBook, bookTpslLanding } from '../../src/risk/tpsl-book.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { unbookedTpslActions } from '../../src/pipeline/executor/unbooked-tpsl.ts';
import { LimitOrderUnlisted } from '../../src/pipeline/executor/limit-order-lookup.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import { EXECUTE_PATH, VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const PREFIX = `stratd-test:{perps-write-venue-${process.pid}}:`;
const INCREASE_PATH = '/perps/v1/positions/increase';
let h: VenueExecutorHarness;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, PREFIX, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 0, keeperDelayMs: 200 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

const solMark = () => h.venue.market.price(MINTS.SOL);

/** A 3× SOL short of 100 USDC, its stop-loss 10 % above the mark and its take-profit 10 % below. */
function openShort(key: string, overrides: Partial<Extract<Intent, { type: 'open' }>> = {}): Extract<Intent, { type: 'open' }> {
  const mark = solMark();
  return {
    type: 'open', key, reason: 'test entry', notionalUsd: '300000000',
    marketMint: MINTS.SOL, side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000', leverage: '3',
    stopLossPrice: ((mark * 110n) / 100n).toString(), takeProfitPrice: ((mark * 90n) / 100n).toString(),
    ...overrides,
  };
}

async function positionOf(w: TestWallet, side: 'long' | 'short') {
  return (await h.positions(w)).map(positionView).find((v) => v?.side === side && v.marketMint === MINTS.SOL);
}

type Body = Record<string, unknown>;

/**
 * The relay answers the increase build with what `change` makes of the executor's request, built by
 * the venue; `reply` may then doctor the reply (a build that claims requests it does not carry).
 */
function hostileIncrease(change: (body: Body) => Body, reply: (res: Body) => Body = (res) => res): void {
  h.relay.answerInstead(INCREASE_PATH, async (body) => reply((await h.direct.call('perps.increase', change(body as Body) as never)) as Body));
}

async function runToEnd(w: TestWallet, intent: Intent) {
  const ex = h.executor(w);
  const job = h.job(intent);
  await ex.accept(job);
  return { job, final: await ex.drive(job.actionId, h.signal) };
}

describe('perps opens through the executor', () => {
  it('opens a short with its stop-loss and take-profit attached, through perps execute, and books both', async () => {
    const w = await h.fundedWallet();
    const intent = openShort(`open:${w.address}`);
    const { job, final } = await runToEnd(w, intent);
    expect(final).toMatchObject({ state: 'landed', route: 'perps-execute', executeAction: 'increase-position', operationId: 'perps.increase', sendCount: 1 });
    expect(h.relay.to(EXECUTE_PATH).filter((r) => (r.body as Record<string, unknown>).serializedTxBase64 === final!.signedTx)).toHaveLength(1);

    const position = await positionOf(w, 'short');
    expect(position?.positionPubkey).toBe(final!.positionPubkey);
    expect(position!.sizeUsd).toBeGreaterThan(290_000_000n);
    // Both requests on the venue, at the intent's triggers, in the order the book reads them.
    const [sl, tp] = final!.createdTpslPubkeys!;
    expect(h.venue.market.perps.tpsl.get(sl!)).toMatchObject({ status: 'active', requestType: 'sl', triggerPrice: BigInt(intent.stopLossPrice) });
    expect(h.venue.market.perps.tpsl.get(tp!)).toMatchObject({ status: 'active', requestType: 'tp', triggerPrice: BigInt(intent.takeProfitPrice!) });

    // The documented open fee (6 bps of the size) and a price impact fee, on the venue's own trade.
    const opens = await h.direct.call('perps.trades', { walletAddress: w.address, action: 'Increase', start: 0, end: 100 });
    const open = opens.dataList.find((t) => t.positionPubkey === final!.positionPubkey) as Record<string, unknown>;
    expect(BigInt(String(open.baseFee))).toBe((BigInt(String(open.size)) * 6n) / 10_000n);
    expect(BigInt(String(open.priceImpactFee))).toBeGreaterThan(0n);

    await bookTpslLanding(redis, PREFIX, final!, Date.now());
    const book = await readTpslBook(redis, PREFIX, [sl!, tp!]);
    expect(book.entries.get(sl!)).toMatchObject({ owner: job.strategy, requestType: 'sl', side: 'short', triggerPrice: intent.stopLossPrice });
    expect(book.entries.get(tp!)).toMatchObject({ owner: job.strategy, requestType: 'tp', triggerPrice: intent.takeProfitPrice });
  });

  it('increases a held long as a legacy request: landed only once the keeper filled exactly it', async () => {
    const w = await h.fundedWallet();
    const before = (await positionOf(w, 'long'))!;
    const { final } = await runToEnd(w, {
      type: 'increase', key: `increase:${w.address}`, reason: 'add to the winner', notionalUsd: '50000000',
      positionPubkey: before.positionPubkey, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '100000000', sizeUsdDelta: '50000000',
    });
    expect(final).toMatchObject({ state: 'landed', route: 'rpc', awaitsKeeper: true, operationId: 'perps.increase', sendCount: 1 });
    const fills = await h.direct.call('perps.trades', { walletAddress: w.address, action: 'Increase', start: 0, end: 100 });
    expect(fills.dataList.filter((t) => t.positionRequestPubkey === final!.positionRequestPubkey)).toHaveLength(1);
    expect((await positionOf(w, 'long'))!.sizeUsd).toBe(before.sizeUsd + 50_000_000n);
  });

  it('increases by leverage, paid in the market asset: the size bound is the SOL at the daemon mark x leverage', async () => {
    const w = await h.fundedWallet();
    const before = (await positionOf(w, 'long'))!;
    const { final } = await runToEnd(w, {
      type: 'increase', key: `increase:lev:${w.address}`, reason: 'add to the winner', notionalUsd: '100000000',
      positionPubkey: before.positionPubkey, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '500000000', leverage: '2',
    });
    expect(final).toMatchObject({ state: 'landed', operationId: 'perps.increase' });
    expect((await positionOf(w, 'long'))!.sizeUsd).toBeGreaterThan(before.sizeUsd);
  });

  it('refuses, unsigned, an increase of the held 3× long by 20× whose stop is 8 % below: judged on the combined position', async () => {
    const w = await h.fundedWallet();
    const before = (await positionOf(w, 'long'))!;
    const { final } = await runToEnd(w, {
      type: 'increase', key: `increase:stop:${w.address}`, reason: 'add with a stop', notionalUsd: '2000000000',
      positionPubkey: before.positionPubkey, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, inputMint: MINTS.USDC, collateralTokenDelta: '100000000', leverage: '20',
      stopLossPrice: ((solMark() * 9_200n) / 10_000n).toString(),
    });
    expect(final).toMatchObject({ state: 'rejected', reason: 'policy:stop_past_liquidation' });
    expect(JSON.stringify(final)).toMatch(/the held position's \d+ on \d+ with this request's \d+/);
    expect(w.signatures()).toBe(0);
  });

  it('adds collateral only: size unchanged, collateral up', async () => {
    const w = await h.fundedWallet();
    const before = (await positionOf(w, 'long'))!;
    const { final } = await runToEnd(w, {
      type: 'add-collateral', key: `collateral:${w.address}`, reason: 'lower the leverage', notionalUsd: '0',
      positionPubkey: before.positionPubkey, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '200000000',
    });
    expect(final).toMatchObject({ state: 'landed', operationId: 'perps.increase' });
    const after = (await positionOf(w, 'long'))!;
    expect(after.sizeUsd).toBe(before.sizeUsd);
    expect(after.collateralUsd).toBeGreaterThan(before.collateralUsd);
  });

  it('a doubled action (the same job accepted and driven twice at once) opens once', async () => {
    const w = await h.fundedWallet();
    const job = h.job(openShort(`open:doubled:${w.address}`));
    const a = h.executor(w);
    const b = h.executor(w);
    await Promise.all([a.accept(job), b.accept(job)]);
    const [x, y] = await Promise.all([a.drive(job.actionId, h.signal), b.drive(job.actionId, h.signal)]);
    const final = (await h.store.load(job.actionId))!.record;
    expect(final.state).toBe('landed');
    expect([x?.signature, y?.signature].filter((s) => s !== undefined).every((s) => s === final.signature)).toBe(true);
    expect(w.signatures()).toBe(1);
    expect(h.landedCount(final.signature)).toBe(1);
    const opens = await h.direct.call('perps.trades', { walletAddress: w.address, action: 'Increase', start: 0, end: 100 });
    expect(opens.dataList.filter((t) => t.side === 'short')).toHaveLength(1);
  });

  it('a crash between signing and sending resumes on another executor and opens once, never signing again', async () => {
    const w = await h.fundedWallet();
    const job = h.job(openShort(`open:crash:${w.address}`));
    const first = new AbortController();
    const crashing = h.executor(w, { onTransition: (r) => (r.state === 'signed' ? first.abort() : undefined) });
    await crashing.accept(job);
    await crashing.drive(job.actionId, first.signal);
    const atCrash = (await h.store.load(job.actionId))!.record;
    expect(atCrash.state).toBe('signed');
    expect(h.landedCount(atCrash.signature)).toBe(0);
    // Signed, so it may land unseen: stop arbitration already counts its attached stop-loss as set.
    const [sl] = atCrash.createdTpslPubkeys!;
    expect(await unbookedTpslActions(h.store)(sl!)).toEqual([{ strategy: job.strategy, triggerPrice: job.intent.type === 'open' ? job.intent.stopLossPrice : '', created: true, requestType: 'sl', side: 'short' }]);

    const final = await h.executor(w).drive(job.actionId, h.signal);
    expect(final).toMatchObject({ state: 'landed', signature: atCrash.signature });
    expect(w.signatures()).toBe(1);
    expect(h.landedCount(final!.signature)).toBe(1);
    const opens = await h.direct.call('perps.trades', { walletAddress: w.address, action: 'Increase', start: 0, end: 100 });
    expect(opens.dataList.filter((t) => t.side === 'short')).toHaveLength(1);
  });
});

describe("an open's stop-loss must fire before liquidation", () => {
  // 20× on 100 USDC: liquidated about 10,000 / 20 − 132 = 368 bps of price from the entry, and the
  // request accepts an entry up to its slippage (100 bps) worse than the venue's price.
  const twentyX = (key: string, stopPct: bigint) => openShort(key, { leverage: '20', notionalUsd: '2000000000', stopLossPrice: ((solMark() * (10_000n + stopPct)) / 10_000n).toString(), takeProfitPrice: undefined });

  it('refuses, unsigned, a 20× short whose stop is 4 % above the mark: the keeper would liquidate first', async () => {
    const w = await h.fundedWallet();
    const { final } = await runToEnd(w, twentyX(`open:20x:far:${w.address}`, 400n));
    expect(final).toMatchObject({ state: 'rejected', reason: 'policy:stop_past_liquidation' });
    expect(JSON.stringify(final)).toMatch(/the stop-loss at \d+ fires at or above \d+, where a short of size \d+ on collateral worth 100000000 entered at \d+/);
    expect(w.signatures()).toBe(0);
    expect(await positionOf(w, 'short')).toBeUndefined();
  });

  it('refuses, unsigned, a 20× long added to the held 3× long whose stop is 8 % below the mark', async () => {
    const w = await h.fundedWallet(); // holds a 3× SOL long of $300 on $100
    // Combined, $2,300 on $200: liquidated ~7.4 % below the (worst) entry.
    const { final } = await runToEnd(w, { ...twentyX(`open:20x:long:${w.address}`, -800n), side: 'long', collateralMint: MINTS.SOL, inputMint: MINTS.USDC });
    expect(final).toMatchObject({ state: 'rejected', reason: 'policy:stop_past_liquidation' });
    expect(JSON.stringify(final)).toMatch(/fires at or below \d+, where a long of size \d+ on collateral worth \d+ \(the held position's \d+ on \d+ with this request's \d+\)/);
    expect(w.signatures()).toBe(0);
  });

  it('judges an open into a held position on the combined position: 20× added to a held 2× short takes a stop alone it would not', async () => {
    const w = await h.fundedWallet();
    await h.control('fund', { wallet: w.address, positions: [{ market: 'SOL', side: 'short', collateralUsd: '100000000', leverage: '2' }] });
    const held = await positionOf(w, 'short');
    // 20× on 100 USDC alone is liquidated ~3.7 % above its entry; added to the held $200 on $100, ~7.8 %.
    const { final } = await runToEnd(w, twentyX(`open:onto-held:${w.address}`, 600n));
    expect(final).toMatchObject({ state: 'landed', operationId: 'perps.increase' });
    const combined = await positionOf(w, 'short');
    expect(combined!.sizeUsd).toBeGreaterThan(held!.sizeUsd + 1_900_000_000n);
    expect(combined!.liquidationPriceUsd).toBeGreaterThan((solMark() * 10_600n) / 10_000n);
  });

  it('opens a 20× short whose stop is 2 % above the mark, short of liquidation even at the worst entry', async () => {
    const w = await h.fundedWallet();
    const { final } = await runToEnd(w, twentyX(`open:20x:near:${w.address}`, 200n));
    expect(final).toMatchObject({ state: 'landed', operationId: 'perps.increase' });
    const position = await positionOf(w, 'short');
    // The venue's own liquidation price of the new position lies beyond the stop.
    expect(BigInt(position!.liquidationPriceUsd!)).toBeGreaterThan((solMark() * 10_200n) / 10_000n);
  });
});

describe('hostile open builds are refused unsigned', () => {
  const ethMark = () => h.venue.market.price(MINTS.ETH);
  const tpslOf = (b: Body) => b.tpsl as Body[];
  // [what, the request the venue builds instead, the violation (rule: detail fragment), a doctored reply, intent changes]
  const cases: Array<[string, (b: Body) => Body, string, ((res: Body) => Body)?, Partial<Extract<Intent, { type: 'open' }>>?]> = [
    // Of a fixed size, so that only the payment is out of bounds (with leverage the size is too).
    ['an open paying ×100 the collateral', (b) => ({ ...b, collateralTokenDelta: (BigInt(String(b.collateralTokenDelta)) * 100n).toString() }), `intent_exceeded: the transaction moves 10000000000 of mint ${MINTS.USDC}`, undefined, { leverage: undefined, sizeUsdDelta: '300000000' }],
    ['a stop-loss at another trigger', (b) => ({ ...b, tpsl: tpslOf(b).map((t) => (t.requestType === 'sl' ? { ...t, triggerPrice: ((solMark() * 105n) / 100n).toString() } : t)) }), 'intent_exceeded: is not one the intent attaches'],
    [
      'an open without its stop-loss (the reply still claims one)',
      (b) => ({ ...b, tpsl: tpslOf(b).filter((t) => t.requestType !== 'sl') }),
      'intent_exceeded: is not attached: the position would open without it',
      (res) => ({ ...res, tpslRequests: [...(res.tpslRequests as Body[]), { requestType: 'sl', positionRequestPubkey: 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k' }] }),
    ],
    [
      'an open of another position (ETH short)',
      (b) => ({ ...b, marketMint: MINTS.ETH, tpsl: [{ desiredMint: MINTS.USDC, requestType: 'sl', triggerPrice: ((ethMark() * 110n) / 100n).toString() }, { desiredMint: MINTS.USDC, requestType: 'tp', triggerPrice: ((ethMark() * 90n) / 100n).toString() }] }),
      'product_account: acts on position',
    ],
    ['a size beyond the leverage asked', (b) => ({ ...b, leverage: '6' }), 'intent_exceeded: is above the intent'],
  ];
  it.each(cases)('%s', async (_what, change, violation, reply, intent) => {
    const w = await h.fundedWallet();
    hostileIncrease(change, reply);
    try {
      const { final } = await runToEnd(w, openShort(`open:hostile:${w.address}`, intent));
      expect(final).toMatchObject({ state: 'rejected', sendCount: 0 });
      const [rule, fragment] = violation.split(': ');
      expect(final!.violations?.filter((v) => v.rule === rule && v.detail.includes(fragment!)), JSON.stringify(final!.violations)).not.toEqual([]);
      expect(w.signatures()).toBe(0);
      expect(await positionOf(w, 'short')).toBeUndefined();
    } finally {
      h.relay.answerNormally(INCREASE_PATH);
    }
  });
});

describe('hostile increase and add-collateral builds are refused unsigned', () => {
  it.each<[string, (b: Body) => Body, string, 'increase' | 'add-collateral']>([
    ['an increase of another position (a SOL short)', (b) => ({ ...b, side: 'short', collateralMint: MINTS.USDC, inputMint: MINTS.USDC, collateralTokenDelta: '50000000' }), 'product_account: acts on position', 'increase'],
    ['an add-collateral that adds size', (b) => ({ ...b, sizeUsdDelta: '100000000' }), 'intent_exceeded: is above the intent', 'add-collateral'],
  ])('%s', async (_what, change, violation, type) => {
    const w = await h.fundedWallet();
    const long = (await positionOf(w, 'long'))!;
    hostileIncrease(change);
    try {
      const common = { positionPubkey: long.positionPubkey, marketMint: MINTS.SOL, side: 'long' as const, collateralMint: MINTS.SOL, collateralTokenDelta: '100000000' };
      const intent: Intent =
        type === 'increase'
          ? { type, key: `increase:hostile:${w.address}`, reason: 'add', notionalUsd: '50000000', ...common, sizeUsdDelta: '50000000' }
          : { type, key: `collateral:hostile:${w.address}`, reason: 'deleverage', notionalUsd: '0', ...common };
      const { final } = await runToEnd(w, intent);
      expect(final).toMatchObject({ state: 'rejected', sendCount: 0 });
      const [rule, fragment] = violation.split(': ');
      expect(final!.violations?.filter((v) => v.rule === rule && v.detail.includes(fragment!)), JSON.stringify(final!.violations)).not.toEqual([]);
      expect(w.signatures()).toBe(0);
      expect((await positionOf(w, 'long'))!.sizeUsd).toBe(long.sizeUsd);
    } finally {
      h.relay.answerNormally(INCREASE_PATH);
    }
  });
});

describe('LP mint and deposit-borrow through the executor', () => {
  const LP_MINT_PATH = '/perps/v1/jlp/mint';
  const BORROW_PATH = '/perps/v1/lending/deposit-borrow';
  const jlpOf = (w: TestWallet) => h.venue.market.ledger.balanceOf(w.address, MINTS.JLP);

  it('mints LP from 1,000 USDC: the LP balance rises by the quote, after the 5 bps mint fee', async () => {
    const w = await h.fundedWallet();
    const before = jlpOf(w);
    const { final } = await runToEnd(w, { type: 'lp-mint', key: `lp:${w.address}`, reason: 'park idle USDC', notionalUsd: '1000000000', depositToken: 'USDC', depositTokenAmount: '1000000000' });
    expect(final).toMatchObject({ state: 'landed', route: 'rpc', operationId: 'perps.lpMint', sendCount: 1 });
    const quoted = h.relay.to(LP_MINT_PATH).at(-1)!.body as Record<string, unknown>;
    expect(quoted).toMatchObject({ walletAddress: w.address, depositToken: 'USDC', depositTokenAmount: '1000000000' });
    const minted = jlpOf(w) - before;
    // 1,000 USD less 5 bps at the JLP price.
    expect(minted).toBe((999_500_000n * 1_000_000n) / h.venue.market.lending.jlpPrice());
  });

  it('refuses an LP mint whose floor is below the intent\'s minLpAmount', async () => {
    const w = await h.fundedWallet();
    const { final } = await runToEnd(w, { type: 'lp-mint', key: `lp:floor:${w.address}`, reason: 'park idle USDC', notionalUsd: '1000000000', depositToken: 'USDC', depositTokenAmount: '1000000000', minLpAmount: '999000000000' });
    expect(final).toMatchObject({ state: 'rejected', sendCount: 0 });
    expect(final!.violations?.some((v) => v.rule === 'intent_exceeded' && v.detail.includes('minLpAmountOut'))).toBe(true);
    expect(w.signatures()).toBe(0);
  });

  it('refuses an LP mint build that deposits ×10', async () => {
    const w = await h.fundedWallet();
    h.relay.answerInstead(LP_MINT_PATH, async (body) => h.direct.call('perps.lpMint', { ...(body as Body), depositTokenAmount: '5000000000' } as never));
    try {
      const { final } = await runToEnd(w, { type: 'lp-mint', key: `lp:hostile:${w.address}`, reason: 'park idle USDC', notionalUsd: '500000000', depositToken: 'USDC', depositTokenAmount: '500000000' });
      expect(final).toMatchObject({ state: 'rejected', sendCount: 0 });
      expect(final!.violations?.some((v) => v.rule === 'intent_exceeded' && v.detail.includes(`moves 5000000000 of mint ${MINTS.USDC}`))).toBe(true);
      expect(w.signatures()).toBe(0);
    } finally {
      h.relay.answerNormally(LP_MINT_PATH);
    }
  });

  it('deposits LP and borrows USDC: a borrow position with its debt and a liquidation price', async () => {
    const w = await h.fundedWallet();
    await h.control('fund', { wallet: w.address, tokens: { [MINTS.JLP]: '500000000' } });
    const usdcBefore = h.venue.market.ledger.balanceOf(w.address, MINTS.USDC);
    const { final } = await runToEnd(w, { type: 'deposit-borrow', key: `borrow:${w.address}`, reason: 'borrow against JLP', notionalUsd: '100000000', depositTokenAmount: '100000000', borrowTokenAmount: '100000000' });
    expect(final).toMatchObject({ state: 'landed', route: 'rpc', operationId: 'perps.depositBorrow', sendCount: 1 });
    const position = h.venue.market.lending.positions.get(final!.positionPubkey!);
    expect(position).toMatchObject({ owner: w.address, collateralJlp: 100_000_000n, borrowed: 100_000_000n });
    expect(h.venue.market.ledger.balanceOf(w.address, MINTS.USDC) - usdcBefore).toBe(100_000_000n);
    const quote = h.venue.market.lending.quoteDepositBorrow(w.address, 0n, 0n, h.venue.clock.now());
    expect(quote.liquidationPriceUsd).toBeGreaterThan(0n);
    // Interest accrues at the USDC custody's borrow rate: a day later the debt is larger.
    expect(h.venue.market.lending.borrowedAt(position!, h.venue.clock.now() + 86_400_000)).toBeGreaterThan(100_000_000n);
  });

  it('refuses a deposit-borrow build that borrows twice what the intent asks', async () => {
    const w = await h.fundedWallet();
    await h.control('fund', { wallet: w.address, tokens: { [MINTS.JLP]: '500000000' } });
    h.relay.answerInstead(BORROW_PATH, async (body) => h.direct.call('perps.depositBorrow', { ...(body as Body), borrowTokenAmount: '200000000' } as never));
    try {
      const { final } = await runToEnd(w, { type: 'deposit-borrow', key: `borrow:hostile:${w.address}`, reason: 'borrow against JLP', notionalUsd: '100000000', depositTokenAmount: '100000000', borrowTokenAmount: '100000000' });
      expect(final).toMatchObject({ state: 'rejected', sendCount: 0 });
      expect(final!.violations?.some((v) => v.rule === 'intent_exceeded' && v.detail.includes('borrows 200000000'))).toBe(true);
      expect(w.signatures()).toBe(0);
    } finally {
      h.relay.answerNormally(BORROW_PATH);
    }
  });
});

describe('perps limit orders through the executor', () => {
  const ORDERS_PATH = '/perps/v1/orders/limit';
  const limitOrders = async (w: TestWallet) => (await h.direct.call('perps.limitOrders', { walletAddress: w.address })).dataList;
  function createIntent(w: TestWallet, key: string, overrides: Partial<Extract<Intent, { type: 'limit-order-create' }>> = {}): Extract<Intent, { type: 'limit-order-create' }> {
    return {
      type: 'limit-order-create', key: `${key}:${w.address}`, reason: 'buy the dip', notionalUsd: '300000000',
      marketMint: MINTS.SOL, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: '100000000',
      triggerPrice: ((solMark() * 90n) / 100n).toString(), leverage: '3', ...overrides,
    };
  }

  it('creates, moves and cancels a limit order: each through perps execute or the RPC, each seen on the venue', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = h.venue.market.ledger.balanceOf(w.address, MINTS.USDC);
    const intent = createIntent(w, 'limit');
    const { final: created } = await runToEnd(w, intent);
    expect(created).toMatchObject({ state: 'landed', route: 'perps-execute', executeAction: 'limit-order', operationId: 'perps.createLimitOrder', sendCount: 1 });
    const [order] = await limitOrders(w);
    expect(order).toMatchObject({ triggerPrice: intent.triggerPrice, side: 'long', inputMint: MINTS.USDC, collateralTokenAmount: '100000000', executed: false, positionPubkey: created!.positionPubkey });
    expect(h.venue.market.ledger.balanceOf(w.address, MINTS.USDC)).toBe(usdcBefore - 100_000_000n);

    const moved = ((solMark() * 85n) / 100n).toString();
    const { final: updated } = await runToEnd(w, { type: 'limit-order-update', key: `limit:move:${w.address}`, reason: 'lower the entry', notionalUsd: '0', positionRequestPubkey: String(order!.positionRequestPubkey), triggerPrice: moved });
    expect(updated).toMatchObject({ state: 'landed', route: 'perps-execute', operationId: 'perps.updateLimitOrder' });
    expect((await limitOrders(w))[0]).toMatchObject({ positionRequestPubkey: order!.positionRequestPubkey, triggerPrice: moved });

    const { final: cancelled } = await runToEnd(w, { type: 'limit-order-cancel', key: `limit:cancel:${w.address}`, reason: 'no longer wanted', notionalUsd: '0', positionRequestPubkey: String(order!.positionRequestPubkey) });
    expect(cancelled).toMatchObject({ state: 'landed', route: 'rpc', operationId: 'perps.cancelLimitOrder' });
    expect(await limitOrders(w)).toEqual([]);
    expect(h.venue.market.ledger.balanceOf(w.address, MINTS.USDC)).toBe(usdcBefore);
    expect(h.relay.to(ORDERS_PATH).map((r) => r.method)).toEqual(expect.arrayContaining(['POST', 'PATCH', 'DELETE']));
  });

  it('refuses a build at another trigger, or paying ×10 the input, unsigned', async () => {
    for (const [what, change, fragment] of [
      ['trigger', (b: Body) => ({ ...b, triggerPrice: ((solMark() * 80n) / 100n).toString() }), 'differs from the intent'],
      ['input', (b: Body) => ({ ...b, inputTokenAmount: '1000000000', leverage: undefined, sizeUsdDelta: '300000000' }), `moves 1000000000 of mint ${MINTS.USDC}`],
    ] as const) {
      const w = await h.fundedWallet();
      h.relay.answerInstead(ORDERS_PATH, async (body) => h.direct.call('perps.createLimitOrder', change(body as Body) as never));
      try {
        const { final } = await runToEnd(w, createIntent(w, `limit:hostile:${what}`, what === 'input' ? { leverage: undefined, sizeUsdDelta: '300000000' } : {}));
        expect(final, what).toMatchObject({ state: 'rejected', sendCount: 0 });
        expect(final!.violations?.some((v) => v.rule === 'intent_exceeded' && v.detail.includes(fragment)), JSON.stringify(final!.violations)).toBe(true);
        expect(w.signatures()).toBe(0);
        expect(await limitOrders(w)).toEqual([]);
      } finally {
        h.relay.answerNormally(ORDERS_PATH);
      }
    }
  });

  it('refuses an update or a cancel built for another order, unsigned', async () => {
    const w = await h.fundedWallet();
    const seed = { wallet: w.address, market: 'SOL', side: 'long', inputMint: MINTS.USDC, inputAmount: '100000000', leverage: '2' };
    const mine = await h.control<{ positionRequestPubkey: string }>('limit-orders', { ...seed, triggerPrice: ((solMark() * 90n) / 100n).toString() });
    const other = await h.control<{ positionRequestPubkey: string }>('limit-orders', { ...seed, triggerPrice: ((solMark() * 80n) / 100n).toString() });
    const trigger = ((solMark() * 88n) / 100n).toString();
    h.relay.answerInstead(ORDERS_PATH, async (body) => {
      const b = { ...(body as Body), positionRequestPubkey: other.positionRequestPubkey };
      return 'triggerPrice' in b ? h.direct.call('perps.updateLimitOrder', b as never) : h.direct.call('perps.cancelLimitOrder', b as never);
    });
    try {
      for (const intent of [
        { type: 'limit-order-update', key: `limit:move:other:${w.address}`, reason: 'move', notionalUsd: '0', positionRequestPubkey: mine.positionRequestPubkey, triggerPrice: trigger },
        { type: 'limit-order-cancel', key: `limit:cancel:other:${w.address}`, reason: 'cancel', notionalUsd: '0', positionRequestPubkey: mine.positionRequestPubkey },
      ] as const) {
        const { final } = await runToEnd(w, intent);
        expect(final, intent.type).toMatchObject({ state: 'rejected', sendCount: 0 });
        expect(final!.violations?.some((v) => v.rule === 'product_account' && v.detail.includes(`changes request ${other.positionRequestPubkey}`)), JSON.stringify(final!.violations)).toBe(true);
      }
      expect(w.signatures()).toBe(0);
      expect((await limitOrders(w)).map((o) => o.triggerPrice).sort()).toEqual([((solMark() * 80n) / 100n).toString(), ((solMark() * 90n) / 100n).toString()].sort());
    } finally {
      h.relay.answerNormally(ORDERS_PATH);
    }
  });

  it('the venue keeps the live rules: collateral under $10 at the trigger, or a trigger outside the band, is refused', async () => {
    const w = await h.fundedWallet();
    const base = { walletAddress: w.address, asset: 'SOL', inputToken: 'USDC', side: 'long', leverage: '3' } as const;
    await expect(h.direct.call('perps.createLimitOrder', { ...base, inputTokenAmount: '5000000', triggerPrice: ((solMark() * 90n) / 100n).toString() })).rejects.toThrow(/collateral_below_minimum/);
    await expect(h.direct.call('perps.createLimitOrder', { ...base, inputTokenAmount: '100000000', triggerPrice: ((solMark() * 40n) / 100n).toString() })).rejects.toThrow(/trigger_price/);
  });

  // Last: it moves the ETH price (no other test of this file trades ETH).
  it('fills when the mark crosses the trigger: the order becomes a position', async () => {
    const w = await h.fundedWallet();
    const eth = h.venue.market.price(MINTS.ETH);
    const trigger = (eth * 95n) / 100n;
    const { final } = await runToEnd(w, createIntent(w, 'limit:fill', { marketMint: MINTS.ETH, triggerPrice: trigger.toString() }));
    expect(final).toMatchObject({ state: 'landed' });
    try {
      await h.control('price', { market: 'ETH', priceUsd: ((eth * 94n) / 100n).toString() });
      await h.control('advance', { ms: 1_000 });
      const [order] = await limitOrders(w);
      expect(order).toMatchObject({ executed: true });
      const position = (await h.positions(w)).map(positionView).find((v) => v?.marketMint === MINTS.ETH && v.side === 'long');
      expect(position?.positionPubkey).toBe(final!.positionPubkey);
      expect(position!.sizeUsd).toBeGreaterThan(250_000_000n);
    } finally {
      await h.control('price', { market: 'ETH', priceUsd: eth.toString() });
    }
  });
});

// Hostile open builds that once passed the signing policy (an adversarial review's proofs): an
// attached stop paying out in another mint than the position's collateral, less collateral paid
// for the same size (a higher leverage than the one judged), a reply that names the take-profit as
// the stop (the TP/SL book, and stop arbitration, go by the reply's names). Each is refused before
// signing, and nothing is opened.
/** The open the hostile builds alter, as they were written for it: its stop 5 % above the mark (10 % leaves a 10× short on 30 USDC no room). */
const hostileOpen = (key: string) => openShort(key, { stopLossPrice: ((solMark() * 105n) / 100n).toString() });

/** Runs the open under a hostile build: refused by the policy with intent_exceeded, nothing signed, no position. */
async function refused(name: string, change: (body: Body) => Body, reply?: (res: Body) => Body) {
  const w = await h.fundedWallet();
  hostileIncrease(change, reply);
  try {
    const { final } = await runToEnd(w, hostileOpen(`open:${name}:${w.address}`));
    expect(final, JSON.stringify(final)).toMatchObject({ state: 'rejected', reason: 'policy:intent_exceeded' });
    expect(final?.signedTx).toBeUndefined();
    expect((await positionOf(w, 'short'))?.sizeUsd ?? 0n).toBe(0n);
    return final!;
  } finally {
    h.relay.answerNormally(INCREASE_PATH);
  }
}

describe('hostile open builds are refused before signing', () => {
  it("an attached stop-loss that pays out in another mint than the position's collateral", async () => {
    // The executor asks for desiredMint USDC (the short's collateral); the build pays the stop out in SOL.
    const final = await refused('desired', (b) => ({ ...b, tpsl: (b.tpsl as Body[]).map((t) => ({ ...t, desiredMint: MINTS.SOL })) }));
    expect(JSON.stringify(final.violations)).toContain(`pays out in ${MINTS.SOL}; the build asked for ${MINTS.USDC}`);
  });

  it('30 USDC paid for $300 of size (10x) where the intent asked 100 USDC at 3x', async () => {
    const final = await refused('lev', (b) => {
      const { leverage: _l, ...rest } = b;
      return { ...rest, collateralTokenDelta: '30000000', sizeUsdDelta: '300000000' };
    });
    expect(JSON.stringify(final.violations)).toContain("collateralTokenDelta 30000000 differs from the intent's 100000000");
  });

  it('a reply that names the take-profit as the stop-loss', async () => {
    const final = await refused(
      'swap',
      (b) => b,
      (res) => ({ ...res, tpslRequests: (res.tpslRequests as Body[]).map((t) => ({ ...t, requestType: t.requestType === 'sl' ? 'tp' : 'sl' })) }),
    );
    expect(JSON.stringify(final.violations)).toContain("the build's reply names");
  });

  it('an open whose instruction leaves its collateral out (None) for the same size', async () => {
    const w = await h.fundedWallet();
    h.relay.answerInstead(INCREASE_PATH, async (body) => {
      const res = (await h.direct.call('perps.increase', body as never)) as Body;
      const tx = VersionedTransaction.deserialize(Buffer.from(String(res.serializedTxBase64), 'base64'));
      const perps = (await decodeTransaction(tx)).instructions.find((i) => i.parsed?.program === 'perps' && i.parsed.type === 'instantIncreasePosition')!;
      const args = (perps.parsed as { args: Record<string, unknown> }).args;
      const message = TransactionMessage.decompile(tx.message);
      const ix = message.instructions[perps.index]!;
      ix.data = encodePerpsInstructionData('instantIncreasePosition', { sizeUsdDelta: BigInt(String(args.sizeUsdDelta)), collateralTokenDelta: null, side: 'short', priceSlippage: BigInt(String(args.priceSlippage)), requestTime: BigInt(String(args.requestTime)) });
      return { ...res, serializedTxBase64: Buffer.from(new VersionedTransaction(message.compileToV0Message()).serialize()).toString('base64') };
    });
    try {
      const { final } = await runToEnd(w, hostileOpen(`open:none:${w.address}`));
      expect(final, JSON.stringify(final)).toMatchObject({ state: 'rejected', reason: 'policy:intent_exceeded' });
      expect(JSON.stringify(final!.violations)).toContain("collateralTokenDelta 0 differs from the intent's 100000000");
      expect(w.signatures()).toBe(0);
    } finally {
      h.relay.answerNormally(INCREASE_PATH);
    }
  });

  it('the honest open lands with its stop paid out in the collateral', async () => {
    const w = await h.fundedWallet();
    const { final } = await runToEnd(w, hostileOpen(`open:honest:${w.address}`));
    expect(final, JSON.stringify(final?.violations)).toMatchObject({ state: 'landed' });
    const [sl, tp] = final!.createdTpslPubkeys!;
    expect(h.venue.market.perps.tpsl.get(sl!)).toMatchObject({ requestType: 'sl', desiredMint: MINTS.USDC });
    expect(h.venue.market.perps.tpsl.get(tp!)).toMatchObject({ requestType: 'tp' });
  });
});

// A limit-order update moves the trigger only: a build that also raises the order's size (x100,
// beside the new trigger) is refused before signing, held to the size the wallet's limit-orders
// read lists (an adversarial review found it signed). The honest update lands.
describe("a limit order update keeps the order's size", () => {
  const ORDERS_PATH = '/perps/v1/orders/limit';

  /**
   * Places a SOL long limit order at 90 % of the mark (paid in `inputMint`) and moves it to `toPct`
   * of the mark; `tamper` rewrites the build's size first.
   */
  async function moveOrder(tamper: boolean, inputMint: string = MINTS.USDC, toPct = 88n) {
    const w = await h.fundedWallet();
    const mark = h.venue.market.price(MINTS.SOL);
    const inputAmount = inputMint === MINTS.USDC ? '100000000' : '1000000000';
    const mine = await h.control<{ positionRequestPubkey: string }>('limit-orders', { wallet: w.address, market: 'SOL', side: 'long', inputMint, inputAmount, leverage: '2', triggerPrice: ((mark * 90n) / 100n).toString() });
    if (tamper) {
      h.relay.answerInstead(ORDERS_PATH, async (body) => {
        const res = (await h.direct.call('perps.updateLimitOrder', body as never)) as Body;
        const tx = VersionedTransaction.deserialize(Buffer.from(String(res.serializedTxBase64), 'base64'));
        const decoded = await decodeTransaction(tx);
        const parsed = decoded.instructions.find((i) => i.programId === PROGRAMS.perps)!.parsed as { args: Record<string, unknown> };
        const message = TransactionMessage.decompile(tx.message);
        const ix = message.instructions.find((i) => i.programId.toBase58() === PROGRAMS.perps)!;
        ix.data = encodePerpsInstructionData('instantUpdateLimitOrder', { sizeUsdDelta: BigInt(String(parsed.args.sizeUsdDelta)) * 100n, triggerPrice: BigInt(String(parsed.args.triggerPrice)), requestTime: BigInt(String(parsed.args.requestTime)) });
        return { ...res, serializedTxBase64: Buffer.from(new VersionedTransaction(message.compileToV0Message()).serialize()).toString('base64') };
      });
    }
    try {
      const ex = h.executor(w);
      const job = h.job({ type: 'limit-order-update', key: `limit:move:${w.address}`, reason: 'move', notionalUsd: '0', positionRequestPubkey: mine.positionRequestPubkey, triggerPrice: ((mark * toPct) / 100n).toString() });
      await ex.accept(job);
      return { final: await ex.drive(job.actionId, h.signal), signatures: w.signatures() };
    } finally {
      h.relay.answerNormally(ORDERS_PATH);
    }
  }

  describe('limit-order-update', () => {
    it('a build that raises the order size beside the new trigger is refused, unsigned', async () => {
      const { final, signatures } = await moveOrder(true);
      expect(final).toMatchObject({ state: 'rejected', reason: 'policy:intent_exceeded' });
      expect(JSON.stringify(final!.violations)).toMatch(/sizeUsdDelta \d+ is above the intent's \d+/);
      expect(signatures).toBe(0);
    });

    it('the honest update lands', async () => {
      const { final } = await moveOrder(false);
      expect(final, JSON.stringify(final?.violations)).toMatchObject({ state: 'landed' });
    });

    it('an order paid in SOL moved up lands: its deposit makes a larger size at the higher trigger', async () => {
      const { final } = await moveOrder(false, MINTS.SOL, 95n);
      expect(final, JSON.stringify(final?.violations)).toMatchObject({ state: 'landed' });
    });

    it('an order no listing shows yet is not judged (inspected again), not refused as a hostile build', async () => {
      const w = await h.fundedWallet();
      const inspector = new PolicyInspector({ wallet: w.signer.publicKey, priorityFeeCapLamports: 5_000_000n, slippageBps: 100, limitOrder: async () => undefined });
      const intent = { type: 'limit-order-update' as const, key: 'k', reason: 'r', notionalUsd: '0', positionRequestPubkey: w.address, triggerPrice: '100000000' };
      const tx = new VersionedTransaction(new TransactionMessage({ payerKey: w.signer.publicKey, recentBlockhash: w.address, instructions: [] }).compileToV0Message());
      await expect(inspector.inspect(tx, { intent }, { operationId: 'perps.updateLimitOrder', route: 'perps-execute' })).rejects.toBeInstanceOf(LimitOrderUnlisted);
    });
  });
});
