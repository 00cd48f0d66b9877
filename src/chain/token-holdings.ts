import bs58 from 'bs58';
import { z } from 'zod';
import type { JsonRpc } from './json-rpc.ts';
import { JsonRpcError } from './json-rpc.ts';
import { PROGRAMS } from './programs.ts';

/** One token the wallet holds: its mint and the amount in the mint's smallest unit. */
export interface TokenHolding {
  readonly mint: string;
  readonly amount: bigint;
}

/** A token account's mint (bytes 0–32) and amount (u64 LE at 64) in both token programs' layouts. */
const MIN_TOKEN_ACCOUNT_BYTES = 72;

const tokenAccounts = z.looseObject({
  value: z.array(z.looseObject({ pubkey: z.string(), account: z.looseObject({ owner: z.string(), data: z.tuple([z.string(), z.literal('base64')]) }) })),
});

/**
 * Every token the wallet holds a non-zero amount of, read from its token accounts of both token
 * programs (getTokenAccountsByOwner, base64: the amount read from the account's bytes, never
 * from a node's display float). Two accounts of one mint add up. An account that is not owned by
 * the program it was listed for, or too short to be a token account, makes the read fail: a node
 * that answers that is not one to read holdings from.
 *
 * @example
 * const held = await readTokenHoldings(rpc, wallet); // [{ mint: 'JUPy…', amount: 1_500_000n }]
 */
export async function readTokenHoldings(rpc: JsonRpc, owner: string): Promise<TokenHolding[]> {
  const byMint = new Map<string, bigint>();
  const programs = [PROGRAMS.token, PROGRAMS.token2022];
  const replies = await Promise.all(programs.map((programId) => rpc.call('getTokenAccountsByOwner', [owner, { programId }, { encoding: 'base64', commitment: 'confirmed' }], tokenAccounts)));
  replies.forEach((reply, i) => {
    for (const { pubkey, account } of reply.value) {
      if (account.owner !== programs[i]) throw new JsonRpcError(`getTokenAccountsByOwner: account ${pubkey} is owned by ${account.owner}, not ${programs[i]}`);
      const data = Buffer.from(account.data[0], 'base64');
      if (data.length < MIN_TOKEN_ACCOUNT_BYTES) throw new JsonRpcError(`getTokenAccountsByOwner: account ${pubkey} holds ${data.length} bytes, too few for a token account`);
      const amount = data.readBigUInt64LE(64);
      if (amount === 0n) continue;
      const mint = bs58.encode(data.subarray(0, 32));
      byMint.set(mint, (byMint.get(mint) ?? 0n) + amount);
    }
  });
  return [...byMint].map(([mint, amount]) => ({ mint, amount }));
}
