/**
 * The files `stratd strategy new <name>` writes: a commented starter strategy that already
 * works (it decreases positions whose loss passed a limit) and its test on sample snapshots.
 * Both import only the SDK, so the directory can live anywhere.
 */

export function starterStrategy(name: string): string {
  return `import { defineStrategy, positionView, uintString, z, type Intent } from 'stratd/strategy';

/**
 * ${name}: describe what it does and why here (docs/strategies.md explains every part).
 *
 * This starter closes any position whose loss after fees exceeds \`maxLossUsd\`.
 */
export default defineStrategy({
  // The name in strategies.enabled and under strategies.settings.
  name: '${name}',
  description: 'Closes positions whose loss after fees exceeds a limit.',
  // Settings: a zod schema; give every field a default so an empty entry works.
  // Amounts are integer strings: USD × 10^6.
  config: z.strictObject({
    maxLossUsd: uintString.default('50000000'), // $50
  }),
  // Optional persistent state, checked on every read and write.
  state: z.strictObject({ closed: z.array(z.string()) }),
  // The snapshot kinds that call onSnapshot...
  subscribes: ['positions'],
  // ...and the other kinds the decision reads through ctx.latest / ctx.latestAll.
  reads: ['poolInfo'],
  onSnapshot(ctx, snapshot) {
    const intents: Intent[] = [];
    for (const item of snapshot.positions) {
      // Either documented position shape, as exact bigints (never floats for money).
      const p = positionView(item);
      if (!p || p.pnlAfterFeesUsd === undefined) continue;
      if (-p.pnlAfterFeesUsd <= BigInt(ctx.config.maxLossUsd)) continue;
      const pool = ctx.latest('poolInfo', p.marketMint); // from memory: loaded before the call
      ctx.logger.info({ position: p.positionPubkey, pool: pool?.key }, 'loss beyond the limit');
      intents.push({
        type: 'decrease',
        // The subject of the decision: one unfinished action per key.
        key: \`close:\${p.positionPubkey}\`,
        reason: \`loss \${-p.pnlAfterFeesUsd} beyond \${ctx.config.maxLossUsd}\`,
        notionalUsd: p.sizeUsd.toString(),
        positionPubkey: p.positionPubkey,
        marketMint: p.marketMint,
        side: p.side,
        receiveToken: 'USDC',
        entirePosition: true,
      });
    }
    // State returned with intents is committed only when one of them lands.
    const closed = [...(ctx.state?.closed ?? []), ...intents.map((i) => i.key)];
    return intents.length > 0 ? { intents, state: { closed } } : [];
  },
});
`;
}

export function starterTest(name: string): string {
  return `import { describe, expect, it } from 'vitest';
import { runStrategy, samples } from 'stratd/testing';
import strategy from './index.ts';

const USD = 1_000_000n;

describe('${name}', () => {
  it('closes a position that lost more than the limit', async () => {
    const loser = samples.position({ pnlAfterFeesUsd: -60n * USD });
    const out = await runStrategy(strategy, [samples.poolInfo(), samples.positions([loser])]);
    expect(out.intents).toMatchObject([{ type: 'decrease', entirePosition: true, key: \`close:\${samples.SAMPLE_POSITION}\` }]);
  });

  it('leaves a position within the limit alone', async () => {
    const out = await runStrategy(strategy, [samples.positions([samples.position({ pnlAfterFeesUsd: -10n * USD })])], { config: { maxLossUsd: '20000000' } });
    expect(out.intents).toEqual([]);
  });
});
`;
}
