import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import trim from '../../strategies/examples/trim-winners.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { actionIdFor } from '../../src/records/action.ts';
import { loadStrategiesOrThrow } from '../../src/pipeline/strategy-runtime/loader.ts';
import { decideOnce, formattedPosition, POSITION, POSITION_2, positionsSnapshot, rawPosition, TICK } from './samples.ts';

const USD = 1_000_000n;
const winner = { sizeUsd: 1_000n * USD, collateralUsd: 100n * USD, markPriceUsd: 160n * USD, liquidationPriceUsd: 120n * USD, pnlAfterFeesUsd: 60n * USD };
const flat = { ...winner, pubkey: POSITION_2, pnlAfterFeesUsd: 10n * USD };

describe('the example strategy of docs/strategies.md', () => {
  it('is shown in the docs exactly as the file is, and so is its test', () => {
    const doc = readFileSync(new URL('../../docs/strategies.md', import.meta.url), 'utf8');
    for (const name of ['trim-winners.ts', 'trim-winners.test.ts', 'every-intent.test.ts']) {
      const file = readFileSync(new URL(`../../strategies/examples/${name}`, import.meta.url), 'utf8');
      expect(doc).toContain(`\`\`\`ts\n${file}\`\`\``);
    }
  });

  it('loads through the loader and decides through the worker core, as in the daemon', async () => {
    const strategies = await loadStrategiesOrThrow({ dir: 'strategies/examples', enabled: ['trim-winners'], settings: { 'trim-winners': { takeProfitBps: 5_000 } } });
    const snapshot = positionsSnapshot([rawPosition(winner), formattedPosition(flat)]);
    const run = await decideOnce(strategies, snapshot);
    expect(run?.status).toBe('ok');
    if (run?.status !== 'ok') return;
    expect(run.actions.map((a) => a.actionId)).toEqual([actionIdFor('trim-winners', `trim:${POSITION}`, TICK)]);
    expect(run.actions[0]!.intent).toMatchObject({ type: 'decrease', sizeUsdDelta: '250000000', notionalUsd: '250000000', receiveToken: 'USDC' });
    expect(run.actions[0]!.stateAfter).toEqual({ trimmedAt: { [POSITION]: TICK } });
  });

  it('waits everyMs before trimming the same position again', async () => {
    const ctx = (state?: { trimmedAt: Record<string, number> }) => ({
      name: trim.name, config: trim.config.parse({}), state, now: () => 0, latest: () => undefined, latestAll: () => [], logger: silentLogger,
    });
    const state = { trimmedAt: { [POSITION]: TICK } };
    expect(await trim.onSnapshot(ctx(state) as never, positionsSnapshot([rawPosition(winner)], TICK + 60_000))).toEqual([]);
    const later = await trim.onSnapshot(ctx(state) as never, positionsSnapshot([rawPosition(winner)], TICK + 3_600_000));
    expect('intents' in later ? later.intents : later).toHaveLength(1);
  });
});
