// A landed action whose decision is older than its strategy state's floor (the state's member
// stamps below it were dropped, records/state-changes.ts) cannot have its changes merged: they are
// lost. The daemon's executor (assembleExecutor) says so, an ALERT in the log and an `alert`
// ledger entry naming the action, instead of dropping them without a word.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { commitStrategyState, readStrategyState } from '../../src/pipeline/strategy-runtime/state.ts';
import { alertStateBeyondFloor } from '../../src/pipeline/strategy-runtime/state-floor-alert.ts';
import { actionIdFor, actionJobSchema } from '../../src/records/action.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { stateChanges } from '../../src/records/state-changes.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { paperExecutor, type PaperExecutor } from '../support/daemon-executor.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`state-floor-alert-${process.pid}`);
let venue: Venue;
let paper: PaperExecutor;

beforeAll(async () => {
  venue = await startVenue({ seed: 5, clock: { speed: 1 }, volatility: 0 });
  paper = await paperExecutor(venue, scope);
  const funded = await fetch(`${venue.apiUrl}/__venue/fund`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wallet: paper.wallet, sol: '20000000000', usdc: '1000000000' }),
  });
  expect(funded.status).toBe(200);
});
afterAll(async () => {
  await paper.close();
  await venue.close();
  await scope.clean();
  await scope.close();
});

/** Lands a swap of `strategy` decided at `decidedAtMs` whose decision changed the state from `before` to `after`. */
async function landSwap(strategy: string, key: string, decidedAtMs: number, before: unknown, after: unknown) {
  const now = Date.now();
  await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: paper.wallet, tickMs: now, receivedAtMs: now, wallet: paper.wallet, positions: [] });
  const job = actionJobSchema.parse({
    actionId: actionIdFor(strategy, key, decidedAtMs),
    strategy,
    intent: { type: 'swap', key, reason: 'state floor', notionalUsd: '5000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '5000000', minOutAmount: '1' },
    decidedAtMs,
    window: decidedAtMs,
    stateAfter: after,
    stateChanges: stateChanges(before, after),
    trigger: { kind: 'positions', key: 'floor', tickMs: now, receivedAtMs: now },
  });
  await paper.executor.accept(job);
  const final = await paper.executor.drive(job.actionId);
  expect({ state: final?.state, reason: final?.reason, detail: final?.detail }).toEqual({ state: 'landed', reason: undefined, detail: undefined });
  return job.actionId;
}

async function alerts(): Promise<Array<{ actionId?: string; detail: Record<string, unknown> }>> {
  const entries = await new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 }).read({ limit: 1_000, reverse: false, types: ['alert'] });
  return entries.filter((e) => e.detail.event === 'state_beyond_floor');
}

describe("a landed action decided before its strategy state's floor", () => {
  it('is an alert naming the action, and the state stays as it was', async () => {
    const now = Date.now();
    // A state last changed by a decision eight days ahead: its floor is one day ahead of now.
    await commitStrategyState(scope.redis, scope.prefix, 'floored', { runs: 1 }, { decidedAtMs: now + 8 * 86_400_000 });
    const actionId = await landSwap('floored', 'swap-1', now, { runs: 1 }, { runs: 2 });
    expect(await readStrategyState(scope.redis, scope.prefix, 'floored')).toEqual({ runs: 1 });
    const raised = await alerts();
    expect(raised.map((a) => a.actionId)).toEqual([actionId]);
    expect(raised[0]!.detail.decidedAtMs).toBe(now);
  });

  it('a decision superseded by a later one of the same member is no alert', async () => {
    const now = Date.now();
    await commitStrategyState(scope.redis, scope.prefix, 'superseded', { runs: 5 }, { decidedAtMs: now + 1_000 });
    await landSwap('superseded', 'swap-2', now, { runs: 4 }, { runs: 6 });
    expect(await readStrategyState(scope.redis, scope.prefix, 'superseded')).toEqual({ runs: 5 });
    expect((await alerts()).map((a) => a.actionId)).not.toContain(actionIdFor('superseded', 'swap-2', now));
  });
});

describe('the alert itself', () => {
  it('a ledger that refuses the entry is logged, and the commit it reports on goes on', async () => {
    const broken = new Ledger(scope.redis, { prefix: `${scope.prefix}broken:`, maxLen: 10 });
    // The stream's key holds a string: every XADD is refused (WRONGTYPE), as a real Redis refuses a write.
    await scope.redis.set(broken.streamKey, 'not a stream');
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(line) });
    await expect(alertStateBeyondFloor({ ledger: broken, logger }, { strategy: 's', decidedAtMs: 1, actionId: 'act-1' }, 2)).resolves.toBeUndefined();
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([expect.stringContaining('ALERT'), 'the state_beyond_floor alert was not written to the ledger']);
  });
});
