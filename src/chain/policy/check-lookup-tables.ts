import { PublicKey } from '@solana/web3.js';
import { MINTS } from '../../api/mints.ts';
import type { DecodedTransaction } from '../decode.ts';
import { PROGRAMS } from '../programs.ts';
import type { Violation } from './verdict.ts';
import { associatedTokenAddress, type WalletAccounts } from './wallet-accounts.ts';

const KNOWN_PROGRAMS: ReadonlySet<string> = new Set(Object.values(PROGRAMS));
const TOKEN_PROGRAMS = [new PublicKey(PROGRAMS.token), new PublicKey(PROGRAMS.token2022)];

/**
 * Every address that could be a wallet ATA: under both token programs, for the project's mints and
 * every mint the transaction names. Deliberately wider than ownership (which needs chain facts):
 * here it only decides what may not hide in a table.
 */
function walletAtaCandidates(decoded: DecodedTransaction, wallet: PublicKey): Set<string> {
  const mints = new Set<string>(Object.values(MINTS));
  for (const ix of decoded.instructions) {
    const parsed = ix.parsed;
    if (parsed && 'mint' in parsed && typeof parsed.mint === 'string') mints.add(parsed.mint);
    if (parsed?.program === 'perps') for (const role of ['inputMint', 'desiredMint'] as const) if (parsed.accounts[role]) mints.add(parsed.accounts[role]);
  }
  const out = new Set<string>();
  for (const mint of mints) {
    let key: PublicKey;
    try {
      key = new PublicKey(mint);
    } catch {
      continue;
    }
    for (const program of TOKEN_PROGRAMS) out.add(associatedTokenAddress(wallet, key, program).toBase58());
  }
  return out;
}

/**
 * Rule lookup_table: what an address lookup table contributes must be consistent with the
 * transaction's static part, and the table's content must be provable.
 * - A table the RPC cannot prove (not owned by the lookup table program, deactivated, extended in
 *   the current slot) is refused: the same bytes could resolve differently.
 * - The wallet and its token accounts may not come from a table: the signed message must name
 *   them itself, so no table can swap in or hide the accounts value leaves from.
 * - A program may come from a table only read-only (nothing writes a program account).
 */
export function checkLookupTables(decoded: DecodedTransaction, wallet: WalletAccounts): Violation[] {
  const violations: Violation[] = [];
  for (const lookup of decoded.unresolved) {
    if (lookup.reason === 'unprovable') violations.push({ rule: 'lookup_table', detail: `lookup table ${lookup.table} cannot be proven: ${lookup.detail}` });
  }
  const lookups = decoded.accounts.filter((a) => a.source === 'lookup' && a.pubkey !== null);
  if (lookups.length === 0) return violations;
  const atas = walletAtaCandidates(decoded, new PublicKey(wallet.wallet));
  const invoked = new Set(decoded.instructions.map((ix) => ix.programId).filter((p): p is string => p !== null));
  for (const account of lookups) {
    if (account.pubkey === null) continue;
    const from = `from lookup table ${account.lookupTable ?? '?'} index ${account.lookupIndex ?? '?'}`;
    if (wallet.isWallet(account.pubkey)) {
      violations.push({ rule: 'lookup_table', detail: `the wallet ${account.pubkey} comes ${from}; it must be in the static part` });
    } else if (wallet.isWalletOwned(account.pubkey) || atas.has(account.pubkey)) {
      violations.push({ rule: 'lookup_table', detail: `the wallet's token account ${account.pubkey} comes ${from}; the wallet's own accounts must be in the static part` });
    } else if ((KNOWN_PROGRAMS.has(account.pubkey) || invoked.has(account.pubkey)) && account.writable) {
      violations.push({ rule: 'lookup_table', detail: `program ${account.pubkey} comes ${from} as writable` });
    }
  }
  return violations;
}
