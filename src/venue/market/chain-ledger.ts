import { MINTS } from '../../api/mints.ts';
import type { VenueChain } from '../chain/chain.ts';
import { ChainRejection } from '../chain/rejection.ts';
import { businessError } from './errors.ts';
import type { BalanceLedger } from './ledger.ts';

/**
 * The market's balances are the chain's: SOL (the wrapped-SOL mint) is the wallet's lamports,
 * as wrap/unwrap happens inside the service's transactions; every other mint is a token balance.
 */
export class ChainLedger implements BalanceLedger {
  constructor(private readonly chain: VenueChain) {}

  balanceOf(owner: string, mint: string): bigint {
    return mint === MINTS.SOL ? this.chain.getBalance(owner) : this.chain.getTokenBalance(owner, mint);
  }

  credit(owner: string, mint: string, amount: bigint): void {
    if (amount === 0n) return;
    if (mint === MINTS.SOL) this.chain.credit(owner, amount);
    else this.chain.creditToken(owner, mint, amount);
  }

  debit(owner: string, mint: string, amount: bigint): void {
    if (amount === 0n) return;
    try {
      if (mint === MINTS.SOL) this.chain.debit(owner, amount);
      else this.chain.debitToken(owner, mint, amount);
    } catch (error) {
      if (error instanceof ChainRejection && error.kind === 'insufficient_funds') {
        throw businessError('insufficient_funds', error.message, { mint, required: amount.toString() });
      }
      throw error;
    }
  }
}
