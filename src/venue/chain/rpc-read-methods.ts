import { z } from 'zod';
import bs58 from 'bs58';
import { MINT_DECIMALS, MINTS } from '../../api/mints.ts';
import { mintAccountData } from '../../chain/policy/chain-facts.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import type { VenueChain } from './chain.ts';
import type { AccountView } from './simulation.ts';
import { associatedTokenAccountOf } from '../../chain/policy/wallet-accounts.ts';
import { TOKEN_ACCOUNT_RENT_LAMPORTS, tokenAccountData } from './token-accounts.ts';
import { commitment, context, defineMethod, pubkeyParam, readConfig, requireContextSlot, VENUE_SOLANA_VERSION, type MethodHandler } from './rpc-method.ts';
import { RPC_CODES, RpcError } from './rpc-protocol.ts';

const SLOTS_PER_EPOCH = 432_000;
// Rent: (128 bytes of account overhead + data) × 3480 lamports per byte-year × 2 years.
const RENT_LAMPORTS_PER_BYTE = 6_960n;
const ACCOUNT_OVERHEAD_BYTES = 128n;
const RENT_EPOCH_EXEMPT = 18_446_744_073_709_551_615n;
const SYSTEM_OWNER = PROGRAMS.system;
const NATIVE_LOADER = 'NativeLoader1111111111111111111111111111111';
const UPGRADEABLE_LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const NATIVE_PROGRAMS = new Set<string>([PROGRAMS.system, PROGRAMS.computeBudget]);
const ALL_PROGRAMS = new Set<string>(Object.values(PROGRAMS));
const MINT_ADDRESSES = new Set<string>(Object.values(MINTS));

const accountEncoding = z.enum(['base58', 'base64', 'jsonParsed']);
const accountConfig = z
  .object({
    commitment: commitment.optional(),
    minContextSlot: z.number().int().nonnegative().optional(),
    encoding: z.union([accountEncoding, z.literal('base64+zstd'), z.literal('binary')]).optional(),
    dataSlice: z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() }).optional(),
  })
  .nullish();
type AccountConfig = z.infer<typeof accountConfig>;

/**
 * What getAccountInfo reports for an address, as `view` holds the balances (the chain now, or a
 * simulation's post-state). The venue keeps no other account data: programs are executable
 * stubs, the service's mints are SPL Token mints (the policy reads which token program owns a
 * mint), the associated token account of a holder of a token is an SPL token account with its
 * balance, funded wallets are system accounts, everything else does not exist.
 * (Lookup tables do not exist either: the venue builds without them.)
 */
export function accountInfo(view: AccountView, address: string, config: AccountConfig): Record<string, unknown> | null {
  const encoding = config?.encoding ?? 'binary';
  if (encoding === 'base64+zstd') throw new RpcError(RPC_CODES.invalidParams, 'Invalid params: encoding base64+zstd is not supported by the venue chain');
  const data = encoding === 'binary' ? '' : ['', encoding === 'jsonParsed' ? 'base64' : encoding];
  if (MINT_ADDRESSES.has(address)) {
    const bytes = Buffer.from(mintAccountData(MINT_DECIMALS[address] ?? 0));
    const encoded = encoding === 'base58' || encoding === 'binary' ? bs58.encode(bytes) : bytes.toString('base64');
    const lamports = (ACCOUNT_OVERHEAD_BYTES + BigInt(bytes.length)) * RENT_LAMPORTS_PER_BYTE;
    return { data: encoding === 'binary' ? encoded : [encoded, encoding === 'base58' ? 'base58' : 'base64'], executable: false, lamports, owner: PROGRAMS.token, rentEpoch: RENT_EPOCH_EXEMPT, space: bytes.length };
  }
  if (ALL_PROGRAMS.has(address)) {
    const owner = NATIVE_PROGRAMS.has(address) ? NATIVE_LOADER : UPGRADEABLE_LOADER;
    return { data, executable: true, lamports: 1_141_440n, owner, rentEpoch: RENT_EPOCH_EXEMPT, space: 0 };
  }
  const tokenAccount = view.tokenAccountAt(address);
  if (tokenAccount) {
    const bytes = Buffer.from(tokenAccountData(tokenAccount, tokenAccount.amount));
    const encoded = encoding === 'base58' || encoding === 'binary' ? bs58.encode(bytes) : bytes.toString('base64');
    return { data: encoding === 'binary' ? encoded : [encoded, encoding === 'base58' ? 'base58' : 'base64'], executable: false, lamports: TOKEN_ACCOUNT_RENT_LAMPORTS, owner: PROGRAMS.token, rentEpoch: RENT_EPOCH_EXEMPT, space: bytes.length };
  }
  const lamports = view.getBalance(address);
  if (lamports === 0n) return null;
  return { data, executable: false, lamports, owner: SYSTEM_OWNER, rentEpoch: RENT_EPOCH_EXEMPT, space: 0 };
}

/** getTokenAccountsByOwner's second parameter: accounts of one mint, or of one token program. */
const tokenAccountFilter = z.union([z.strictObject({ mint: pubkeyParam }), z.strictObject({ programId: pubkeyParam })]);

/** An SPL token account as a node's jsonParsed encoding shows it (amounts as integer text, as a node gives them). */
function parsedTokenAccount(holder: { readonly owner: string; readonly mint: string }, amount: bigint): Record<string, unknown> {
  const decimals = MINT_DECIMALS[holder.mint] ?? 0;
  const scale = 10n ** BigInt(decimals);
  const whole = amount / scale;
  const fraction = decimals === 0 ? '' : (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  const uiAmountString = fraction === '' ? whole.toString() : `${whole}.${fraction}`;
  return {
    program: 'spl-token',
    parsed: {
      type: 'account',
      // uiAmount is a node's deprecated display float, which it may answer null: the exact text is uiAmountString.
      info: { isNative: false, mint: holder.mint, owner: holder.owner, state: 'initialized', tokenAmount: { amount: amount.toString(), decimals, uiAmount: null, uiAmountString } },
    },
    space: 165,
  };
}

/**
 * getTokenAccountsByOwner: the owner's associated token accounts, of one mint or of one token
 * program (the venue's mints are all SPL Token: Token-2022 lists none), in the encoding asked.
 */
function tokenAccountsByOwner(chain: VenueChain, owner: string, filter: z.infer<typeof tokenAccountFilter>, config: AccountConfig): Array<{ pubkey: string; account: Record<string, unknown> | null }> {
  const accounts = chain.tokenAccountsOf(owner).filter((a) => ('mint' in filter ? a.mint === filter.mint : filter.programId === PROGRAMS.token));
  return accounts.map((a) => {
    const pubkey = associatedTokenAccountOf(owner, a.mint, PROGRAMS.token);
    if (config?.encoding !== 'jsonParsed') return { pubkey, account: accountInfo(chain, pubkey, config) };
    return { pubkey, account: { data: parsedTokenAccount(a, a.amount), executable: false, lamports: TOKEN_ACCOUNT_RENT_LAMPORTS, owner: PROGRAMS.token, rentEpoch: RENT_EPOCH_EXEMPT, space: 165 } };
  });
}

export const READ_METHODS: Readonly<Record<string, MethodHandler>> = {
  getLatestBlockhash: defineMethod(z.tuple([readConfig]), ([config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    return { context: context(chain), value: chain.latestBlockhash() };
  }),
  getBlockHeight: defineMethod(z.tuple([readConfig]), ([config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    return chain.blockHeight();
  }),
  getSlot: defineMethod(z.tuple([readConfig]), ([config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    return chain.slot();
  }),
  isBlockhashValid: defineMethod(z.tuple([z.string().min(1), readConfig]), ([blockhash, config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    return { context: context(chain), value: chain.isBlockhashValid(blockhash) };
  }),
  getEpochInfo: defineMethod(z.tuple([readConfig]), ([config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    const slot = chain.slot();
    return {
      absoluteSlot: slot,
      blockHeight: chain.blockHeight(),
      epoch: Math.floor(slot / SLOTS_PER_EPOCH),
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: chain.landedCount(),
    };
  }),
  getVersion: defineMethod(z.tuple([]), () => ({ 'solana-core': VENUE_SOLANA_VERSION, 'feature-set': 3_294_202_862 })),
  getGenesisHash: defineMethod(z.tuple([]), (_params, chain) => chain.genesisHash),
  getHealth: defineMethod(z.tuple([]), () => 'ok'),
  getMinimumBalanceForRentExemption: defineMethod(
    z.tuple([z.number().int().nonnegative(), readConfig]),
    ([size]) => (ACCOUNT_OVERHEAD_BYTES + BigInt(size)) * RENT_LAMPORTS_PER_BYTE,
  ),
  getRecentPrioritizationFees: defineMethod(z.tuple([z.array(pubkeyParam).max(128).nullish()]), (_params, chain) => {
    // No competition for block space on the venue: recent slots carried no priority fee.
    const slot = chain.slot();
    return Array.from({ length: 150 }, (_, i) => ({ slot: slot - 149 + i, prioritizationFee: 0 }));
  }),
  getBalance: defineMethod(z.tuple([pubkeyParam, readConfig]), ([address, config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    return { context: context(chain), value: chain.getBalance(address) };
  }),
  getAccountInfo: defineMethod(z.tuple([pubkeyParam, accountConfig]), ([address, config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    return { context: context(chain), value: accountInfo(chain, address, config) };
  }),
  getTokenAccountsByOwner: defineMethod(z.tuple([pubkeyParam, tokenAccountFilter, accountConfig]), ([owner, filter, config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    return { context: context(chain), value: tokenAccountsByOwner(chain, owner, filter, config) };
  }),
  getMultipleAccounts: defineMethod(z.tuple([z.array(pubkeyParam).max(100), accountConfig]), ([addresses, config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    return { context: context(chain), value: addresses.map((address) => accountInfo(chain, address, config)) };
  }),
};
