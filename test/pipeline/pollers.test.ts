import { setTimeout as sleep } from 'node:timers/promises';
import { Keypair } from '@solana/web3.js';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { heldTokenMints } from '../../src/pipeline/pollers/held-token-mints.ts';
import { pollerHeartbeatKey, startPollers, type Pollers } from '../../src/pipeline/pollers/pollers.ts';
import { bullPrefix, QUEUES, snapshotJobId } from '../../src/pipeline/queues.ts';
import { snapshotSchema, type Snapshot } from '../../src/sdk/snapshot.ts';
import { samples } from '../../src/sdk/testing.ts';
import { readLatestSnapshot, readLatestSnapshots, storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { readBoughtMints, recordBoughtMint } from '../../src/records/bought-mints.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { VenueControl } from '../support/venue-control.ts';
import { QUIET_POLLERS } from '../support/quiet-pollers.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('pollers');
const wallet = Keypair.generate().publicKey.toBase58();
let venue: Venue;
let client: ApiClient;
let config: Config;
let market: Queue<Snapshot>;
const running: Pollers[] = [];

function configWith(overrides: Record<string, unknown> = {}): Config {
  return loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix, ...QUIET_POLLERS, ...overrides } }).config;
}

function pollers(options: { config?: Config; now?: () => number; tokenHoldings?: (owner: string) => Promise<Array<{ mint: string; amount: bigint }>> } = {}): Pollers {
  const p = startPollers({ config: options.config ?? config, client, redis: scope.redis, wallet, logger: silentLogger, now: options.now, tokenHoldings: options.tokenHoldings });
  running.push(p);
  return p;
}

beforeAll(async () => {
  await scope.clean();
  venue = await startVenue({ seed: 11 });
  await new VenueControl(venue.apiUrl).fund({
    wallet,
    usdc: '1000000000',
    positions: [
      { market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '2.5' },
      { market: 'ETH', side: 'short', collateralUsd: '100000000', leverage: '3' },
    ],
  });
  client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0 });
  config = configWith();
  market = new Queue<Snapshot>(QUEUES.market, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
});

beforeEach(async () => {
  for (const p of running.splice(0)) await p.stop();
  await market.obliterate({ force: true });
  await scope.clean();
});

afterAll(async () => {
  for (const p of running.splice(0)) await p.stop();
  await market.close();
  await scope.clean();
  await scope.close();
  await client.close();
  await venue.close();
});

describe('a tick', () => {
  it('is one API read and one snapshot job per key, with a deterministic id from (kind, key, slot)', async () => {
    const at = Date.UTC(2026, 0, 1, 12, 0, 7, 420); // slot of "*/10 …" at or before: 12:00:00
    const reports = await pollers({ config: configWith({ 'pollers.poolInfo.cron': '*/10 * * 1 1 *' }) }).tickNow('poolInfo', { at });
    const slot = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(reports.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
    expect(reports.map((r) => r.jobId).sort()).toEqual(
      [MINTS.SOL, MINTS.ETH, MINTS.BTC].map((mint) => snapshotJobId('poolInfo', mint, slot)).sort(),
    );
    const jobs = await market.getJobs(['waiting']);
    expect(jobs).toHaveLength(3);
    for (const job of jobs) {
      expect(job.id).not.toContain(':');
      const snapshot = snapshotSchema.parse(job.data);
      expect(snapshot.kind).toBe('poolInfo');
      expect(snapshot.tickMs).toBe(slot);
      expect(job.id).toBe(snapshotJobId('poolInfo', snapshot.key, slot));
    }
  });

  it('two poller instances ticking the same slot enqueue each snapshot once', async () => {
    const a = pollers();
    const b = pollers();
    const at = Date.UTC(2026, 0, 1, 12, 0, 3);
    const [ra, rb] = await Promise.all([a.tickNow('positions', { at }), b.tickNow('positions', { at: at + 1_500 })]);
    expect(ra[0]!.jobId).toBeDefined();
    expect(ra[0]!.jobId).toBe(rb[0]!.jobId); // "*/5 …": both instants fall in the slot of 12:00:00
    expect(await market.getJobCounts('waiting')).toEqual({ waiting: 1 });
    // The next slot is a new job.
    await a.tickNow('positions', { at: at + 5_000 });
    expect(await market.getJobCounts('waiting')).toEqual({ waiting: 2 });
  });

  it('stores the latest snapshot of each kind+key for strategies to read', async () => {
    const p = pollers();
    await p.tickNow('positions', { at: Date.UTC(2026, 0, 1, 12, 0, 0) });
    const latest = await readLatestSnapshot(scope.redis, scope.prefix, 'positions', wallet);
    expect(latest?.wallet).toBe(wallet);
    expect(latest?.positions).toHaveLength(2);
    expect(latest?.source).toBe('perps.positions');
    // An older slot finishing late does not replace the newer one.
    await p.tickNow('positions', { at: Date.UTC(2026, 0, 1, 11, 59, 0) });
    expect((await readLatestSnapshot(scope.redis, scope.prefix, 'positions', wallet))?.tickMs).toBe(Date.UTC(2026, 0, 1, 12, 0, 0));
  });

  it('polls the collateral limits of each open position, from the latest positions snapshot', async () => {
    const p = pollers();
    const at = Date.UTC(2026, 0, 1, 12, 0, 30);
    await p.tickNow('positions', { at });
    const stale = { ...(await readLatestSnapshot(scope.redis, scope.prefix, 'positions', wallet))! };
    const reports = await p.tickNow('collateralLimits', { at });
    expect(reports.map((r) => r.error)).toEqual([undefined, undefined]);
    const limits = await readLatestSnapshots(scope.redis, scope.prefix, 'collateralLimits');
    expect(limits.map((l) => l.positionPubkey).sort()).toEqual(stale.positions.map((x) => x.positionPubkey).sort());
    expect(limits.every((l) => /^\d+$/.test(l.limits.maxCollateralWithdrawalUsd))).toBe(true);

    // A position that is no longer open loses its stored limits on the next tick.
    const [kept] = stale.positions;
    await storeLatestSnapshot(scope.redis, scope.prefix, { ...stale, tickMs: at + 60_000, positions: [kept!] });
    await p.tickNow('collateralLimits', { at: at + 60_000 });
    expect((await readLatestSnapshots(scope.redis, scope.prefix, 'collateralLimits')).map((l) => l.positionPubkey)).toEqual([kept!.positionPubkey]);
  });

  it('prices the tokens the trigger orders name (active and newest closed) by a token search, the listed mints aside', async () => {
    const p = pollers();
    const at = Date.UTC(2026, 0, 1, 12, 1, 0);
    const [a, b, c] = await client.call('tokens.ranked', { category: 'toptrending', interval: '1h', limit: 3 });
    const order = (inputMint: string, outputMint: string) => ({ ...samples.triggerOrder(), inputMint, outputMint });
    // A bid for a, a sale of b, and c's closed order; USDC is a listed mint, priced as such.
    await storeLatestSnapshot(scope.redis, scope.prefix, { ...samples.triggerOrders([order(MINTS.USDC, a!.id), order(b!.id, MINTS.USDC)], at, wallet), history: [order(c!.id, MINTS.USDC)] });
    expect((await p.tickNow('heldTokens', { at })).map((r) => r.error)).toEqual([undefined]);
    const held = await readLatestSnapshot(scope.redis, scope.prefix, 'heldTokens', wallet);
    expect(held?.source).toBe('tokens.search');
    expect(held?.tokens.map((t) => t.id).sort()).toEqual([a!.id, b!.id, c!.id].sort());
    expect(held?.tokens.find((t) => t.id === b!.id)?.usdPrice).toBe(b!.usdPrice);
  });

  it('prices the tokens the wallet holds on chain that no trigger order names (bought by a swap), zero balances and listed mints aside', async () => {
    const chain = new ChainClient(venue.rpcUrl);
    const at = Date.UTC(2026, 0, 1, 12, 2, 0);
    const ranked = await client.call('tokens.ranked', { category: 'toptrending', interval: '1h', limit: 6 });
    const [held, emptied, ordered] = ranked.slice(3);
    const owner = Keypair.generate().publicKey.toBase58();
    const control = new VenueControl(venue.apiUrl);
    await control.fund({ wallet: owner, usdc: '5000000', tokens: { [held!.id]: '123456789', [emptied!.id]: '1' } });
    // A balance that fell to zero keeps its account, as on chain; it holds nothing to price.
    await control.fund({ wallet: Keypair.generate().publicKey.toBase58(), tokens: { [emptied!.id]: '1' } });
    venue.chain.debitToken(owner, emptied!.id, 1n);
    expect(await chain.tokenHoldings(owner)).toEqual(expect.arrayContaining([{ mint: held!.id, amount: 123_456_789n }, { mint: MINTS.USDC, amount: 5_000_000n }]));
    expect((await chain.tokenHoldings(owner)).map((h) => h.mint)).not.toContain(emptied!.id);

    const p = startPollers({ config, client, redis: scope.redis, wallet: owner, logger: silentLogger, tokenHoldings: (w) => chain.tokenHoldings(w) });
    running.push(p);
    await storeLatestSnapshot(scope.redis, scope.prefix, samples.triggerOrders([{ ...samples.triggerOrder(), inputMint: MINTS.USDC, outputMint: ordered!.id }], at, owner));
    expect((await p.tickNow('heldTokens', { at })).map((r) => r.error)).toEqual([undefined]);
    const snapshot = await readLatestSnapshot(scope.redis, scope.prefix, 'heldTokens', owner);
    expect(snapshot?.tokens.map((t) => t.id).sort()).toEqual([held!.id, ordered!.id].sort());
  });

  it("holdings that do not read (an RPC refusing) cost only themselves: the trigger orders' mints are still priced", async () => {
    const at = Date.UTC(2026, 0, 1, 12, 3, 0);
    const [a] = await client.call('tokens.ranked', { category: 'toptrending', interval: '1h', limit: 1 });
    const p = pollers({ tokenHoldings: async () => Promise.reject(new Error('429 Too Many Requests')) });
    await storeLatestSnapshot(scope.redis, scope.prefix, samples.triggerOrders([{ ...samples.triggerOrder(), inputMint: MINTS.USDC, outputMint: a!.id }], at, wallet));
    expect((await p.tickNow('heldTokens', { at })).map((r) => r.error)).toEqual([undefined]);
    expect((await readLatestSnapshot(scope.redis, scope.prefix, 'heldTokens', wallet))?.tokens.map((t) => t.id)).toEqual([a!.id]);
  });

  it("of the 300 mints three searches take, the orders' come first and the holdings by amount: anyone can send the wallet tokens", () => {
    const bought = 'zBought1111111111111111111111111111111111111';
    const orders = { ...samples.triggerOrders([]), history: [{ ...samples.triggerOrder(), inputMint: MINTS.USDC, outputMint: bought }] };
    const dust = (n: number, amount: bigint) => Array.from({ length: n }, (_, i) => ({ mint: `1Dust${String(i).padStart(3, '0')}1111111111111111111111111111111`, amount }));
    const big = { mint: 'yBig11111111111111111111111111111111111111111', amount: 5_000_000n };
    const mints = heldTokenMints(orders, [...dust(100, 1n), big, { mint: MINTS.USDC, amount: 1n }]);
    expect(mints.slice(0, 2)).toEqual([bought, big.mint]);
    // A hundred airdrops of huge raw amounts come first among the holdings, and the bought one still fits.
    expect(heldTokenMints(orders, [...dust(100, 10n ** 15n), big])).toContain(big.mint);
    expect(heldTokenMints(orders, dust(400, 1n))).toHaveLength(300);
  });

  it("the recurring orders' mints and the mints landed swaps bought come before any airdrop, whatever its amount", () => {
    const dca = 'xDca111111111111111111111111111111111111111';
    const swapped = 'wSwap11111111111111111111111111111111111111';
    const recurring = snapshotSchema.parse({
      kind: 'recurringOrders',
      source: 'recurring.getRecurringOrders',
      key: wallet,
      tickMs: 0,
      receivedAtMs: 0,
      wallet,
      orders: [{ userPubkey: wallet, orderKey: 'k', inputMint: MINTS.USDC, outputMint: dca, rawInDeposited: '1', rawInUsed: '0', rawOutReceived: '0', openTx: 't', closeTx: null, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', trades: [] }],
      history: [],
    }) as Extract<Snapshot, { kind: 'recurringOrders' }>;
    const airdrops = Array.from({ length: 400 }, (_, i) => ({ mint: `1Drop${String(i).padStart(3, '0')}1111111111111111111111111111111`, amount: 10n ** 18n }));
    const mints = heldTokenMints(undefined, [...airdrops, { mint: swapped, amount: 1n }, { mint: dca, amount: 1n }], { recurring, bought: [swapped, MINTS.SOL] });
    expect(mints.slice(0, 2)).toEqual([dca, swapped]);
    expect(mints).toHaveLength(300);
  });

  it('a token a landed swap bought is priced although three searches of airdrops of larger amounts would fill up before it', async () => {
    const at = Date.UTC(2026, 0, 1, 12, 5, 0);
    const [a] = await client.call('tokens.ranked', { category: 'toptrending', interval: '1h', limit: 1 });
    await recordBoughtMint(scope.redis, scope.prefix, wallet, a!.id, at);
    // Another wallet's buys are not this one's.
    await recordBoughtMint(scope.redis, scope.prefix, Keypair.generate().publicKey.toBase58(), '3Other1111111111111111111111111111111111111', at);
    const airdrops = Array.from({ length: 400 }, (_, i) => ({ mint: `1Drop${String(i).padStart(3, '0')}1111111111111111111111111111111`, amount: 10n ** 18n }));
    const p = pollers({ tokenHoldings: async () => [...airdrops, { mint: a!.id, amount: 1n }] });
    expect((await p.tickNow('heldTokens', { at })).map((r) => r.error)).toEqual([undefined]);
    expect((await readLatestSnapshot(scope.redis, scope.prefix, 'heldTokens', wallet))?.tokens.map((t) => t.id)).toEqual([a!.id]);
    // Only the newest hundred are remembered (records/bought-mints.ts).
    const BOUGHT_MINTS_KEPT = 100;
    for (let i = 0; i < BOUGHT_MINTS_KEPT + 5; i++) await recordBoughtMint(scope.redis, scope.prefix, wallet, `2Bought${String(i).padStart(3, '0')}11111111111111111111111111111`, at + 1 + i);
    const kept = await readBoughtMints(scope.redis, scope.prefix, wallet);
    expect(kept).toHaveLength(BOUGHT_MINTS_KEPT);
    expect(kept[0]).toBe(`2Bought${String(BOUGHT_MINTS_KEPT + 4).padStart(3, '0')}11111111111111111111111111111`);
    expect(kept).not.toContain(a!.id);
  });

  it('more than 100 mints are searched 100 at a time', async () => {
    const at = Date.UTC(2026, 0, 1, 12, 4, 0);
    const [a] = await client.call('tokens.ranked', { category: 'toptrending', interval: '1h', limit: 1 });
    const dust = Array.from({ length: 150 }, (_, i) => ({ mint: `1Dust${String(i).padStart(3, '0')}1111111111111111111111111111111`, amount: 10n ** 15n }));
    const p = pollers({ tokenHoldings: async () => [...dust, { mint: a!.id, amount: 1n }] });
    expect((await p.tickNow('heldTokens', { at })).map((r) => r.error)).toEqual([undefined]);
    expect((await readLatestSnapshot(scope.redis, scope.prefix, 'heldTokens', wallet))?.tokens.map((t) => t.id)).toEqual([a!.id]);
  });

  it('every enabled source ticks with tickNow(), and the heartbeat records each', async () => {
    const reports = await pollers().tickNow();
    const kinds = new Set(reports.map((r) => r.kind));
    expect(kinds).toEqual(new Set(['rankedTokens', 'newTokens', 'poolInfo', 'marketStats', 'positions', 'collateralLimits', 'limitOrders', 'trades', 'triggerOrders', 'recurringOrders', 'heldTokens']));
    expect(reports.filter((r) => r.error !== undefined)).toEqual([]);
    const heartbeat = await scope.redis.hgetall(pollerHeartbeatKey(scope.prefix));
    expect(Object.keys(heartbeat).sort()).toEqual([...kinds].sort());
    // What the fill watcher reads: the newest closed trigger orders, the recurring orders active and closed.
    expect(await readLatestSnapshot(scope.redis, scope.prefix, 'triggerOrders', wallet)).toMatchObject({ orders: [], history: [] });
    expect(await readLatestSnapshot(scope.redis, scope.prefix, 'recurringOrders', wallet)).toMatchObject({ source: 'recurring.getRecurringOrders', orders: [], history: [] });
  });
});

/** Pollers reading positions and pool-info every second, with this process's hand-over and send watch. */
function everySecond(hooks: Pick<Parameters<typeof startPollers>[0], 'handOver' | 'untilSent' | 'onSnapshot'>): Pollers {
  const p = startPollers({ config: configWith({ 'pollers.positions.cron': '* * * * * *', 'pollers.poolInfo.cron': '* * * * * *' }), client, redis: scope.redis, wallet, logger: silentLogger, ...hooks });
  running.push(p);
  return p;
}

describe('the schedule', () => {
  it('cron ticks on its own, with the slot as the tick time', async () => {
    pollers({ config: configWith({ 'pollers.positions.cron': '* * * * * *' }) });
    const deadline = Date.now() + 5_000;
    let jobs: Awaited<ReturnType<typeof market.getJobs>> = [];
    while (jobs.length === 0 && Date.now() < deadline) {
      await sleep(100);
      jobs = (await market.getJobs(['waiting'])).filter((j) => j.name === 'positions');
    }
    expect(jobs.length).toBeGreaterThan(0);
    const snapshot = snapshotSchema.parse(jobs[0]!.data);
    expect(snapshot.tickMs % 1000).toBe(0);
    expect(jobs[0]!.id).toBe(snapshotJobId('positions', wallet, snapshot.tickMs));
  });

  it('positions first: on a positions slot, another source reads once the positions decisions were sent', async () => {
    const sentAt = new Map<number, number>();
    const readAt: Array<{ tickMs: number; receivedAtMs: number }> = [];
    const p = everySecond({
      handOver: (snapshot) => (snapshot.kind === 'positions' ? Promise.resolve({ actions: [`act-${snapshot.tickMs}`] }) : undefined),
      // The executor sends the decision 40 ms after it was decided (well within the 250 ms bound).
      untilSent: async (ids) => {
        await sleep(40);
        sentAt.set(Number(ids[0]!.slice(4)), Date.now());
      },
      onSnapshot: async (snapshot) => {
        if (snapshot.kind === 'poolInfo') readAt.push({ tickMs: snapshot.tickMs, receivedAtMs: snapshot.receivedAtMs });
      },
    });
    const deadline = Date.now() + 8_000;
    // The first pool-info read of a start does not wait (the executor reads it): three slots after it.
    while (new Set(readAt.map((r) => r.tickMs)).size < 4 && Date.now() < deadline) await sleep(100);
    await p.stop();
    const slots = [...new Set(readAt.map((r) => r.tickMs))].sort().slice(1);
    expect(slots.length).toBeGreaterThanOrEqual(3);
    for (const slot of slots) {
      expect(sentAt.has(slot), `the positions decision of slot ${slot} was waited for`).toBe(true);
      for (const read of readAt.filter((r) => r.tickMs === slot)) expect(read.receivedAtMs).toBeGreaterThanOrEqual(sentAt.get(slot)!);
    }
  });

  it('positions first never holds the other sources for good: decisions that are never sent are waited out', async () => {
    const ticks = new Set<number>();
    const p = everySecond({
      handOver: (snapshot) => (snapshot.kind === 'positions' ? Promise.resolve({ actions: ['act-never-sent'] }) : undefined),
      untilSent: () => new Promise(() => undefined),
      onSnapshot: async (snapshot) => {
        if (snapshot.kind === 'poolInfo') ticks.add(snapshot.tickMs);
      },
    });
    const deadline = Date.now() + 8_000;
    while (ticks.size < 4 && Date.now() < deadline) await sleep(100);
    await p.stop();
    expect(ticks.size).toBeGreaterThanOrEqual(4);
  });

  it('a failed read is reported and skipped; the other reads of the tick go through', async () => {
    const broken = new RecordingServer();
    const url = await broken.start();
    broken.responder = (req) => (req.query.mint === MINTS.ETH ? { status: 503, body: '{"code":"unavailable","message":"down"}' } : { status: 200, body: JSON.stringify({
      longAvailableLiquidity: '1', longBorrowRatePercent: '0', longUtilizationPercent: '0', shortAvailableLiquidity: '1',
      shortBorrowRatePercent: '0', shortUtilizationPercent: '0', openFeePercent: '0.06', maxRequestExecutionSec: '45', maxPriceImpactFeePercent: '0.5',
    }) });
    const flaky = new ApiClient({ baseUrl: url, retries: 0 });
    const p = startPollers({ config, client: flaky, redis: scope.redis, wallet, logger: silentLogger });
    running.push(p);
    const reports = await p.tickNow('poolInfo', { at: Date.UTC(2026, 0, 1, 12, 0, 0) });
    expect(reports.find((r) => r.key === MINTS.ETH)?.error).toContain('503');
    expect(reports.filter((r) => r.jobId !== undefined)).toHaveLength(2);
    expect(await market.getJobCounts('waiting')).toEqual({ waiting: 2 });
    await p.stop();
    await flaky.close();
    await broken.stop();
  });
});
