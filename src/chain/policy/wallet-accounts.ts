import { PublicKey } from '@solana/web3.js';
import { MINTS } from '../../api/mints.ts';
import type { DecodedTransaction } from '../decode.ts';
import { PROGRAMS } from '../programs.ts';
import type { PolicyContext } from './context.ts';

const TOKEN_PROGRAMS = [new PublicKey(PROGRAMS.token), new PublicKey(PROGRAMS.token2022)];
const ATA_PROGRAM = new PublicKey(PROGRAMS.associatedToken);

/** The associated token account of `owner` for `mint` under `tokenProgram`. */
export function associatedTokenAddress(owner: PublicKey, mint: PublicKey, tokenProgram: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync([owner.toBuffer(), tokenProgram.toBuffer(), mint.toBuffer()], ATA_PROGRAM)[0];
}

/**
 * Which accounts of a transaction belong to the wallet and which ones the operation explains.
 * Wallet-owned: the wallet itself, its associated token accounts (derived for every mint the
 * transaction, the intent or the known mint list mentions, under both token programs) and token
 * accounts this transaction initializes with the wallet as owner. Value may stay among those
 * freely; it may leave only towards an explained account, and then it counts against the intent.
 */
export class WalletAccounts {
  readonly wallet: string;
  /** Wallet-owned token account → its mint. */
  readonly #tokenAccounts = new Map<string, string>();
  readonly #explained: ReadonlySet<string>;

  constructor(decoded: DecodedTransaction, ctx: PolicyContext) {
    this.wallet = ctx.wallet.toBase58();
    this.#explained = new Set(ctx.knownAccounts ?? []);
    const mints = new Set<string>([...Object.values(MINTS), ...Object.keys(ctx.intent?.maxMoveTokens ?? {})]);
    for (const ix of decoded.instructions) {
      const parsed = ix.parsed;
      if (parsed && 'mint' in parsed) mints.add(parsed.mint);
      const initializesAccount =
        parsed?.program === 'token' && (parsed.type === 'initializeAccount' || parsed.type === 'initializeAccount2' || parsed.type === 'initializeAccount3');
      if (initializesAccount && parsed.owner === this.wallet) {
        this.#tokenAccounts.set(parsed.account, parsed.mint);
      }
    }
    for (const mint of mints) {
      let mintKey: PublicKey;
      try {
        mintKey = new PublicKey(mint);
      } catch {
        continue; // intent keys come from callers; a bad one simply derives nothing
      }
      for (const program of TOKEN_PROGRAMS) {
        this.#tokenAccounts.set(associatedTokenAddress(ctx.wallet, mintKey, program).toBase58(), mint);
      }
    }
  }

  isWallet(account: string): boolean {
    return account === this.wallet;
  }

  /** The wallet or one of its token accounts. */
  isWalletOwned(account: string): boolean {
    return account === this.wallet || this.#tokenAccounts.has(account);
  }

  isExplained(account: string): boolean {
    return this.#explained.has(account);
  }

  /** The mint of a wallet-owned token account, when known. */
  mintOf(account: string): string | undefined {
    return this.#tokenAccounts.get(account);
  }

  /** An instruction acts for the wallet when the wallet signs as authority or the account is the wallet's. */
  actsForWallet(authority: string, account: string): boolean {
    return authority === this.wallet || this.#tokenAccounts.has(account);
  }
}
