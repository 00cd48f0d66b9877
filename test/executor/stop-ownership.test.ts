// Issue 25, several strategies on one stop: the TP/SL book records which strategy created each
// request and which one last set its trigger, when the action lands (real Redis); tpsl-coverage
// manages only its own requests by default; and a TP/SL update or cancel that would loosen a stop
// another strategy set is refused before it is built and again before it is signed. Real parts:
// the venue's HTTP server and chain, the executor as the daemon wires it, the strategy worker
// running the shipped strategy.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import type { Executor } from '../../src/pipeline/executor/executor.ts';
import { bullPrefix, QUEUES } from '../../src/pipeline/queues.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { settleAction, startStrategyWorker, type StrategyWorker } from '../../src/pipeline/strategy-worker.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { allowAllRisk } from '../../src/pipeline/executor/ports.ts';
import { withStopArbitration } from '../../src/risk/stop-arbitration.ts';
import { unbookedTpslActions } from '../../src/pipeline/executor/unbooked-tpsl.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { readTpslBook } from '../../src/risk/tpsl-book.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { samples } from '../../src/sdk/testing.ts';
import coverage from '../../strategies/tpsl-coverage/index.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const scope = redisScope('stop-ownership');
let h: VenueExecutorHarness;
let market: Queue<Snapshot>;

beforeAll(async () => {
  await scope.clean();
  h = await VenueExecutorHarness.start(scope.redis, scope.prefix, { slotMs: 20, blockhashValidBlocks: 750 });
  market = new Queue(QUEUES.market, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
});
afterAll(async () => {
  await market.close();
  await h.stop();
  await scope.clean();
  await scope.close();
});

async function solLong(w: TestWallet) {
  const view = (await h.positions(w)).map(positionView).find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL);
  if (!view) throw new Error('the funded SOL long is missing');
  return view;
}

/** The executor as the daemon wires its settlement: the strategy side (state, intent key) and the TP/SL book, in Redis. */
function bookingExecutor(w: TestWallet, extra: Parameters<VenueExecutorHarness['executor']>[1] = {}): Executor {
  return h.executor(w, { settle: async (record: ActionRecord, outcome) => void (await settleAction(scope.redis, scope.prefix, record, outcome)), ...extra });
}

/** Runs one intent of `strategy` to its end through `executor`. */
async function act(executor: Executor, strategy: string, intent: Intent): Promise<ActionRecord | undefined> {
  const job = { ...h.job(intent), strategy };
  await executor.accept(job);
  return executor.drive(job.actionId, h.signal);
}

/** A strategy worker on this scope whose actions this process's executor takes and drives to their end. */
function workerWith(strategies: LoadedStrategy[], executor: Executor) {
  const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix } });
  const drives: Array<Promise<unknown>> = [];
  const worker: StrategyWorker = startStrategyWorker({
    config,
    redis: scope.redis,
    strategies,
    logger: silentLogger,
    ledger: h.ledger,
    accept: async (action, fresh) => {
      const stored = await executor.accept(action, { fresh });
      drives.push(executor.drive(action.actionId, h.signal, stored));
    },
  });
  let n = 0;
  return {
    worker,
    /** One positions snapshot of the wallet, read from the venue now, through the market queue; resolves when its actions ended. */
    async tick(w: TestWallet): Promise<void> {
      const snapshot = samples.positions(await h.positions(w), Date.now(), w.address);
      const job = await market.add(snapshot.kind, snapshot, { jobId: `tick-${++n}-${w.address}` });
      await expect.poll(() => market.getJobState(job.id!), { timeout: 15_000 }).toBe('completed');
      await Promise.all(drives.splice(0));
    },
  };
}

describe('tpsl-coverage manages only the requests it created (manage: own)', () => {
  it('leaves a hand-placed stop alone, adds its own beside it, and books its own to itself', async () => {
    const w = await h.fundedWallet();
    const executor = bookingExecutor(w);
    const p = await solLong(w);
    // Placed by hand: through the venue, but not by a strategy of this deployment (nothing books it).
    const handTrigger = p.liquidationPriceUsd + (p.markPriceUsd - p.liquidationPriceUsd) / 10n;
    const hand = await act(h.executor(w), 'venue-test', {
      type: 'tpsl-create', key: `hand:${p.positionPubkey}`, reason: 'placed by hand', notionalUsd: '0', positionPubkey: p.positionPubkey,
      marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: handTrigger.toString(), receiveToken: 'USDC',
    });
    expect(hand).toMatchObject({ state: 'landed' });
    const [handStop] = (await solLong(w)).tpslRequests;

    const strategies = [{ strategy: coverage, config: coverage.config.parse({ settleMs: 0 }), file: 'tpsl-coverage/index.ts' }] as LoadedStrategy[];
    const { worker, tick } = workerWith(strategies, executor);
    try {
      // The hand's stop is far looser than coverage's target: coverage adds its own instead of moving the hand's.
      await tick(w);
      const stops = (await solLong(w)).tpslRequests.filter((r) => r.requestType === 'sl');
      expect(stops).toHaveLength(2);
      expect(stops.find((s) => s.pubkey === handStop!.pubkey)?.triggerPriceUsd).toBe(handTrigger);
      const own = stops.find((s) => s.pubkey !== handStop!.pubkey)!;
      const book = await readTpslBook(scope.redis, scope.prefix);
      expect(book.entries.get(own.pubkey)).toMatchObject({ owner: 'tpsl-coverage', setBy: 'tpsl-coverage', triggerPrice: own.triggerPriceUsd.toString(), requestType: 'sl', side: 'long' });
      expect(book.entries.has(handStop!.pubkey)).toBe(false);

      // Two stops now, the hand's the looser: it is not coverage's surplus to cancel.
      await tick(w);
      await tick(w);
      const after = (await solLong(w)).tpslRequests.filter((r) => r.requestType === 'sl');
      expect(after.map((s) => [s.pubkey, s.triggerPriceUsd]).sort()).toEqual(stops.map((s) => [s.pubkey, s.triggerPriceUsd]).sort());
      const decisions = (await h.ledger.read({ limit: 10_000, types: ['decision'] })).filter((e) => e.strategy === 'tpsl-coverage');
      expect(decisions.map((e) => (e.detail as { intentType: string }).intentType)).toEqual(['tpsl-create']);
    } finally {
      await worker.close();
    }
  });
});

describe('stop arbitration: several strategies on one stop, the tightest wins', () => {
  const move = (tpslPubkey: string, triggerPrice: bigint, extra: Partial<Extract<Intent, { type: 'tpsl-update' }>> = {}): Intent => ({
    type: 'tpsl-update', key: `move:${tpslPubkey}:${triggerPrice}`, reason: 'move the stop', notionalUsd: '0', tpslPubkey, triggerPrice: triggerPrice.toString(), ...extra,
  });
  const arbitrationEntries = async () => (await h.ledger.read({ limit: 10_000, types: ['risk'] })).filter((e) => (e.detail as { event?: string }).event === 'stop_arbitration');

  it('refuses a loosening move or a cancel of a stop another strategy tightened, whatever the landing order; an explicit opt-out passes', async () => {
    const w = await h.fundedWallet();
    const executor = bookingExecutor(w, { risk: withStopArbitration(allowAllRisk, { redis: scope.redis, prefix: scope.prefix, ledger: h.ledger }) });
    const p = await solLong(w);
    const created = p.liquidationPriceUsd + (p.markPriceUsd - p.liquidationPriceUsd) / 2n;
    expect(await act(executor, 'tpsl-coverage', {
      type: 'tpsl-create', key: `sl:${p.positionPubkey}`, reason: 'cover', notionalUsd: '0', positionPubkey: p.positionPubkey,
      marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: created.toString(), receiveToken: 'USDC',
    })).toMatchObject({ state: 'landed' });
    const [stop] = (await solLong(w)).tpslRequests;
    const pubkey = stop!.pubkey;

    // The trailing stop tightens coverage's stop: allowed (it lowers risk), and booked as the trailing stop's.
    const trailed = created + (p.markPriceUsd - created) / 2n;
    expect(await act(executor, 'trailing-stop', move(pubkey, trailed))).toMatchObject({ state: 'landed' });
    expect((await readTpslBook(scope.redis, scope.prefix)).entries.get(pubkey)).toMatchObject({ owner: 'tpsl-coverage', setBy: 'trailing-stop', triggerPrice: trailed.toString() });

    // Coverage, from a stale snapshot, moves it back towards its own target: refused before anything is signed.
    const signatures = w.signatures();
    const loosened = created + (trailed - created) / 2n;
    const refused = await act(executor, 'tpsl-coverage', move(pubkey, loosened));
    expect(refused).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration' });
    expect(refused!.detail).toContain('would loosen it');
    const cancelled = await act(executor, 'tpsl-coverage', { type: 'tpsl-cancel', key: `cancel:${pubkey}`, reason: 'surplus', notionalUsd: '0', tpslPubkey: pubkey });
    expect(cancelled).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration' });
    expect(w.signatures()).toBe(signatures);
    expect((await solLong(w)).tpslRequests).toMatchObject([{ pubkey, triggerPriceUsd: trailed }]);
    const [cancelEntry, moveEntry] = await arbitrationEntries();
    expect(moveEntry).toMatchObject({ strategy: 'tpsl-coverage', detail: { stage: 'accept', tpslPubkey: pubkey, owner: 'tpsl-coverage', setBy: 'trailing-stop', setTriggerPrice: trailed.toString(), requested: loosened.toString() } });
    expect(cancelEntry).toMatchObject({ detail: { requested: 'cancel', setBy: 'trailing-stop' } });

    // The other landing order: coverage's move is accepted while coverage still set the stop last;
    // the trailing stop's tighter move lands before it is signed, and the check before signing refuses it.
    const back = trailed + (p.markPriceUsd - trailed) / 4n;
    expect(await act(executor, 'tpsl-coverage', move(pubkey, back))).toMatchObject({ state: 'landed' });
    const late = { ...h.job(move(pubkey, trailed + 1n)), strategy: 'tpsl-coverage' };
    await executor.accept(late);
    const tighter = back + (p.markPriceUsd - back) / 4n;
    expect(await act(executor, 'trailing-stop', move(pubkey, tighter))).toMatchObject({ state: 'landed' });
    expect(await executor.drive(late.actionId, h.signal)).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration' });
    expect((await arbitrationEntries())[0]).toMatchObject({ actionId: late.actionId, detail: { stage: 'sign', setBy: 'trailing-stop', setTriggerPrice: tighter.toString() } });
    expect((await solLong(w)).tpslRequests).toMatchObject([{ pubkey, triggerPriceUsd: tighter }]);

    // An explicit opt-out on the intent: the move lands.
    expect(await act(executor, 'tpsl-coverage', move(pubkey, back, { stopArbitration: 'off' }))).toMatchObject({ state: 'landed' });
    expect((await solLong(w)).tpslRequests).toMatchObject([{ pubkey, triggerPriceUsd: back }]);
  });

  it('counts a move that is on the venue but not yet seen landing (so not booked) as set', async () => {
    const w = await h.fundedWallet();
    const unbooked = unbookedTpslActions(new ActionStore(scope.redis, scope.prefix));
    const executor = bookingExecutor(w, { risk: withStopArbitration(allowAllRisk, { redis: scope.redis, prefix: scope.prefix, ledger: h.ledger, unbooked }) });
    const p = await solLong(w);
    const created = p.liquidationPriceUsd + (p.markPriceUsd - p.liquidationPriceUsd) / 2n;
    expect(await act(executor, 'tpsl-coverage', {
      type: 'tpsl-create', key: `sl:${p.positionPubkey}`, reason: 'cover', notionalUsd: '0', positionPubkey: p.positionPubkey,
      marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: created.toString(), receiveToken: 'USDC',
    })).toMatchObject({ state: 'landed' });
    const [stop] = (await solLong(w)).tpslRequests;
    const pubkey = stop!.pubkey;

    // The trailing stop's tighter move lands on the venue; its executor stops at `submitted` before it looks.
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const trailer = bookingExecutor(w, { onTransition: async (r) => void (r.state === 'submitted' ? await held : undefined) });
    const trailed = created + (p.markPriceUsd - created) / 2n;
    const trailing = act(trailer, 'trailing-stop', move(pubkey, trailed));
    try {
      await expect.poll(async () => (await solLong(w)).tpslRequests[0]?.triggerPriceUsd, { timeout: 15_000 }).toBe(trailed);
      expect((await readTpslBook(scope.redis, scope.prefix)).entries.get(pubkey)).toMatchObject({ setBy: 'tpsl-coverage', triggerPrice: created.toString() });
      // Coverage, which the book still says set it last, moves it back: refused all the same.
      const loosened = created + (trailed - created) / 2n;
      const refused = await act(executor, 'tpsl-coverage', move(pubkey, loosened));
      expect(refused).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration' });
      expect(refused!.detail).toContain(`trailing-stop set it at ${trailed}`);
    } finally {
      letGo();
    }
    expect(await trailing).toMatchObject({ state: 'landed' });
    expect((await solLong(w)).tpslRequests).toMatchObject([{ pubkey, triggerPriceUsd: trailed }]);
  });

  it("judges the direction by side and type: a short's stop-loss loosens upwards, a take-profit loosens away from the mark", async () => {
    const w = await h.fundedWallet();
    await h.control('fund', { wallet: w.address, positions: [{ market: 'SOL', side: 'short', collateralUsd: '100000000', leverage: '3' }] });
    const executor = bookingExecutor(w, { risk: withStopArbitration(allowAllRisk, { redis: scope.redis, prefix: scope.prefix, ledger: h.ledger }) });
    const long = await solLong(w);
    const short = (await h.positions(w)).map(positionView).find((v) => v?.side === 'short' && v.marketMint === MINTS.SOL)!;
    const create = (p: typeof long, requestType: 'tp' | 'sl', trigger: bigint): Intent => ({
      type: 'tpsl-create', key: `${requestType}:${p.positionPubkey}`, reason: 'protect', notionalUsd: '0', positionPubkey: p.positionPubkey,
      marketMint: MINTS.SOL, side: p.side, requestType, triggerPrice: trigger.toString(), receiveToken: 'USDC',
    });
    const requestOf = async (positionPubkey: string, requestType: 'tp' | 'sl') =>
      (await h.positions(w)).map(positionView).find((v) => v?.positionPubkey === positionPubkey)!.tpslRequests.find((r) => r.requestType === requestType)!;

    // A short's stop-loss sits above the mark: up (towards its liquidation) loosens, down tightens.
    const shortStop = short.markPriceUsd + (short.liquidationPriceUsd - short.markPriceUsd) / 2n;
    expect(await act(executor, 'tpsl-coverage', create(short, 'sl', shortStop))).toMatchObject({ state: 'landed' });
    const sl = await requestOf(short.positionPubkey, 'sl');
    const higher = shortStop + (short.liquidationPriceUsd - shortStop) / 2n;
    expect(await act(executor, 'other-stop', move(sl.pubkey, higher))).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration' });
    const lower = shortStop - (shortStop - short.markPriceUsd) / 2n;
    expect(await act(executor, 'other-stop', move(sl.pubkey, lower))).toMatchObject({ state: 'landed' });
    expect((await requestOf(short.positionPubkey, 'sl')).triggerPriceUsd).toBe(lower);

    // A long's take-profit sits above the mark: further up keeps the exposure longer (loosens), nearer ends it sooner.
    const target = long.markPriceUsd + long.markPriceUsd / 5n;
    expect(await act(executor, 'take-profit-ladder', create(long, 'tp', target))).toMatchObject({ state: 'landed' });
    const tp = await requestOf(long.positionPubkey, 'tp');
    expect(await act(executor, 'other-stop', move(tp.pubkey, target + long.markPriceUsd / 10n))).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration' });
    const nearer = target - long.markPriceUsd / 10n;
    expect(await act(executor, 'other-stop', move(tp.pubkey, nearer))).toMatchObject({ state: 'landed' });
    expect((await requestOf(long.positionPubkey, 'tp')).triggerPriceUsd).toBe(nearer);
  });

  it('keeps every other strategy\'s trigger as a floor: a strategy that tightened a stop may not then loosen it past the trigger another set, nor cancel it', async () => {
    const w = await h.fundedWallet();
    const executor = bookingExecutor(w, { risk: withStopArbitration(allowAllRisk, { redis: scope.redis, prefix: scope.prefix, ledger: h.ledger }) });
    const p = await solLong(w);
    const created = p.liquidationPriceUsd + (p.markPriceUsd - p.liquidationPriceUsd) / 2n;
    expect(await act(executor, 'tpsl-coverage', {
      type: 'tpsl-create', key: `sl:${p.positionPubkey}`, reason: 'cover', notionalUsd: '0', positionPubkey: p.positionPubkey,
      marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: created.toString(), receiveToken: 'USDC',
    })).toMatchObject({ state: 'landed' });
    const [stop] = (await solLong(w)).tpslRequests;
    const pubkey = stop!.pubkey;

    // Another strategy tightens it: it set the trigger last.
    const tightened = created + (p.markPriceUsd - created) / 2n;
    expect(await act(executor, 'other-stop', move(pubkey, tightened))).toMatchObject({ state: 'landed' });
    // Back down, but not past coverage's trigger: its own move, allowed.
    const between = created + (tightened - created) / 2n;
    expect(await act(executor, 'other-stop', move(pubkey, between))).toMatchObject({ state: 'landed' });
    // Past coverage's trigger: a loosening of what coverage set, whoever set it last.
    const signatures = w.signatures();
    const below = created - (created - p.liquidationPriceUsd) / 2n;
    const refused = await act(executor, 'other-stop', move(pubkey, below));
    expect(refused).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration' });
    expect(refused!.detail).toContain('would loosen it');
    // Nor may it remove the stop coverage created.
    expect(await act(executor, 'other-stop', { type: 'tpsl-cancel', key: `cancel:${pubkey}`, reason: 'mine now', notionalUsd: '0', tpslPubkey: pubkey })).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration' });
    expect(w.signatures()).toBe(signatures);
    expect((await solLong(w)).tpslRequests).toMatchObject([{ pubkey, triggerPriceUsd: between }]);
    const [cancelEntry, moveEntry] = await arbitrationEntries();
    expect(moveEntry).toMatchObject({ strategy: 'other-stop', detail: { tpslPubkey: pubkey, owner: 'tpsl-coverage', setBy: 'tpsl-coverage', setTriggerPrice: created.toString(), requested: below.toString() } });
    expect(cancelEntry).toMatchObject({ strategy: 'other-stop', detail: { requested: 'cancel', setBy: 'tpsl-coverage', setTriggerPrice: created.toString() } });

    // Coverage in turn is held to the trigger the other strategy last set, though it created the stop lower.
    expect(await act(executor, 'tpsl-coverage', move(pubkey, created))).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration' });
    // A third strategy is held to the tightest trigger set (other-stop's), not merely to the owner's.
    const third = created + (between - created) / 2n;
    const thirdMove = await act(executor, 'third-stop', move(pubkey, third));
    expect(thirdMove).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration' });
    expect(thirdMove!.detail).toContain(`other-stop set it at ${between}`);
    expect((await solLong(w)).tpslRequests).toMatchObject([{ pubkey, triggerPriceUsd: between }]);
    expect((await readTpslBook(scope.redis, scope.prefix)).entries.get(pubkey)).toMatchObject({
      owner: 'tpsl-coverage', setBy: 'other-stop', triggerPrice: between.toString(), triggers: { 'tpsl-coverage': created.toString(), 'other-stop': between.toString() },
    });
  });
});
