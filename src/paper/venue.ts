import type { Config } from '../config/index.ts';
import type { Logger } from '../kernel/logger.ts';
import { startVenue, type Venue, type VenueOptions } from '../venue/venue.ts';
import { PaperSetupError } from './setup-error.ts';

/** The venue paper mode runs in-process (the daemon's handle carries it for tests and `stratd`). */
export type { Venue };

/**
 * Paper mode out of the box: the venue runs in this process, the paper wallet is a key file
 * under ./var (made on first start, mode 0600), and the wallet is funded on the venue with one
 * position per market — the SOL long close to its liquidation price, so the liquidation guard has
 * work within the first minute. A resumed venue's chain goes on from `chainStart`.
 */
export async function startPaperVenue(config: Config, logger: Logger, chainStart?: VenueOptions['chainStart']): Promise<Venue> {
  const venue = await startVenue({
    chainStart,
    seed: config.venue.seed,
    host: config.venue.host,
    port: config.venue.port,
    rpcPort: config.venue.rpcPort,
    slotMs: config.venue.slotMs,
    logger: logger.child({ component: 'venue' }),
  });
  logger.info({ apiUrl: venue.apiUrl, rpcUrl: venue.rpcUrl }, 'paper mode: simulated venue started in-process');
  return venue;
}

/** Funds the wallet and opens the demonstration positions through the venue's control API. */
export async function seedPaperWallet(venue: Venue, wallet: string, logger: Logger): Promise<void> {
  const res = await fetch(`${venue.apiUrl}/__venue/fund`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      wallet,
      sol: '10000000000', // 10 SOL for fees
      usdc: '5000000000', // 5,000 USDC
      positions: [
        { market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '2.5' },
        { market: 'ETH', side: 'long', collateralUsd: '150000000', leverage: '3' },
        { market: 'BTC', side: 'short', collateralUsd: '150000000', leverage: '2' },
      ],
    }),
  });
  if (!res.ok) throw new PaperSetupError(`seeding the paper wallet failed: ${res.status} ${await res.text()}`);
  logger.info({ wallet }, 'paper mode: wallet funded with 10 SOL, 5,000 USDC and three positions (SOL long near liquidation)');
}
