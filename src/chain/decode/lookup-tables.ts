import { AddressLookupTableAccount, AddressLookupTableProgram, type Connection, type PublicKey } from '@solana/web3.js';

/**
 * Finds an address lookup table by its key: null when it does not exist. The decoder injects it,
 * so tests and the venue resolve tables in memory and the daemon through its RPC.
 */
export type LookupTableResolver = (tableKey: PublicKey) => Promise<AddressLookupTableAccount | null>;

/**
 * The RPC's answer does not prove what the table resolves to: the account is not a table of the
 * lookup table program, the table is deactivated (its content may change once it is closed and
 * re-created), or it was extended in the slot the RPC answered for (addresses not usable yet).
 */
export class LookupTableError extends Error {
  override readonly name = 'LookupTableError';
  constructor(
    readonly kind: 'not_a_lookup_table' | 'deactivated' | 'too_new',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The RPC did not answer for a table (timeout, connection, server error), or answered for the slot
 * in which the table was extended (`too_new`): nothing is proven about it yet. The decoder throws
 * this rather than judging the transaction, so the executor looks again later instead of
 * rejecting a protective action over a transient state.
 */
export class LookupTableUnavailable extends Error {
  override readonly name = 'LookupTableUnavailable';
  readonly kind = 'lookup_table_unavailable';
  constructor(
    readonly table: string,
    options: { cause: unknown },
  ) {
    const tooNew = options.cause instanceof LookupTableError && options.cause.kind === 'too_new';
    super(`lookup table ${table} ${tooNew ? 'cannot be proven yet' : 'could not be fetched'}: ${(options.cause as Error)?.message ?? String(options.cause)}`, options);
  }
}

/** A table whose deactivation slot is not u64::MAX has been deactivated. */
export function checkTableActive(table: AddressLookupTableAccount): void {
  if (!table.isActive()) {
    throw new LookupTableError('deactivated', `lookup table ${table.key.toBase58()} was deactivated at slot ${table.state.deactivationSlot}`);
  }
}

/**
 * Resolves tables through `getAccountInfo`. Unlike `Connection.getAddressLookupTable` it checks the
 * account's owner, so an RPC cannot pass off arbitrary account data as a table; and it refuses a
 * deactivated table or one extended at or after the slot the answer is for.
 */
export function rpcLookupTableResolver(connection: Connection): LookupTableResolver {
  return async (tableKey) => {
    const { context, value: info } = await connection.getAccountInfoAndContext(tableKey, 'confirmed');
    if (info === null) return null;
    const address = tableKey.toBase58();
    if (!info.owner.equals(AddressLookupTableProgram.programId)) {
      throw new LookupTableError('not_a_lookup_table', `account ${address} is owned by ${info.owner.toBase58()}, not the lookup table program`);
    }
    let table: AddressLookupTableAccount;
    try {
      table = new AddressLookupTableAccount({ key: tableKey, state: AddressLookupTableAccount.deserialize(info.data) });
    } catch {
      throw new LookupTableError('not_a_lookup_table', `account ${address} does not hold a valid lookup table`);
    }
    checkTableActive(table);
    if (table.state.lastExtendedSlot >= context.slot) {
      throw new LookupTableError('too_new', `lookup table ${address} was extended at slot ${table.state.lastExtendedSlot}, not before the slot ${context.slot} the RPC answered for`);
    }
    return table;
  };
}

/** Resolves from tables already in memory (tests, the in-process venue, a cache). */
export function staticLookupTableResolver(tables: readonly AddressLookupTableAccount[]): LookupTableResolver {
  return async (tableKey) => tables.find((table) => table.key.equals(tableKey)) ?? null;
}
