// strategies/close-big-losers.ts (the README's example; this file runs in test/strategy/readme-example.test.ts)
import { defineStrategy, formatUsd, positionView, uintString, z, type Intent } from 'stratd/strategy';

export default defineStrategy({
  name: 'close-big-losers',
  config: z.object({ maxLossUsd: uintString.default('50000000') }), // $50, USD × 10^6
  subscribes: ['positions'],
  onSnapshot(ctx, snapshot) {
    const intents: Intent[] = [];
    for (const item of snapshot.positions) {
      const p = positionView(item); // either documented item shape, as exact bigints
      if (!p || p.pnlAfterFeesUsd === undefined || -p.pnlAfterFeesUsd < BigInt(ctx.config.maxLossUsd)) continue;
      intents.push({
        type: 'decrease', key: `close:${p.positionPubkey}`, reason: `loss ${formatUsd(-p.pnlAfterFeesUsd)} beyond the limit`, // "loss $61.20 beyond the limit"
        notionalUsd: p.sizeUsd.toString(), positionPubkey: p.positionPubkey, marketMint: p.marketMint,
        side: p.side, receiveToken: 'USDC', entirePosition: true,
      });
    }
    return intents;
  },
});
