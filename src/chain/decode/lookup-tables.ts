import { AddressLookupTableAccount, AddressLookupTableProgram, type Connection, type PublicKey } from '@solana/web3.js';

/**
 * Finds an address lookup table by its key: null when it does not exist. The decoder injects it,
 * so tests and the venue resolve tables in memory and the daemon through its RPC.
 */
export type LookupTableResolver = (tableKey: PublicKey) => Promise<AddressLookupTableAccount | null>;

/** The account at a table's key is not owned by the lookup table program, or its data is not a table. */
export class LookupTableError extends Error {
  override readonly name = 'LookupTableError';
  readonly kind = 'not_a_lookup_table' as const;
}

/**
 * Resolves tables through `getAccountInfo`. Unlike `Connection.getAddressLookupTable` it checks the
 * account's owner, so an RPC cannot pass off arbitrary account data as a table.
 */
export function rpcLookupTableResolver(connection: Connection): LookupTableResolver {
  return async (tableKey) => {
    const info = await connection.getAccountInfo(tableKey, 'confirmed');
    if (info === null) return null;
    if (!info.owner.equals(AddressLookupTableProgram.programId)) {
      throw new LookupTableError(`account ${tableKey.toBase58()} is owned by ${info.owner.toBase58()}, not the lookup table program`);
    }
    try {
      return new AddressLookupTableAccount({ key: tableKey, state: AddressLookupTableAccount.deserialize(info.data) });
    } catch {
      throw new LookupTableError(`account ${tableKey.toBase58()} does not hold a valid lookup table`);
    }
  };
}

/** Resolves from tables already in memory (tests, the in-process venue, a cache). */
export function staticLookupTableResolver(tables: readonly AddressLookupTableAccount[]): LookupTableResolver {
  return async (tableKey) => tables.find((table) => table.key.equals(tableKey)) ?? null;
}
