import { PublicKey } from '@solana/web3.js';
import { MINTS } from '../../../api/mints.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../programs.ts';
import { REQUEST_CHANGE } from './instructions.ts';
import { findProgramAddress, isProgramAddress } from '../../program-address.ts';

/**
 * Addresses the perps program derives (api-facts 5; docs "position-account",
 * "position-request-account"): a position from its owner, the pool, the market custody, the
 * collateral custody and the side; a position request from its position, a u64 counter and the
 * kind of change. The policy re-derives them to prove an instruction acts on the wallet's own.
 */

const PROGRAM = new PublicKey(PROGRAMS.perps);
const cache = new Map<string, string>();

/**
 * The program address of the seeds `seedsOf` builds, remembered under `text` (the seeds as their
 * base58 and decimal text): a remembered address costs no base58 decoding and no curve check.
 */
function derive(text: string, seedsOf: () => readonly Uint8Array[]): string {
  const known = cache.get(text);
  if (known) return known;
  const address = findProgramAddress(seedsOf(), PROGRAM).address;
  // Bounded: a long run derives a few addresses per request.
  if (cache.size >= 50_000) cache.clear();
  cache.set(text, address);
  return address;
}

const text = (s: string) => Buffer.from(s, 'utf8');
const key = (address: string) => new PublicKey(address).toBytes();

export type PerpsSide = 'long' | 'short';

/** ["position", owner, pool, custody, collateralCustody, side (1 long, 2 short)]. */
export function perpsPositionAddress(owner: string, custody: string, collateralCustody: string, side: PerpsSide): string {
  return derive(`position/${owner}/${custody}/${collateralCustody}/${side}`, () => [
    text('position'), key(owner), key(PERPS_ACCOUNTS.pool), key(custody), key(collateralCustody), Uint8Array.of(side === 'long' ? 1 : 2),
  ]);
}

/** The seeds of a position request: ["position_request", position, counter (u64 LE), requestChange (1 increase, 2 decrease)]. */
function requestSeeds(position: string, counter: bigint, change: 'increase' | 'decrease'): Uint8Array[] {
  const counterBytes = Buffer.alloc(8);
  counterBytes.writeBigUInt64LE(counter);
  return [text('position_request'), key(position), counterBytes, Uint8Array.of(REQUEST_CHANGE[change])];
}

/** The request account of (position, counter, change). */
export function perpsPositionRequestAddress(position: string, counter: bigint, change: 'increase' | 'decrease'): string {
  return derive(`position_request/${position}/${counter}/${change}`, () => requestSeeds(position, counter, change));
}

/**
 * Whether `candidate` is the request account of (position, counter, change): the check the policy
 * makes of every request it signs. It costs a hash, not a derivation (src/chain/program-address.ts);
 * every request is new, so no remembered address could answer it. False when `position` is no key.
 */
export function isPerpsPositionRequestAddress(candidate: string, position: string, counter: bigint, change: 'increase' | 'decrease'): boolean {
  let seeds: Uint8Array[];
  try {
    seeds = requestSeeds(position, counter, change);
  } catch {
    return false;
  }
  return isProgramAddress(candidate, seeds, PROGRAM);
}

/** The program's global config and token authority PDAs (["perpetuals"], ["transfer_authority"]). */
export const PERPETUALS_ADDRESS = derive('perpetuals', () => [text('perpetuals')]);
export const TRANSFER_AUTHORITY_ADDRESS = derive('transfer_authority', () => [text('transfer_authority')]);

/** Custody address → the mint it holds. */
export const CUSTODY_MINT: Readonly<Record<string, string>> = Object.fromEntries(
  (Object.keys(PERPS_ACCOUNTS.custody) as Array<keyof typeof PERPS_ACCOUNTS.custody>).map((symbol) => [PERPS_ACCOUNTS.custody[symbol], MINTS[symbol]]),
);

/**
 * The token program of every mint the perps program moves. All are classic SPL Token mints; a
 * mint outside this list is not one the perps program trades.
 */
export const PERPS_MINT_TOKEN_PROGRAM: Readonly<Record<string, string>> = Object.fromEntries(
  [MINTS.SOL, MINTS.ETH, MINTS.BTC, MINTS.USDC, MINTS.USDT, MINTS.JLP].map((mint) => [mint, PROGRAMS.token]),
);
