import { businessError } from './errors.ts';

/**
 * Wallet balances the market moves: collateral in, payouts out, swaps, fees. In the venue this
 * is the chain's ledger (SOL as lamports, everything else as token balances); unit tests use
 * the in-memory one.
 */
export interface BalanceLedger {
  balanceOf(owner: string, mint: string): bigint;
  credit(owner: string, mint: string, amount: bigint): void;
  /** Throws a business error `insufficient_funds` when the balance is short. */
  debit(owner: string, mint: string, amount: bigint): void;
}

export class InMemoryLedger implements BalanceLedger {
  private readonly balances = new Map<string, bigint>();

  balanceOf(owner: string, mint: string): bigint {
    return this.balances.get(`${owner}|${mint}`) ?? 0n;
  }

  credit(owner: string, mint: string, amount: bigint): void {
    if (amount < 0n) throw new RangeError('credit of a negative amount');
    this.balances.set(`${owner}|${mint}`, this.balanceOf(owner, mint) + amount);
  }

  debit(owner: string, mint: string, amount: bigint): void {
    if (amount < 0n) throw new RangeError('debit of a negative amount');
    const balance = this.balanceOf(owner, mint);
    if (balance < amount) {
      throw businessError('insufficient_funds', `wallet ${owner} holds ${balance} of ${mint}, needs ${amount}`, {
        mint,
        balance: balance.toString(),
        required: amount.toString(),
      });
    }
    this.balances.set(`${owner}|${mint}`, balance - amount);
  }
}
