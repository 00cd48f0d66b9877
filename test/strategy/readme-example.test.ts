import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { actionIdFor } from '../../src/records/action.ts';
import { loadStrategiesOrThrow } from '../../src/pipeline/strategy-runtime/loader.ts';
import { decideOnce, formattedPosition, POSITION, POSITION_2, positionsSnapshot, rawPosition, TICK } from './samples.ts';

const USD = 1_000_000n;
const FILE = new URL('../../strategies/examples/close-big-losers.ts', import.meta.url);

describe("the README's strategy example", () => {
  it('is shown in the README exactly as the file is', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const file = readFileSync(FILE, 'utf8')
      .replace(/^\/\/ strategies\/close-big-losers\.ts.*\n/, '// strategies/close-big-losers.ts\n');
    expect(readme).toContain(`\`\`\`ts\n${file}\`\`\``);
  });

  it('loads and closes a position that lost more than its limit, in either position shape', async () => {
    const strategies = await loadStrategiesOrThrow({ dir: 'strategies/examples', enabled: ['close-big-losers'], settings: { 'close-big-losers': {} } });
    const loser = { sizeUsd: 500n * USD, collateralUsd: 100n * USD, markPriceUsd: 90n * USD, liquidationPriceUsd: 60n * USD, pnlAfterFeesUsd: -60n * USD };
    const small = { ...loser, pubkey: POSITION_2, pnlAfterFeesUsd: -49n * USD };
    for (const shape of [rawPosition, formattedPosition]) {
      const run = await decideOnce(strategies, positionsSnapshot([shape(loser), shape(small)]));
      expect(run?.status).toBe('ok');
      if (run?.status !== 'ok') return;
      expect(run.actions.map((a) => a.actionId)).toEqual([actionIdFor('close-big-losers', `close:${POSITION}`, TICK)]);
      expect(run.actions[0]!.intent).toMatchObject({ type: 'decrease', entirePosition: true, notionalUsd: '500000000', receiveToken: 'USDC' });
    }
  });
});
