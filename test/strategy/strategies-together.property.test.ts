import { describe, it } from 'vitest';
import { assertProperty, oneOpenIntentPerTarget, stopsNeverLoosen } from 'stratd/testing';
import guard from '../../strategies/liquidation-guard/index.ts';
import ladder from '../../strategies/take-profit-ladder/index.ts';
import coverage from '../../strategies/tpsl-coverage/index.ts';
import trailing from '../../strategies/trailing-stop/index.ts';

/** The shipped position strategies run together on the same positions and stops, landings in any order. */
describe('shipped strategies together (property)', () => {
  it('trailing-stop with tpsl-coverage managing every request: no stop loosens', async () => {
    await assertProperty({
      strategies: [{ strategy: trailing, config: { trailBps: 300 } }, { strategy: coverage, config: { manage: 'all', stopLossBps: 500 } }],
      invariants: [stopsNeverLoosen, oneOpenIntentPerTarget],
      numRuns: 150,
    });
  });

  it('trailing-stop, tpsl-coverage, liquidation-guard and take-profit-ladder together: no stop loosens, one intent per target and kind each', async () => {
    await assertProperty({
      strategies: [{ strategy: trailing }, { strategy: coverage, config: { takeProfitBps: 2_000 } }, { strategy: guard, config: { minRemainingSizeUsd: '1', minRemainingCollateralUsd: '1' } }, { strategy: ladder }],
      invariants: [stopsNeverLoosen, oneOpenIntentPerTarget],
      scenario: { positions: { min: 1, max: 3 }, maxMoveBps: 1_200 },
      numRuns: 100,
    });
  });
});
