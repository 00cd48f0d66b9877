import { PublicKey } from '@solana/web3.js';
import { MINTS } from '../../api/mints.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import { associatedTokenAccountOf } from '../../chain/policy/wallet-accounts.ts';

/** 165 bytes: an SPL token account; its rent-exempt balance at the venue's rent rate. */
const TOKEN_ACCOUNT_SIZE = 165;
export const TOKEN_ACCOUNT_RENT_LAMPORTS = (128n + BigInt(TOKEN_ACCOUNT_SIZE)) * 6_960n;

/** The holder of an associated token account: whose balance of which mint it shows. */
interface TokenAccountHolder {
  readonly owner: string;
  readonly mint: string;
}

/**
 * The SPL layout of an initialized token account: mint, owner, amount (u64 LE at 64), no delegate,
 * state Initialized (byte 108), not native, no close authority. What a node's getAccountInfo and
 * simulateTransaction show for an associated token account.
 */
export function tokenAccountData(holder: TokenAccountHolder, amount: bigint): Uint8Array {
  const data = Buffer.alloc(TOKEN_ACCOUNT_SIZE);
  new PublicKey(holder.mint).toBuffer().copy(data, 0);
  new PublicKey(holder.owner).toBuffer().copy(data, 32);
  data.writeBigUInt64LE(amount, 64);
  data[108] = 1;
  return data;
}

/**
 * Which associated token account address is whose. The venue keeps balances by owner and mint;
 * a node is asked by address. Every (owner, mint) pair that ever held a balance has its account
 * (SPL Token program, as the venue's mints are), which stays after its balance falls to zero, as a
 * real one does until it is closed. Pairs are derived lazily, on the first question the index
 * cannot answer, so a chain that is never asked derives nothing. Wrapped SOL is the wallet's
 * lamports on this chain (ChainLedger): it has no token account.
 */
export class TokenAccountIndex {
  readonly #byAddress = new Map<string, TokenAccountHolder>();
  readonly #indexed = new Set<string>();

  constructor(private readonly pairs: () => Iterable<TokenAccountHolder>) {}

  /** The holder of `address`, or undefined when it is no associated token account of a holder. */
  holderOf(address: string): TokenAccountHolder | undefined {
    const known = this.#byAddress.get(address);
    if (known) return known;
    for (const pair of this.pairs()) this.#index(pair);
    return this.#byAddress.get(address);
  }

  /** Remembers a pair (a simulation's post-state may credit one the ledger has never held). */
  note(pair: TokenAccountHolder): void {
    this.#index(pair);
  }

  #index(pair: TokenAccountHolder): void {
    if (pair.mint === MINTS.SOL) return;
    const key = `${pair.owner}/${pair.mint}`;
    if (this.#indexed.has(key)) return;
    this.#indexed.add(key);
    let address: string;
    try {
      address = associatedTokenAccountOf(pair.owner, pair.mint, PROGRAMS.token);
    } catch {
      return; // an owner or mint that is no public key holds no account
    }
    this.#byAddress.set(address, pair);
  }
}
