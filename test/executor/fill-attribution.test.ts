// Issue 8, defect 1: a keeper-awaited request counts as landed only when the keeper executed ITS
// OWN request. Through the real venue: another decrease of the same position fills while our
// request waits, and the keeper then refuses ours; the action must not be "landed".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { requestClaimKey } from '../../src/pipeline/executor/action-store.ts';
import { isFillOf, KeeperFillWatchOverflow, TradeHistoryKeeperFillWatch } from '../../src/pipeline/executor/keeper-fill-watch.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import type { TradeEntry } from '../../src/venue/market/trades.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { until, VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
let h: VenueExecutorHarness;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, `stratd-test:{fill-attribution-${process.pid}}:`, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 0 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

const DELTA = 50_000_000n;

async function solLong(w: TestWallet) {
  const view = (await h.positions(w)).map(positionView).find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL);
  if (!view) throw new Error('the funded SOL long is missing');
  return view;
}

function decrease(positionPubkey: string, key: string): Intent {
  return { type: 'decrease', key, reason: 'trim', notionalUsd: DELTA.toString(), positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: DELTA.toString() };
}

/** A decrease fill of a wallet's SOL long as the venue's keeper records it, for the history's shape. */
function decreaseFill(o: { owner: string; txHash: string; positionRequestPubkey: string; createdMs: number; pnlUsd?: bigint; feeUsd?: bigint }): Omit<TradeEntry, 'seq'> {
  return {
    positionPubkey: 'position', action: 'Decrease', orderType: 'Market', side: 'long', mint: MINTS.SOL, positionName: 'SOL-PERP',
    price: 150_000_000n, sizeUsd: 1_000_000n, collateralUsdDelta: 0n, pnlUsd: 0n, pnlPercentage: '0.00', baseFeeUsd: 0n, priceImpactFeeUsd: 0n,
    borrowFeeUsd: 0n, liquidationFeeUsd: 0n, feeUsd: 0n, transactionFeeLamports: 0n, priorityFeeLamports: 0n, ...o,
  };
}

/** Records the executor saw land (its onLandingSeen hook: the sight is not written), by action id. */
const sightings = new Map<string, ActionRecord>();
const sawLanding = (r: ActionRecord) => void sightings.set(r.actionId, r);

/** The action's record once its request was seen landed on chain. */
function landingSeen(actionId: string): Promise<ActionRecord> {
  return until('our request to land on chain', async () => sightings.get(actionId));
}

interface VenueOutcome {
  readonly requestPubkey: string;
  readonly status: string;
  readonly reason: string | null;
}

async function keeperOutcomes(): Promise<VenueOutcome[]> {
  const res = await fetch(`${h.venue.apiUrl}/__venue/state`);
  const state = (await res.json()) as { perps?: { outcomes?: VenueOutcome[] }; requestOutcomes?: VenueOutcome[] };
  return state.requestOutcomes ?? state.perps?.outcomes ?? [];
}

describe('fill attribution of keeper-awaited requests', () => {
  it('another fill of the same position does not land our request; the refused request ends expired', async () => {
    // Our request waits 10 s for the keeper, which then refuses it (older than 5 s).
    h.venue.applyFaults({ decreaseInstantShare: 0, keeperDelayMs: 10_000, maxRequestExecutionSec: 5 });
    try {
      const w = await h.fundedWallet();
      const position = (await solLong(w)).positionPubkey;
      const venueNow = () => h.venue.clock.now();
      const watch = new TradeHistoryKeeperFillWatch(h.client, w.signer.publicKey);
      let looks = 0;
      const keeper = { fulfilled: async (r: ActionRecord) => (looks++, watch.fulfilled(r)) };
      const ex = h.executor(w, { now: venueNow, requestValidity: async () => 5, keeperGraceMs: 0, keeperFills: keeper, onLandingSeen: sawLanding });
      const ours = h.job(decrease(position, `decrease:ours:${position}`));
      await ex.accept(ours);
      const drivingOurs = ex.drive(ours.actionId, h.signal);
      const seen = await landingSeen(ours.actionId);
      expect(seen.positionRequestPubkey).toBeDefined();

      // Another decrease of the same position, executed by the keeper at once.
      h.venue.applyFaults({ keeperDelayMs: 0 });
      const other = h.job(decrease(position, `decrease:other:${position}`));
      await ex.accept(other);
      const otherFinal = await ex.drive(other.actionId, h.signal);
      expect(otherFinal?.state).toBe('landed');
      expect(otherFinal?.positionRequestPubkey).not.toBe(seen.positionRequestPubkey);

      // A few polls of ours see that fill: it is not ours.
      const looksBefore = looks;
      await until('our action to look at the trades twice after the other fill', () => looks >= looksBefore + 4 || undefined);
      expect((await h.store.load(ours.actionId))?.record.state).toBe('submitted');

      // The keeper's turn for ours: it refuses the stale request.
      h.venue.advance(10_000);
      const final = await drivingOurs;
      expect(final).toMatchObject({ state: 'expired', reason: 'keeper_timeout', detail: expect.stringContaining(`position request ${seen.positionRequestPubkey}`) });
      const outcome = (await keeperOutcomes()).find((o) => o.requestPubkey === seen.positionRequestPubkey);
      expect(outcome?.status).toBe('rejected');
      expect(h.outcomesOf(ours.actionId)).toEqual(['ambiguous', 'expired']);
      // Its request's claim now says it ended unlanded: a fill the keeper makes of it after all is booked (fill-watcher.ts).
      expect(await redis.get(requestClaimKey(h.prefix, seen.positionRequestPubkey!))).toBe(`unlanded:${ours.actionId}`);
    } finally {
      h.venue.applyFaults({ keeperDelayMs: 1_000, maxRequestExecutionSec: 45 });
    }
  });

  it('finds its fill behind more than a page of later decreases of the same wallet and market', async () => {
    const w = await h.fundedWallet();
    const owner = w.signer.publicKey.toBase58();
    const at = h.venue.clock.now();
    // Ours filled first; 250 other decreases of this wallet's SOL market filled after it, so the
    // newest-first history shows ours on its third page.
    for (let n = 0; n <= 250; n++) h.venue.market.trades.record(decreaseFill({ owner, txHash: `sig-${String(n)}`, positionRequestPubkey: `request-${String(n)}`, createdMs: at + n }));
    const watch = new TradeHistoryKeeperFillWatch(h.client, w.signer.publicKey);
    const record = (request: string, signature: string) => ({ actionId: `paging-${request}`, builtAtMs: at - 1_000, marketMint: MINTS.SOL, positionRequestPubkey: request, signature }) as ActionRecord;
    expect(await watch.fulfilled(record('request-0', 'sig-ours'))).toBeTruthy();
    expect(await watch.fulfilled(record('request-elsewhere', 'sig-0'))).toBeTruthy();
    expect(await watch.fulfilled(record('request-elsewhere', 'sig-elsewhere'))).toBe(false);
  });

  it('a window too long to read says so instead of calling the request refused', async () => {
    const w = await h.fundedWallet();
    const owner = w.signer.publicKey.toBase58();
    const at = h.venue.clock.now();
    // 5,001 other decreases since the build: one more than the 50 pages of 100 a look reads.
    for (let n = 0; n <= 5_000; n++) h.venue.market.trades.record(decreaseFill({ owner, txHash: `many-${String(n)}`, positionRequestPubkey: `many-request-${String(n)}`, createdMs: at + n }));
    const watch = new TradeHistoryKeeperFillWatch(h.client, w.signer.publicKey);
    const unfilled = { actionId: 'overflow', builtAtMs: at - 1_000, marketMint: MINTS.SOL, positionRequestPubkey: 'request-unfilled', signature: 'sig-unfilled' } as ActionRecord;
    await expect(watch.fulfilled(unfilled)).rejects.toBeInstanceOf(KeeperFillWatchOverflow);
    // Within the pages it reads, it still answers.
    expect(await watch.fulfilled({ ...unfilled, positionRequestPubkey: 'many-request-4000' })).toBeTruthy();
  });

  it('looks at the same window share one read, each answered by a read that started after it was asked', async () => {
    const w = await h.fundedWallet();
    const owner = w.signer.publicKey.toBase58();
    const at = h.venue.clock.now();
    for (let n = 0; n < 10; n++) h.venue.market.trades.record(decreaseFill({ owner, txHash: `shared-sig-${String(n)}`, positionRequestPubkey: `shared-request-${String(n)}`, createdMs: at + n }));
    // The real client and venue; the first read's answer is held back until released, so a look
    // can be asked while that read is in flight.
    let reads = 0;
    let hold: Promise<void> | undefined;
    let answered: () => void = () => undefined;
    const client = {
      call: async (...args: Parameters<typeof h.client.call>) => {
        if (args[0] === 'perps.trades') reads++;
        const reply = await h.client.call(...args);
        answered();
        if (hold) await hold;
        return reply;
      },
    } as typeof h.client;
    const watch = new TradeHistoryKeeperFillWatch(client, w.signer.publicKey, { readIntervalMs: 0 });
    const record = (request: string) => ({ actionId: `shared-${request}`, builtAtMs: at, marketMint: MINTS.SOL, positionRequestPubkey: request, signature: `sig-of-${request}` }) as ActionRecord;

    // Twenty looks asked together: one read answers all of them, each by its own request.
    const together = await Promise.all(Array.from({ length: 20 }, (_, n) => watch.fulfilled(record(`shared-request-${String(n)}`))));
    expect(together.map((fill) => fill !== false)).toEqual(Array.from({ length: 20 }, (_, n) => n < 10));
    expect(reads).toBe(1);

    // A look asked while a read is in flight waits for the next read: the fill recorded after the
    // first read was answered is not missed by a look asked after it.
    let release: () => void = () => undefined;
    hold = new Promise<void>((resolve) => (release = resolve));
    const firstAnswered = new Promise<void>((resolve) => (answered = resolve));
    const early = watch.fulfilled(record('shared-request-late'));
    await firstAnswered;
    h.venue.market.trades.record(decreaseFill({ owner, txHash: 'shared-sig-late', positionRequestPubkey: 'shared-request-late', createdMs: at + 20 }));
    const late = watch.fulfilled(record('shared-request-late'));
    release();
    hold = undefined;
    expect(await early).toBe(false);
    expect(await late).toMatchObject({ trade: { positionRequestPubkey: 'shared-request-late' } });
    expect(reads).toBe(3);
  });

  it('a fill the chain stamped before our build is found by the last look, and the action lands instead of expiring', async () => {
    // The keeper never fills on its own here; the fill is written into the venue's history as a
    // chain whose block time runs 30 s behind our clock would stamp it.
    h.venue.applyFaults({ decreaseInstantShare: 0, keeperDelayMs: 600_000, maxRequestExecutionSec: 5 });
    try {
      const w = await h.fundedWallet();
      const position = (await solLong(w)).positionPubkey;
      const watch = new TradeHistoryKeeperFillWatch(h.client, w.signer.publicKey);
      const looks: boolean[] = [];
      const keeper = { fulfilled: async (r: ActionRecord, o?: { lastLook?: boolean }) => (looks.push(o?.lastLook === true), watch.fulfilled(r, o)) };
      const ex = h.executor(w, { now: () => h.venue.clock.now(), requestValidity: async () => 5, keeperGraceMs: 0, keeperFills: keeper, onLandingSeen: sawLanding });
      const ours = h.job(decrease(position, `decrease:skewed:${position}`));
      await ex.accept(ours);
      const driving = ex.drive(ours.actionId, h.signal);
      const seen = await landingSeen(ours.actionId);
      h.venue.market.trades.record(
        decreaseFill({ owner: w.signer.publicKey.toBase58(), txHash: seen.signature!, positionRequestPubkey: seen.positionRequestPubkey!, createdMs: seen.builtAtMs! - 30_000, pnlUsd: -12_345_678n, feeUsd: 1_000_000n }),
      );
      const before = looks.length;
      await until('an ordinary look after the fill was written', () => looks.length > before || undefined);
      expect((await h.store.load(ours.actionId))?.record.state).toBe('submitted');
      h.venue.advance(10_000);
      const final = await driving;
      expect(final?.state).toBe('landed');
      // What the fill realised (pnl less fee), not the build's quote, goes to the daily loss stop.
      expect(seen.realisedPnlUsd).toBeDefined();
      expect(final?.realisedPnlUsd).toBe('-13345678');
      expect(looks.at(-1)).toBe(true);
      expect(h.outcomesOf(ours.actionId)).toEqual(['ambiguous', 'landed']);
    } finally {
      h.venue.applyFaults({ keeperDelayMs: 1_000, maxRequestExecutionSec: 45 });
    }
  });

  it('a trade is the fill of a request only by the request account or by its own transaction', () => {
    const trade = { txHash: 'sigOther', positionRequestPubkey: 'reqOther' } as Parameters<typeof isFillOf>[0];
    expect(isFillOf(trade, { signature: 'sigOurs', positionRequestPubkey: 'reqOurs' })).toBe(false);
    expect(isFillOf({ ...trade, positionRequestPubkey: 'reqOurs' }, { signature: 'sigOurs', positionRequestPubkey: 'reqOurs' })).toBe(true);
    expect(isFillOf({ ...trade, txHash: 'sigOurs', positionRequestPubkey: null }, { signature: 'sigOurs', positionRequestPubkey: 'reqOurs' })).toBe(true);
  });
});
