import { ChainArgumentError, ChainRejection } from './rejection.ts';

/** SPL token balances by owner and mint, in the mint's smallest units. */
export class TokenLedger {
  private readonly byOwner = new Map<string, Map<string, bigint>>();
  /** Every (owner, mint) that ever held a balance: its token account outlives a zero balance. */
  private readonly everHeld = new Map<string, { readonly owner: string; readonly mint: string }>();

  hasHeld(owner: string, mint: string): boolean {
    return this.everHeld.has(`${owner}/${mint}`);
  }

  /** Every (owner, mint) pair that ever held a balance. */
  heldPairs(): Iterable<{ readonly owner: string; readonly mint: string }> {
    return this.everHeld.values();
  }

  balance(owner: string, mint: string): bigint {
    return this.byOwner.get(owner)?.get(mint) ?? 0n;
  }

  balancesOf(owner: string): ReadonlyMap<string, bigint> {
    return new Map(this.byOwner.get(owner) ?? []);
  }

  /** Every owner's non-zero balances, amounts as integer strings. */
  snapshot(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const [owner, balances] of this.byOwner) {
      if (balances.size === 0) continue;
      out[owner] = Object.fromEntries([...balances].map(([mint, amount]) => [mint, amount.toString()]));
    }
    return out;
  }

  credit(owner: string, mint: string, amount: bigint): void {
    if (amount < 0n) throw new ChainArgumentError(`creditToken: amount must be >= 0, got ${amount.toString()}`);
    this.set(owner, mint, this.balance(owner, mint) + amount);
  }

  /** Throws ChainRejection('insufficient_funds') when the balance is short. */
  debit(owner: string, mint: string, amount: bigint): void {
    if (amount < 0n) throw new ChainArgumentError(`debitToken: amount must be >= 0, got ${amount.toString()}`);
    const balance = this.balance(owner, mint);
    if (balance < amount) {
      throw new ChainRejection('insufficient_funds', `${owner} holds ${balance.toString()} of ${mint}, needs ${amount.toString()}`);
    }
    this.set(owner, mint, balance - amount);
  }

  private set(owner: string, mint: string, amount: bigint): void {
    let balances = this.byOwner.get(owner);
    if (!balances) {
      balances = new Map();
      this.byOwner.set(owner, balances);
    }
    if (amount > 0n && !this.everHeld.has(`${owner}/${mint}`)) this.everHeld.set(`${owner}/${mint}`, { owner, mint });
    if (amount === 0n) balances.delete(mint);
    else balances.set(mint, amount);
  }
}
