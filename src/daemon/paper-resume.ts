import type { Config } from '../config/index.ts';
import type { Logger } from '../ops/logger.ts';
import { restorePaperState } from '../venue/wallet-state.ts';
import type { Venue } from '../venue/venue.ts';
import { loadPaperState, paperStatePath, startPaperPersistence, type PaperPersistence } from './paper-state-file.ts';
import { PaperSetupError, seedPaperWallet } from './paper-venue.ts';

/**
 * The in-process venue at start: the saved paper state when there is one (same wallet, same
 * positions, no second funding), otherwise a first funding; then saved periodically and on stop.
 */
export async function preparePaperVenue(o: { venue: Venue; wallet: string; config: Config; logger: Logger }): Promise<PaperPersistence | undefined> {
  const { venue, wallet, config, logger } = o;
  if (!config.venue.persist) {
    if (config.venue.seedWallet) await seedPaperWallet(venue, wallet, logger);
    return undefined;
  }
  const path = paperStatePath(config.wallet.paperKeyFile);
  const saved = await loadPaperState(path);
  if (saved && saved.wallet !== wallet) {
    throw new PaperSetupError(`${path} belongs to the paper wallet ${saved.wallet}, not ${wallet} (${config.wallet.paperKeyFile}); run "stratd paper reset" to start over with this wallet`);
  }
  if (saved) {
    restorePaperState(venue, saved);
    logger.info({ path, positions: saved.positions.length, savedAt: new Date(saved.savedAtMs).toISOString() }, `paper mode: resumed the saved paper state (${saved.positions.length} positions); not funded again`);
  } else if (config.venue.seedWallet) {
    await seedPaperWallet(venue, wallet, logger);
  }
  // Saved right away: a crash after the first funding must not fund again on the next start.
  return startPaperPersistence({ venue, wallet, paperKeyFile: config.wallet.paperKeyFile, everyMs: config.venue.saveEveryMs, logger });
}
