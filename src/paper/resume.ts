import type { Config } from '../config/index.ts';
import type { Logger } from '../kernel/logger.ts';
import { restoreVenueState, VenueStateError } from '../venue/venue-state.ts';
import type { Venue } from '../venue/venue.ts';
import { restoreWalletStateV1 } from '../venue/wallet-state.ts';
import { PaperSetupError } from './setup-error.ts';
import { loadPaperState, paperStatePath, startPaperPersistence, type PaperPersistence, type PaperState } from './state-file.ts';
import { seedPaperWallet, startPaperVenue } from './venue.ts';

export interface PaperVenue {
  readonly venue: Venue;
  /** Writes the state on changes; undefined with venue.persist=false. */
  readonly persistence: PaperPersistence | undefined;
}

/**
 * Where a resumed chain goes on: past every slot of the saved session (the time it was down
 * included), so no blockhash handed out before the restart is handed out again, and block
 * heights only grow, as the executor's expiry proofs assume.
 */
function chainStartAfter(saved: PaperState, slotMs: number): { slot: number; blockHeight: number } | undefined {
  if (saved.version !== 2) return undefined;
  const downSlots = Math.max(0, Math.floor((Date.now() - saved.savedAtMs) / slotMs)) + 1;
  return { slot: saved.venue.chain.slot + downSlots, blockHeight: saved.venue.chain.blockHeight + downSlots };
}

/**
 * The in-process venue at start: the saved paper state when there is one (same wallet, same
 * positions, stops and orders, no second funding), otherwise a first funding; then written on
 * every change and on stop. The caller holds the folder's lock (src/paper/lock.ts).
 */
export async function openPaperVenue(o: { wallet: string; config: Config; logger: Logger }): Promise<PaperVenue> {
  const { wallet, config, logger } = o;
  if (!config.venue.persist) {
    const venue = await startPaperVenue(config, logger);
    if (config.venue.seedWallet) await seedPaperWallet(venue, wallet, logger).catch(async (error: unknown) => {
      await venue.close();
      throw error;
    });
    return { venue, persistence: undefined };
  }
  const path = paperStatePath(config.wallet.paperKeyFile);
  const saved = await loadPaperState(path);
  if (saved && saved.wallet !== wallet) {
    throw new PaperSetupError(`${path} belongs to the paper wallet ${saved.wallet}, not ${wallet} (${config.wallet.paperKeyFile}); run "stratd paper reset" to start over with this wallet`);
  }
  const venue = await startPaperVenue(config, logger, saved ? chainStartAfter(saved, config.venue.slotMs) : undefined);
  try {
    if (saved?.version === 2) {
      try {
        restoreVenueState(venue, saved.venue);
      } catch (error) {
        if (!(error instanceof VenueStateError)) throw error;
        throw new PaperSetupError(`the paper state ${path} does not fit this venue (${error.message}); move it away to keep it, or run "stratd paper reset" to delete it and start over`);
      }
      const stops = [...venue.market.perps.tpsl.values()].length;
      logger.info({ path, positions: saved.venue.positions.filter((p) => p.sizeUsd > 0n).length, tpsl: stops, savedAt: new Date(saved.savedAtMs).toISOString() }, `paper mode: resumed the saved venue state (positions, ${String(stops)} TP/SL requests, orders); not funded again`);
    } else if (saved) {
      restoreWalletStateV1(venue, saved);
      logger.info({ path, positions: saved.positions.length, savedAt: new Date(saved.savedAtMs).toISOString() }, `paper mode: resumed a version 1 paper state (${String(saved.positions.length)} positions; it kept no stops or orders); not funded again`);
    } else if (config.venue.seedWallet) {
      await seedPaperWallet(venue, wallet, logger);
    }
    // Written right away: a crash after the first funding must not fund again on the next start.
    const persistence = await startPaperPersistence({ venue, wallet, path, delayMs: config.venue.saveDelayMs, logger });
    return { venue, persistence };
  } catch (error) {
    await venue.close();
    throw error;
  }
}
