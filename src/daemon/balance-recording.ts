import type { Logger } from '../kernel/logger.ts';
import { MINTS } from '../api/mints.ts';
import type { WalletBalances } from '../ops/wallet-balances.ts';
import type { RecordingWriter, WalletBalancesRecord } from '../records/recording.ts';

/**
 * Writes the wallet's balances into a recording (`stratd run --record`) the first time they are
 * read and again whenever they change, so a backtest can fund its paper wallet as this one was.
 * Asked on every snapshot the pollers record; the reader caches (src/ops/wallet-balances.ts), so the
 * RPC is asked at most every 15 s. A look runs beside the poller, never in its way; one at a time.
 */
export function balanceRecorder(o: { readonly read: () => Promise<WalletBalances>; readonly writer: RecordingWriter; readonly wallet: string; readonly logger: Logger; readonly now?: () => number }) {
  let last: string | undefined;
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const look = async () => {
    const balances = await o.read();
    const record = balancesRecord(o.wallet, balances, (o.now ?? Date.now)());
    if (!record) return; // the node reported nothing: nothing known to record
    const same = JSON.stringify({ lamports: record.lamports, tokens: record.tokens });
    if (same === last) return;
    await o.writer.writeBalances(record);
    last = same;
  };
  return {
    /** Looks again unless a look is under way. */
    check(): void {
      if (busy) return;
      busy = true;
      running = look()
        .catch((error: unknown) => o.logger.warn({ err: error }, 'cannot record the wallet balances; the next snapshot tries again'))
        .finally(() => {
          busy = false;
        });
    },
    /** Waits for the look under way (before the recording is closed). */
    settled: () => running,
  };
}

/** The daemon's balances as a recording line: SOL as lamports, USDC under its mint. */
function balancesRecord(wallet: string, balances: WalletBalances, atMs: number): WalletBalancesRecord | undefined {
  if (balances.SOL === undefined && balances.USDC === undefined) return undefined;
  return {
    record: 'walletBalances',
    atMs,
    wallet,
    ...(balances.SOL !== undefined ? { lamports: balances.SOL.toString() } : {}),
    tokens: balances.USDC !== undefined ? { [MINTS.USDC]: balances.USDC.toString() } : {},
  };
}
