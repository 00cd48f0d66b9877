import { MINTS } from '../../src/api/mints.ts';
import type { PositionItem } from '../../src/api/schemas/perps.ts';
import type { SnapshotOf } from '../../src/sdk/snapshot.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { runStrategies, type StrategyRun } from '../../src/pipeline/strategy-worker.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';

export const WALLET = 'devjnEpxbJUhJ39FSsFz7YPerr5bdxN8VWUXvfbFUK4';
export const POSITION = '815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF';
export const POSITION_2 = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';
export const TICK = Date.UTC(2026, 0, 5, 12, 0, 0);

export interface PositionNumbers {
  readonly pubkey?: string;
  readonly side?: 'long' | 'short';
  readonly market?: string;
  /** USD × 10^6 integers. */
  readonly sizeUsd: bigint;
  readonly collateralUsd: bigint;
  readonly markPriceUsd: bigint;
  readonly liquidationPriceUsd: bigint;
  readonly entryPriceUsd?: bigint;
  readonly pnlAfterFeesUsd?: bigint;
}

/** The later, raw position item: USD × 10^6 integer strings. */
export function rawPosition(p: PositionNumbers): PositionItem {
  const mint = p.market ?? MINTS.SOL;
  return {
    positionPubkey: p.pubkey ?? POSITION,
    asset: 'SOL',
    assetMint: mint,
    collateralMint: p.side === 'short' ? MINTS.USDC : mint,
    side: p.side ?? 'long',
    leverage: '10.00',
    sizeUsd: p.sizeUsd.toString(),
    collateralUsd: p.collateralUsd.toString(),
    entryPriceUsd: (p.entryPriceUsd ?? p.markPriceUsd).toString(),
    markPriceUsd: p.markPriceUsd.toString(),
    liquidationPriceUsd: p.liquidationPriceUsd.toString(),
    pnlAfterFeesUsd: (p.pnlAfterFeesUsd ?? 0n).toString(),
  };
}

/** The earlier, formatted position item: human decimals ("1234.567800"). */
export function formattedPosition(p: PositionNumbers): PositionItem {
  const mint = p.market ?? MINTS.SOL;
  const usd = (v: bigint) => {
    const negative = v < 0n;
    const abs = negative ? -v : v;
    return `${negative ? '-' : ''}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, '0')}`;
  };
  return {
    positionPubkey: p.pubkey ?? POSITION,
    marketMint: mint,
    collateralMint: p.side === 'short' ? MINTS.USDC : mint,
    side: p.side ?? 'long',
    size: usd(p.sizeUsd),
    collateralUsd: usd(p.collateralUsd),
    leverage: '10.00',
    entryPrice: usd(p.entryPriceUsd ?? p.markPriceUsd),
    markPrice: usd(p.markPriceUsd),
    liquidationPrice: usd(p.liquidationPriceUsd),
    pnlAfterFeesUsd: usd(p.pnlAfterFeesUsd ?? 0n),
  };
}

export function positionsSnapshot(positions: PositionItem[], tickMs = TICK): SnapshotOf<'positions'> {
  return { kind: 'positions', source: 'perps.positions', key: WALLET, tickMs, receivedAtMs: tickMs + 120, wallet: WALLET, positions };
}

/**
 * What the worker core decides for one snapshot, as in the daemon, with nothing else in Redis:
 * the one strategy's run (its status, and its action jobs when ok).
 */
export async function decideOnce(strategies: readonly LoadedStrategy[], snapshot: SnapshotOf<'positions'>): Promise<StrategyRun | undefined> {
  const [run] = await runStrategies({
    snapshot,
    strategies,
    reader: { latest: async () => undefined, latestAll: async () => [] },
    readState: async () => undefined,
    now: () => snapshot.tickMs + 1,
    logger: silentLogger,
    timeoutMs: 1_000,
  });
  return run;
}
