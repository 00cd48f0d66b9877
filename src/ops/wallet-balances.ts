import { PublicKey, type Connection } from '@solana/web3.js';
import { MINTS } from '../api/mints.ts';
import { withTimeout } from '../kernel/with-timeout.ts';

/**
 * The wallet's balances, exact, in each token's smallest unit (SOL: lamports, 9 decimals; USDC:
 * 6 decimals). The status page values them in USD with bigint arithmetic; the Prometheus gauge
 * converts them to float64 itself (displayFloat), at its edge.
 */
export type WalletBalances = Partial<Record<'SOL' | 'USDC', bigint>>;

/** Decimals of each balance (the mint's). */
export const BALANCE_DECIMALS = { SOL: 9, USDC: 6 } as const;

/**
 * Reads SOL (getBalance) and USDC (parsed token accounts of the USDC mint) over RPC, at most
 * once per `ttlMs`, each within `timeoutMs`, so a scrape never waits on a slow node. A balance
 * the node does not report (the simulated venue keeps no token accounts) is left out.
 */
export function walletBalanceReader(connection: Connection, wallet: string, options: { ttlMs?: number; timeoutMs?: number } = {}): () => Promise<WalletBalances> {
  const owner = new PublicKey(wallet);
  const ttlMs = options.ttlMs ?? 15_000;
  const timeoutMs = options.timeoutMs ?? 2_000;
  let cached: { at: number; value: WalletBalances } | undefined;
  const bounded = <T>(promise: Promise<T>) => withTimeout(promise, timeoutMs, () => undefined).catch(() => undefined);

  return async () => {
    if (cached && Date.now() - cached.at < ttlMs) return cached.value;
    const [lamports, usdc] = await Promise.all([
      bounded(connection.getBalance(owner)),
      bounded(connection.getParsedTokenAccountsByOwner(owner, { mint: new PublicKey(MINTS.USDC) })),
    ]);
    const value: WalletBalances = {};
    if (lamports !== undefined) value.SOL = BigInt(lamports);
    if (usdc !== undefined) {
      let total = 0n;
      for (const account of usdc.value) {
        const amount = (account.account.data.parsed as { info?: { tokenAmount?: { amount?: unknown } } }).info?.tokenAmount?.amount;
        if (typeof amount === 'string' && /^\d+$/.test(amount)) total += BigInt(amount);
      }
      value.USDC = total;
    }
    cached = { at: Date.now(), value };
    return value;
  };
}
