import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { actionIdFor } from '../../src/records/action.ts';
import { runStrategies, type SnapshotReader } from '../../src/pipeline/strategy-worker.ts';
import { defineStrategy, type Strategy } from '../../src/sdk/define.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { POSITION, positionsSnapshot, rawPosition, TICK } from './samples.ts';

const USD = 1_000_000n;
const snapshot = positionsSnapshot([rawPosition({ sizeUsd: 100n * USD, collateralUsd: 20n * USD, markPriceUsd: 150n * USD, liquidationPriceUsd: 140n * USD })]);
const reader: SnapshotReader = { latest: async () => undefined, latestAll: async () => [] };

const decrease = (key = `decrease:${POSITION}`) => ({
  type: 'decrease' as const, key, reason: 'test', notionalUsd: '50000000', positionPubkey: POSITION, marketMint: MINTS.SOL,
  side: 'long' as const, receiveToken: 'USDC' as const, sizeUsdDelta: '50000000',
});

function loaded(strategy: Strategy, config: unknown = {}): LoadedStrategy {
  return { strategy, config, file: `${strategy.name}.ts` };
}

const good = defineStrategy({ name: 'good', config: z.object({}), subscribes: ['positions'], onSnapshot: () => ({ intents: [decrease()], state: { n: 1 } }) });
const thrower = defineStrategy({ name: 'thrower', config: z.object({}), subscribes: ['positions'], onSnapshot: () => { throw new RangeError('boom'); } });
const garbage = defineStrategy({ name: 'garbage', config: z.object({}), subscribes: ['positions'], onSnapshot: () => [{ type: 'decrease', key: 'x', sizeUsdDelta: 12.5 }] as never });
const notArray = defineStrategy({ name: 'not-array', config: z.object({}), subscribes: ['positions'], onSnapshot: () => 42 as never });
const hangs = defineStrategy({ name: 'hangs', config: z.object({}), subscribes: ['positions'], onSnapshot: () => new Promise<never>(() => undefined) });
const twice = defineStrategy({ name: 'twice', config: z.object({}), subscribes: ['positions'], onSnapshot: () => [decrease('k'), decrease('k')] });
const quiet = defineStrategy({ name: 'quiet', config: z.object({}), subscribes: ['positions'], onSnapshot: () => ({ intents: [], state: { counted: 3 } }) });
const other = defineStrategy({ name: 'other', config: z.object({}), subscribes: ['poolInfo'], onSnapshot: () => { throw new Error('must not run'); } });
const windowed = defineStrategy({ name: 'windowed', config: z.object({}), subscribes: ['positions'], decisionWindowMs: 60_000, onSnapshot: () => [decrease()] });

async function run(strategies: Strategy[], readState: (name: string) => Promise<unknown> = async () => undefined) {
  return runStrategies({ snapshot, strategies: strategies.map((s) => loaded(s)), reader, readState, now: () => TICK + 250, logger: silentLogger, timeoutMs: 200 });
}

describe('runStrategies', () => {
  it('isolates a strategy that throws, returns garbage or hangs; the others decide', async () => {
    const runs = await run([thrower, garbage, good, notArray, hangs, other]);
    const byName = Object.fromEntries(runs.map((r) => [r.strategy, r]));
    expect(Object.keys(byName).sort()).toEqual(['garbage', 'good', 'hangs', 'not-array', 'thrower']);
    expect(byName.thrower).toMatchObject({ status: 'failed', failure: 'threw', message: 'RangeError: boom' });
    expect(byName.garbage).toMatchObject({ status: 'failed', failure: 'invalid_output' });
    expect(byName.garbage!.status === 'failed' && byName.garbage!.message).toContain('intents.0.');
    expect(byName['not-array']).toMatchObject({ status: 'failed', failure: 'invalid_output' });
    expect(byName.hangs).toMatchObject({ status: 'failed', failure: 'timeout' });
    expect(byName.good).toMatchObject({ status: 'ok' });
  });

  it('turns each valid intent into an action with a deterministic id and the state riding along', async () => {
    const [result] = await run([good]);
    expect(result?.status).toBe('ok');
    if (result?.status !== 'ok') return;
    expect(result.commitNow).toBeUndefined();
    expect(result.actions).toEqual([
      {
        actionId: actionIdFor('good', `decrease:${POSITION}`, TICK),
        strategy: 'good',
        intent: decrease(),
        decidedAtMs: TICK + 250,
        window: TICK,
        trigger: { kind: 'positions', key: snapshot.key, tickMs: TICK, receivedAtMs: snapshot.receivedAtMs },
        stateAfter: { n: 1 },
        // What the decision changed in the state it read (none before): what the executor merges.
        stateChanges: [{ path: ['n'], set: 1 }],
      },
    ]);
    const [again] = await run([good]);
    expect(again?.status === 'ok' && again.actions[0]!.actionId).toBe(result.actions[0]!.actionId);
  });

  it('rounds the tick to the strategy decision window', async () => {
    const [result] = await run([windowed]);
    expect(result?.status === 'ok' && result.actions[0]!.window).toBe(TICK - (TICK % 60_000));
  });

  it('refuses two intents with one key, and commits a state returned without intents at once', async () => {
    expect((await run([twice]))[0]).toMatchObject({ status: 'failed', failure: 'invalid_output', message: expect.stringContaining('appears twice') });
    expect((await run([quiet]))[0]).toMatchObject({ status: 'ok', actions: [], commitNow: { state: { counted: 3 } } });
  });

  it('gives the strategy its config, its state and the clock', async () => {
    const seen: unknown[] = [];
    const probe = defineStrategy({
      name: 'probe',
      config: z.object({ level: z.int().default(3) }),
      state: z.object({ n: z.int() }),
      subscribes: ['positions'],
      onSnapshot(ctx) {
        seen.push(ctx.config.level, ctx.state?.n, ctx.now(), ctx.name);
        return [];
      },
    });
    await runStrategies({ snapshot, strategies: [loaded(probe, { level: 7 })], reader, readState: async () => ({ n: 4 }), now: () => 99, logger: silentLogger, timeoutMs: 200 });
    expect(seen).toEqual([7, 4, 99, 'probe']);
    // A committed state that no longer matches the strategy's state schema fails that strategy only.
    const [bad] = await runStrategies({ snapshot, strategies: [loaded(probe, { level: 1 })], reader, readState: async () => ({ n: 'x' }), now: () => 1, logger: silentLogger, timeoutMs: 200 });
    expect(bad).toMatchObject({ status: 'failed', failure: 'state_unreadable' });
  });
});

describe('pure decisions: declared reads, loaded once, answered from memory', () => {
  const pool = (mint: string, tickMs: number, liquidity: string) => ({
    kind: 'poolInfo' as const, source: 'perps.poolInfo' as const, key: mint, tickMs, receivedAtMs: tickMs, mint: mint as typeof MINTS.SOL,
    info: { longAvailableLiquidity: liquidity, longBorrowRatePercent: '0.01', longUtilizationPercent: '50', shortAvailableLiquidity: '1', shortBorrowRatePercent: '0.01', shortUtilizationPercent: '50', openFeePercent: '0.06', maxRequestExecutionSec: '45', maxPriceImpactFeePercent: '1' },
  });
  const pools = [pool(MINTS.SOL, TICK, '7'), pool(MINTS.BTC, TICK - 5, '9'), pool(MINTS.ETH, TICK - 9, '8')];

  const reads = defineStrategy({
    name: 'reads-pools',
    config: z.object({}),
    subscribes: ['positions'],
    reads: ['poolInfo'],
    onSnapshot: (ctx) => ({ intents: [], state: { keys: ctx.latestAll('poolInfo').map((p) => p.key), newest: ctx.latest('poolInfo')?.key, sol: ctx.latest('poolInfo', MINTS.SOL)?.info.longAvailableLiquidity, own: ctx.latest('positions')?.tickMs } }),
  });
  const alsoReads = defineStrategy({ name: 'also-reads', config: z.object({}), subscribes: ['positions'], reads: ['poolInfo'], onSnapshot: () => [] });
  const sneaky = defineStrategy({
    name: 'sneaky',
    config: z.object({}),
    subscribes: ['positions'],
    // Reads a kind it never declared: the type check refuses it, and so does the run.
    onSnapshot: (ctx) => (ctx.latest('trades' as never) ? [] : []),
  });

  function countingReader() {
    const calls: string[] = [];
    const reader: SnapshotReader = {
      latest: async () => { throw new Error('the worker must not read one snapshot at a time'); },
      // Redis returns hash values in no particular order: shuffle to prove the view sorts.
      latestAll: async (kind) => { calls.push(kind); return (kind === 'poolInfo' ? [pools[1], pools[0], pools[2]] : []) as never; },
    };
    return { calls, reader };
  }

  it('loads each declared kind once per snapshot job, and the same inputs give the same decision', async () => {
    const first = countingReader();
    const runs = await runStrategies({ snapshot, strategies: [loaded(reads), loaded(alsoReads)], reader: first.reader, readState: async () => undefined, now: () => TICK, logger: silentLogger, timeoutMs: 500 });
    expect(first.calls.sort()).toEqual(['poolInfo', 'positions']);
    const [result] = runs;
    expect(result).toMatchObject({ status: 'ok', commitNow: { state: { keys: [MINTS.BTC, MINTS.ETH, MINTS.SOL].sort(), newest: MINTS.SOL, sol: '7', own: TICK } } });
    const again = await runStrategies({ snapshot, strategies: [loaded(reads), loaded(alsoReads)], reader: countingReader().reader, readState: async () => undefined, now: () => TICK, logger: silentLogger, timeoutMs: 500 });
    // The decision is the same; its measured cost (a wall-clock time) is not part of it.
    const decided = (rs: typeof runs) => rs.map((r) => (r.status === 'ok' ? { ...r, cost: undefined } : r));
    expect(decided(again)).toEqual(decided(runs));
    expect(runs.map((r) => r.status === 'ok' && r.cost?.stateBytes)).toEqual([Buffer.byteLength(JSON.stringify((runs[0] as { commitNow: { state: unknown } }).commitNow.state)), expect.any(Number)]);
  });

  it('fails a strategy that reads a kind it did not declare, naming the kind', async () => {
    const [result] = await runStrategies({ snapshot, strategies: [loaded(sneaky)], reader: countingReader().reader, readState: async () => undefined, now: () => TICK, logger: silentLogger, timeoutMs: 500 });
    expect(result).toMatchObject({ status: 'failed', failure: 'threw' });
    expect(result!.status === 'failed' && result!.message).toMatch(/UndeclaredReadError: read of "trades" snapshots.*add it to reads/);
  });
});
