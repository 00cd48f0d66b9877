import { PublicKey, VersionedTransaction, type AddressLookupTableAccount } from '@solana/web3.js';
import { PROGRAMS } from './programs.ts';
import { decodeAggregatorInstruction, type AggregatorInstruction } from './decode/aggregator.ts';
import { decodeAssociatedTokenInstruction, type AssociatedTokenInstruction } from './decode/associated-token.ts';
import { decodeComputeBudgetInstruction, type ComputeBudgetInstruction } from './decode/compute-budget.ts';
import { checkTableActive, LookupTableError, LookupTableUnavailable, type LookupTableResolver } from './decode/lookup-tables.ts';
import { decodeMemoInstruction, type MemoInstruction } from './decode/memo.ts';
import { decodePerpsInstruction, type PerpsInstruction } from './decode/perps.ts';
import { decodeLimitOrderInstruction, type LimitOrderInstruction } from './decode/limit-order.ts';
import { decodeDcaInstruction, type DcaInstruction } from './decode/dca.ts';
import { decodeDbcInstruction, type DbcInstruction } from './decode/dbc.ts';
import { readWireTransaction } from './decode/read-transaction.ts';
import { WireTransaction } from './decode/wire-transaction.ts';
import type { WireLookup } from './decode/wire-layout.ts';
import { decodeSystemInstruction, type SystemInstruction } from './decode/system.ts';
import { decodeTokenInstruction, type TokenInstruction } from './decode/token.ts';

export type { LookupTableResolver } from './decode/lookup-tables.ts';
export { rpcLookupTableResolver, staticLookupTableResolver, LookupTableUnavailable } from './decode/lookup-tables.ts';
export { TransactionDecodeError } from './decode/transaction-decode-error.ts';
export { readTransaction, readWireTransaction } from './decode/read-transaction.ts';
export { WireTransaction } from './decode/wire-transaction.ts';
export type { SystemInstruction, TokenInstruction, AssociatedTokenInstruction, PerpsInstruction, AggregatorInstruction, LimitOrderInstruction, DcaInstruction, DbcInstruction };

/** The decoded form of an instruction of a program we know. */
type ParsedInstruction =
  | SystemInstruction
  | TokenInstruction
  | AssociatedTokenInstruction
  | ComputeBudgetInstruction
  | MemoInstruction
  | PerpsInstruction
  | AggregatorInstruction
  | LimitOrderInstruction
  | DcaInstruction
  | DbcInstruction;

/** An account of the message; `pubkey` is null when it comes from a lookup table that did not resolve. */
interface DecodedAccount {
  readonly index: number;
  readonly pubkey: string | null;
  readonly signer: boolean;
  readonly writable: boolean;
  readonly source: 'static' | 'lookup';
  readonly lookupTable?: string;
  readonly lookupIndex?: number;
}

interface DecodedSigner {
  readonly index: number;
  readonly pubkey: string;
  /** False when the signature slot is all zeros (nobody signed yet). */
  readonly signed: boolean;
  readonly writable: boolean;
}

export interface DecodedInstruction {
  readonly index: number;
  readonly programId: string | null;
  /** The key of PROGRAMS for a known program, else 'unknown'. */
  readonly programName: string;
  readonly accounts: ReadonlyArray<{ readonly pubkey: string | null; readonly signer: boolean; readonly writable: boolean }>;
  readonly dataBase64: string;
  readonly parsed?: ParsedInstruction;
  /** Set when a known program's instruction does not decode (the policy calls it malformed). */
  readonly parseError?: string;
}

interface UnresolvedLookup {
  readonly table: string;
  /** 'unprovable': the table exists but its content cannot be trusted (LookupTableError). */
  readonly reason: 'no_resolver' | 'not_found' | 'resolver_error' | 'index_out_of_range' | 'unprovable';
  readonly detail: string;
}

/** What the transaction asks to pay for compute; the price is micro-lamports per unit, exact. */
interface ComputeBudgetSummary {
  readonly unitLimit: number | null;
  readonly unitPriceMicroLamports: string | null;
  readonly heapFrameBytes: number | null;
  readonly loadedAccountsDataSizeLimit: number | null;
  /** A fee set in lamports outright (v1 message config, or the deprecated RequestUnits). */
  readonly explicitPriorityFeeLamports: string | null;
}

export interface DecodedTransaction {
  readonly version: 'legacy' | 0;
  /** sha256 of the message bytes, hex: binds a verdict to exactly these bytes. */
  readonly messageSha256: string;
  readonly feePayer: string;
  readonly recentBlockhash: string;
  readonly signers: readonly DecodedSigner[];
  readonly accounts: readonly DecodedAccount[];
  readonly addressTableLookups: ReadonlyArray<{ readonly table: string; readonly writableIndexes: readonly number[]; readonly readonlyIndexes: readonly number[] }>;
  readonly unresolved: readonly UnresolvedLookup[];
  readonly computeBudget: ComputeBudgetSummary;
  readonly instructions: readonly DecodedInstruction[];
  /** Structural defects: out-of-range indexes, duplicate keys, duplicate budget instructions. */
  readonly problems: readonly string[];
}

interface DecodeOptions {
  /** Without it, any lookup table of a v0 transaction is reported unresolved. */
  readonly resolveLookupTable?: LookupTableResolver;
}

const PROGRAM_NAMES: ReadonlyMap<string, string> = new Map(Object.entries(PROGRAMS).map(([name, id]) => [id, name]));

/**
 * Decodes a transaction (wire bytes, base64 text, a read wire transaction or a parsed one) into a
 * plain, JSON-printable structure. Everything is read from wire bytes (a parsed one is serialized
 * first), and the digest is of the message bytes that were read.
 */
export async function decodeTransaction(
  input: WireTransaction | VersionedTransaction | Uint8Array | string,
  options: DecodeOptions = {},
): Promise<DecodedTransaction> {
  // Only legacy and v0 messages read (a v1 message carries its budget elsewhere: the policy has not been written for it).
  const wire = input instanceof WireTransaction ? input : readWireTransaction(input instanceof VersionedTransaction ? input.serialize() : input);
  // A read of its own: what is judged is derived from the very bytes the digest covers.
  const { message, signed } = wire.view();
  const problems: string[] = [];
  const statics: readonly string[] = message.staticAccountKeys;
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = message.header;

  if (numRequiredSignatures === 0) problems.push('the message requires no signature (it has no fee payer)');
  if (numRequiredSignatures > statics.length) problems.push(`the header requires ${numRequiredSignatures} signers but only ${statics.length} accounts are listed`);
  if (numReadonlySignedAccounts >= numRequiredSignatures && numRequiredSignatures > 0) problems.push('the fee payer is marked read-only');
  if (numReadonlyUnsignedAccounts > statics.length - numRequiredSignatures) problems.push('the header marks more read-only accounts than there are');

  const accounts: DecodedAccount[] = statics.map((pubkey, index) => ({
    index,
    pubkey,
    signer: index < numRequiredSignatures,
    writable:
      index < numRequiredSignatures
        ? index < numRequiredSignatures - numReadonlySignedAccounts
        : index - numRequiredSignatures < statics.length - numRequiredSignatures - numReadonlyUnsignedAccounts,
    source: 'static',
  }));
  const lookups = message.addressTableLookups.map((l) => ({
    table: l.accountKey,
    writableIndexes: [...l.writableIndexes],
    readonlyIndexes: [...l.readonlyIndexes],
  }));
  const unresolved = await appendLookupAccounts(message.addressTableLookups, accounts, options.resolveLookupTable);

  const seen = new Set<string>();
  for (const account of accounts) {
    if (account.pubkey === null) continue;
    if (seen.has(account.pubkey)) problems.push(`account ${account.pubkey} is listed twice`);
    seen.add(account.pubkey);
  }

  const instructions = message.compiledInstructions.map((ix, index): DecodedInstruction => {
    const programAccount = accounts[ix.programIdIndex];
    if (ix.programIdIndex >= statics.length) {
      problems.push(`instruction ${index}: program index ${ix.programIdIndex} is not a static account`);
    }
    const programId = ix.programIdIndex < statics.length ? (programAccount?.pubkey ?? null) : null;
    const ixAccounts = ix.accountKeyIndexes.map((i) => {
      const account = accounts[i];
      if (!account) problems.push(`instruction ${index}: account index ${i} is out of range`);
      return { pubkey: account?.pubkey ?? null, signer: account?.signer ?? false, writable: account?.writable ?? false };
    });
    const data = ix.data;
    const base = {
      index,
      programId,
      programName: (programId && PROGRAM_NAMES.get(programId)) ?? 'unknown',
      accounts: ixAccounts,
      dataBase64: Buffer.from(data).toString('base64'),
    };
    const keys = ixAccounts.map((a) => a.pubkey);
    if (programId === null || keys.some((k) => k === null)) return base;
    try {
      const parsed = parseInstruction(programId, keys as string[], data);
      return parsed ? { ...base, parsed } : base;
    } catch (error) {
      return { ...base, parseError: (error as Error).message };
    }
  });

  const signers = signed.map((isSigned, index) => ({
    index,
    pubkey: statics[index] ?? '',
    signed: isSigned,
    writable: accounts[index]?.writable ?? false,
  }));

  return {
    version: message.version,
    messageSha256: wire.messageSha256,
    feePayer: statics[0] ?? '',
    recentBlockhash: message.recentBlockhash,
    signers,
    accounts,
    addressTableLookups: lookups,
    unresolved,
    computeBudget: summarizeComputeBudget(instructions, problems),
    instructions,
    problems,
  };
}

function parseInstruction(programId: string, accounts: string[], data: Uint8Array): ParsedInstruction | undefined {
  switch (programId) {
    case PROGRAMS.system:
      return decodeSystemInstruction(accounts, data);
    case PROGRAMS.token:
    case PROGRAMS.token2022:
      return decodeTokenInstruction(accounts, data);
    case PROGRAMS.associatedToken:
      return decodeAssociatedTokenInstruction(accounts, data);
    case PROGRAMS.computeBudget:
      return decodeComputeBudgetInstruction(data);
    case PROGRAMS.memo:
    case PROGRAMS.memoV1:
      return decodeMemoInstruction(data);
    case PROGRAMS.perps:
      return decodePerpsInstruction(accounts, data);
    case PROGRAMS.aggregator:
      return decodeAggregatorInstruction(accounts, data);
    case PROGRAMS.trigger:
      return decodeLimitOrderInstruction(accounts, data);
    case PROGRAMS.recurring:
      return decodeDcaInstruction(accounts, data);
    case PROGRAMS.dbc:
      return decodeDbcInstruction(accounts, data);
    default:
      return undefined;
  }
}

/**
 * Appends the accounts loaded through lookup tables in the runtime's order: every table's
 * writable addresses, then every table's read-only ones. Returns what could not be resolved.
 */
async function appendLookupAccounts(
  lookups: readonly WireLookup[],
  accounts: DecodedAccount[],
  resolve: LookupTableResolver | undefined,
): Promise<UnresolvedLookup[]> {
  const unresolved: UnresolvedLookup[] = [];
  const tables = await Promise.all(
    lookups.map(async (lookup): Promise<AddressLookupTableAccount | null> => {
      const table = lookup.accountKey;
      if (!resolve) {
        unresolved.push({ table, reason: 'no_resolver', detail: `lookup table ${table} cannot be resolved without an RPC` });
        return null;
      }
      try {
        const account = await resolve(new PublicKey(table));
        if (account === null) {
          unresolved.push({ table, reason: 'not_found', detail: `lookup table ${table} does not exist` });
          return null;
        }
        if (account.key.toBase58() !== table) {
          unresolved.push({ table, reason: 'resolver_error', detail: `the resolver answered table ${account.key.toBase58()} for ${table}` });
          return null;
        }
        checkTableActive(account);
        return account;
      } catch (error) {
        // A table extended in the very slot the RPC answered for is provable a slot later: look
        // again (as for an RPC that did not answer) instead of refusing the action for good.
        if (error instanceof LookupTableError && error.kind !== 'too_new') {
          unresolved.push({ table, reason: 'unprovable', detail: `${error.kind}: ${error.message}` });
          return null;
        }
        throw new LookupTableUnavailable(table, { cause: error });
      }
    }),
  );
  for (const writable of [true, false]) {
    lookups.forEach((lookup, t) => {
      const table = tables[t] ?? null;
      const tableKey = lookup.accountKey;
      for (const lookupIndex of writable ? lookup.writableIndexes : lookup.readonlyIndexes) {
        const address: PublicKey | undefined = table?.state.addresses[lookupIndex];
        if (table && !address) {
          unresolved.push({
            table: tableKey,
            reason: 'index_out_of_range',
            detail: `lookup table ${tableKey} has ${table.state.addresses.length} addresses, index ${lookupIndex} requested`,
          });
        }
        accounts.push({
          index: accounts.length,
          pubkey: address ? address.toBase58() : null,
          signer: false,
          writable,
          source: 'lookup',
          lookupTable: tableKey,
          lookupIndex,
        });
      }
    });
  }
  return unresolved;
}

function summarizeComputeBudget(
  instructions: readonly DecodedInstruction[],
  problems: string[],
): ComputeBudgetSummary {
  let unitLimit: number | null = null;
  let unitPrice: string | null = null;
  let heapFrameBytes: number | null = null;
  let loadedAccountsDataSizeLimit: number | null = null;
  let explicitFee: bigint | null = null;
  const seen = new Set<string>();
  for (const ix of instructions) {
    if (ix.parsed?.program !== 'computeBudget') continue;
    const budget = ix.parsed;
    // The runtime fails a transaction that repeats a compute budget instruction.
    if (seen.has(budget.type)) problems.push(`instruction ${ix.index}: compute budget ${budget.type} appears twice`);
    seen.add(budget.type);
    switch (budget.type) {
      case 'setComputeUnitLimit':
        unitLimit = budget.units;
        break;
      case 'setComputeUnitPrice':
        unitPrice = budget.microLamports;
        break;
      case 'requestHeapFrame':
        heapFrameBytes = budget.bytes;
        break;
      case 'setLoadedAccountsDataSizeLimit':
        loadedAccountsDataSizeLimit = budget.bytes;
        break;
      case 'requestUnitsDeprecated':
        unitLimit = budget.units;
        explicitFee = (explicitFee ?? 0n) + BigInt(budget.additionalFeeLamports);
        break;
    }
  }
  return {
    unitLimit,
    unitPriceMicroLamports: unitPrice,
    heapFrameBytes,
    loadedAccountsDataSizeLimit,
    explicitPriorityFeeLamports: explicitFee === null ? null : explicitFee.toString(),
  };
}
