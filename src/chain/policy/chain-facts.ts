import { PublicKey, type Connection } from '@solana/web3.js';
import { MINTS } from '../../api/mints.ts';
import type { DecodedTransaction } from '../decode.ts';
import { PROGRAMS } from '../programs.ts';

/** An account as the chain reports it: the program that owns it and its data. */
export interface ChainAccount {
  readonly owner: string;
  readonly data: Uint8Array;
}

/**
 * Reads accounts from the chain, one answer per key (base58, as the RPC wants them), null where
 * no account exists.
 */
export type AccountReader = (keys: readonly string[]) => Promise<ReadonlyArray<ChainAccount | null>>;

/** A token account as its data says: the mint it holds and the key that owns it. */
interface TokenAccountFacts {
  readonly mint: string;
  readonly owner: string;
  readonly program: string;
}

/**
 * What the chain says about the accounts a transaction names, as far as the policy needs it.
 * A mint absent from `mintPrograms` has an unknown token program: no associated token account
 * of it counts as the wallet's (the strictest reading).
 */
export interface ChainFacts {
  /** Mint → the token program that owns it (Token or Token-2022). */
  readonly mintPrograms: ReadonlyMap<string, string>;
  /** Existing token accounts named by the transaction → their mint and owner. */
  readonly tokenAccounts: ReadonlyMap<string, TokenAccountFacts>;
}

export const NO_CHAIN_FACTS: ChainFacts = { mintPrograms: new Map(), tokenAccounts: new Map() };

const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([PROGRAMS.token, PROGRAMS.token2022]);
// SPL layouts: a mint is 82 bytes, a token account 165; Token-2022 extends both past 165 bytes
// and marks the kind in byte 165 (1 = mint, 2 = account).
const MINT_SIZE = 82;
const TOKEN_ACCOUNT_SIZE = 165;
const ACCOUNT_TYPE_OFFSET = 165;
const MAX_KEYS_PER_CALL = 100;
const NEVER_TOKEN_MAX = 10_000;
const VALID_KEYS_MAX = 10_000;

type Kind = 'mint' | 'tokenAccount' | 'other';

function kindOf(account: ChainAccount): Kind {
  if (!TOKEN_PROGRAMS.has(account.owner)) return 'other';
  if (account.data.length === MINT_SIZE) return 'mint';
  if (account.data.length === TOKEN_ACCOUNT_SIZE) return 'tokenAccount';
  if (account.owner === PROGRAMS.token2022 && account.data.length > ACCOUNT_TYPE_OFFSET) {
    const type = account.data[ACCOUNT_TYPE_OFFSET];
    return type === 1 ? 'mint' : type === 2 ? 'tokenAccount' : 'other';
  }
  return 'other';
}

/** Reads accounts through `getMultipleAccountsInfo` (confirmed), 100 per call. */
export function rpcAccountReader(connection: Connection): AccountReader {
  return async (keys) => {
    const answers: Array<ChainAccount | null> = [];
    for (let i = 0; i < keys.length; i += MAX_KEYS_PER_CALL) {
      const infos = await connection.getMultipleAccountsInfo(keys.slice(i, i + MAX_KEYS_PER_CALL).map((key) => new PublicKey(key)), 'confirmed');
      answers.push(...infos.map((info) => (info ? { owner: info.owner.toBase58(), data: Uint8Array.from(info.data) } : null)));
    }
    return answers;
  };
}

/** Reads from accounts held in memory (tests, a cache). */
export function staticAccountReader(accounts: Readonly<Record<string, ChainAccount>>): AccountReader {
  return async (keys) => keys.map((key) => accounts[key] ?? null);
}

/** The data of an initialized SPL mint (no authorities, zero supply): what a test chain serves. */
export function mintAccountData(decimals: number): Uint8Array {
  const data = new Uint8Array(MINT_SIZE);
  data[44] = decimals;
  data[45] = 1; // is_initialized
  return data;
}

/**
 * Reads the chain facts of a transaction. A mint's owning program never changes, so mints are
 * read once and cached for the life of the reader. So are accounts that can never be a mint or a
 * token account: executables and data accounts of a program other than System and the token
 * programs (the perps pool, its custodies, programs), which only their own program could hand
 * over, and which a decrease names every time. Token accounts, System accounts (a key could
 * still be made into a token account) and absent accounts are read again for every inspection.
 * RPC failures propagate: they are transient, never a verdict.
 */
export class ChainFactsReader {
  readonly #mintPrograms = new Map<string, string>();
  readonly #neverToken = new Set<string>();
  /** Keys that parsed as public keys: the same pool, custody and mint keys come with every action. */
  readonly #validKeys = new Set<string>();

  constructor(private readonly read: AccountReader) {}

  async factsFor(decoded: DecodedTransaction, extraMints: readonly string[] = []): Promise<ChainFacts> {
    const named = new Set<string>();
    for (const ix of decoded.instructions) {
      for (const account of ix.accounts) if (account.pubkey !== null) named.add(account.pubkey);
      const parsed = ix.parsed;
      if (parsed && 'mint' in parsed) named.add(parsed.mint);
    }
    for (const mint of [...Object.values(MINTS), ...extraMints]) named.add(mint);
    const wanted = [...named].filter((key) => !this.#mintPrograms.has(key) && !this.#neverToken.has(key) && this.#isPublicKey(key));
    const answers = wanted.length === 0 ? [] : await this.read(wanted);
    const tokenAccounts = new Map<string, TokenAccountFacts>();
    wanted.forEach((key, i) => {
      const account = answers[i] ?? null;
      if (!account) return;
      const kind = kindOf(account);
      if (kind === 'mint') this.#mintPrograms.set(key, account.owner);
      if (!TOKEN_PROGRAMS.has(account.owner) && account.owner !== PROGRAMS.system) {
        // Bounded: a long run meets the same few program accounts.
        if (this.#neverToken.size >= NEVER_TOKEN_MAX) this.#neverToken.clear();
        this.#neverToken.add(key);
      }
      if (kind !== 'tokenAccount') return;
      tokenAccounts.set(key, {
        mint: new PublicKey(account.data.subarray(0, 32)).toBase58(),
        owner: new PublicKey(account.data.subarray(32, 64)).toBase58(),
        program: account.owner,
      });
    });
    return { mintPrograms: new Map(this.#mintPrograms), tokenAccounts };
  }

  #isPublicKey(key: string): boolean {
    if (this.#validKeys.has(key)) return true;
    try {
      new PublicKey(key);
    } catch {
      return false;
    }
    // Bounded like #neverToken; invalid keys are not remembered (they are rare and re-checked).
    if (this.#validKeys.size >= VALID_KEYS_MAX) this.#validKeys.clear();
    this.#validKeys.add(key);
    return true;
  }
}
