import { PublicKey } from '@solana/web3.js';
import { MINTS } from '../../api/mints.ts';
import type { DecodedTransaction } from '../decode.ts';
import { PROGRAMS } from '../programs.ts';
import { findProgramAddress, isProgramAddress } from '../program-address.ts';
import { NO_CHAIN_FACTS } from './chain-facts.ts';
import type { PolicyContext } from './context.ts';

const ATA_PROGRAM = new PublicKey(PROGRAMS.associatedToken);
const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([PROGRAMS.token, PROGRAMS.token2022]);

/**
 * Derived addresses, remembered: a derivation is pure but costs curve checks (about a tenth of a
 * daemon's CPU per action when every inspection derived the wallet's accounts again). Bounded.
 */
const derived = new Map<string, string>();
const DERIVED_MAX = 10_000;

/** The associated token account of `owner` for `mint` under `tokenProgram`. */
export function associatedTokenAddress(owner: PublicKey, mint: PublicKey, tokenProgram: PublicKey): PublicKey {
  return new PublicKey(associatedTokenAccountOf(owner.toBase58(), mint.toBase58(), tokenProgram.toBase58()));
}

/**
 * The same, on base58 text (what the policy holds): a remembered address costs one map lookup,
 * no PublicKey and no base58 encoding. Throws on text that is not a public key.
 */
export function associatedTokenAccountOf(owner: string, mint: string, tokenProgram: string): string {
  const key = `${owner}/${tokenProgram}/${mint}`;
  let address = derived.get(key);
  if (address === undefined) {
    address = findProgramAddress(ataSeeds(owner, mint, tokenProgram), ATA_PROGRAM).address;
    if (derived.size >= DERIVED_MAX) derived.clear();
    derived.set(key, address);
  }
  return address;
}

/**
 * Whether `candidate` is the associated token account of `owner` for `mint` under `tokenProgram`,
 * checked with a hash rather than a derivation (src/chain/program-address.ts): for owners seen once,
 * such as a new position request's escrow. False when a text is no public key.
 */
export function isAssociatedTokenAccountOf(candidate: string, owner: string, mint: string, tokenProgram: string): boolean {
  let seeds: Uint8Array[];
  try {
    seeds = ataSeeds(owner, mint, tokenProgram);
  } catch {
    return false;
  }
  return isProgramAddress(candidate, seeds, ATA_PROGRAM);
}

/** The seeds of an associated token account: [owner, token program, mint]. Throws on text that is not a public key. */
function ataSeeds(owner: string, mint: string, tokenProgram: string): Uint8Array[] {
  return [new PublicKey(owner).toBytes(), new PublicKey(tokenProgram).toBytes(), new PublicKey(mint).toBytes()];
}

/** The associated account, or undefined when a text is no public key (nothing can be the wallet's there). */
function ataOrUndefined(owner: string, mint: string, program: string): string | undefined {
  try {
    return associatedTokenAccountOf(owner, mint, program);
  } catch {
    return undefined;
  }
}

/**
 * Which accounts of a transaction belong to the wallet and which ones the operation explains.
 * Wallet-owned, exactly:
 * - the wallet itself;
 * - its associated token account of a mint, derived under the token program that owns that mint
 *   on the chain (ctx.chain; a mint whose program is unknown has none), for every mint the
 *   transaction, the intent, the chain facts or the known mint list mention;
 * - an existing token account whose data on the chain names the wallet as owner;
 * - a token account this transaction creates with the wallet's lamports and initializes for it.
 * Value may stay among those freely; it may leave only towards an explained account, and then it
 * counts against the intent.
 */
export class WalletAccounts {
  readonly wallet: string;
  /** Wallet-owned token account → its mint. */
  readonly #tokenAccounts = new Map<string, string>();
  /** Accounts this transaction creates, funded by the wallet, for a token program. */
  readonly #createdForToken = new Set<string>();
  readonly #explained: ReadonlySet<string>;
  readonly #wrapAccount: string | undefined;

  constructor(decoded: DecodedTransaction, ctx: PolicyContext) {
    this.wallet = ctx.wallet.toBase58();
    this.#explained = new Set(ctx.knownAccounts ?? []);
    const facts = ctx.chain ?? NO_CHAIN_FACTS;
    const mints = new Set<string>([...Object.values(MINTS), ...Object.keys(ctx.intent?.maxMoveTokens ?? {})]);
    for (const [account, token] of facts.tokenAccounts) {
      mints.add(token.mint);
      if (token.owner === this.wallet) this.#tokenAccounts.set(account, token.mint);
    }
    for (const ix of decoded.instructions) {
      const parsed = ix.parsed;
      if (parsed && 'mint' in parsed) mints.add(parsed.mint);
      if (parsed?.program === 'system' && (parsed.type === 'createAccount' || parsed.type === 'createAccountWithSeed')) {
        if (parsed.from === this.wallet && TOKEN_PROGRAMS.has(parsed.owner)) this.#createdForToken.add(parsed.newAccount);
      }
      const initializes = parsed?.program === 'token' && (parsed.type === 'initializeAccount' || parsed.type === 'initializeAccount2' || parsed.type === 'initializeAccount3');
      if (initializes && parsed.owner === this.wallet) {
        // Only an account created here for the wallet becomes the wallet's by being initialized.
        if (this.#createdForToken.has(parsed.account)) this.#tokenAccounts.set(parsed.account, parsed.mint);
      }
    }
    for (const mint of mints) {
      const program = facts.mintPrograms.get(mint);
      if (!program) continue; // unknown program: no associated account is the wallet's
      const address = ataOrUndefined(this.wallet, mint, program);
      if (address !== undefined) this.#tokenAccounts.set(address, mint);
    }
    const solProgram = facts.mintPrograms.get(MINTS.SOL);
    this.#wrapAccount = solProgram ? associatedTokenAccountOf(this.wallet, MINTS.SOL, solProgram) : undefined;
  }

  isWallet(account: string): boolean {
    return account === this.wallet;
  }

  /** The wallet or one of its token accounts. */
  isWalletOwned(account: string): boolean {
    return account === this.wallet || this.#tokenAccounts.has(account);
  }

  /** One of the wallet's token accounts (not the wallet itself). */
  isWalletTokenAccount(account: string): boolean {
    return this.#tokenAccounts.has(account);
  }

  /** The wallet's wrapped-SOL account under the program that owns the wSOL mint. */
  isWrapAccount(account: string): boolean {
    return account === this.#wrapAccount;
  }

  /** Created by this transaction with the wallet's lamports, for a token program. */
  isCreatedForWallet(account: string): boolean {
    return this.#createdForToken.has(account);
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
