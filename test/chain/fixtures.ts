// Builders of real transactions for the chain tests: web3.js messages, SPL instructions encoded
// by hand (the project has no spl-token dependency), and a policy context per operation.
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import type { OperationId } from '../../src/api/registry.ts';
import { MINTS } from '../../src/api/mints.ts';
import type { ChainFacts, PolicyContext } from '../../src/chain/policy/index.ts';
import { associatedTokenAddress } from '../../src/chain/policy/index.ts';
import { perpsPositionAddress, perpsPositionRequestAddress } from '../../src/chain/programs/perps/addresses.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../src/chain/programs.ts';
import { AGGREGATOR_INSTRUCTIONS } from '../../src/chain/programs/aggregator/instructions.ts';
import { DBC_INSTRUCTIONS } from '../../src/chain/programs/dbc/instructions.ts';
import { DCA_INSTRUCTIONS } from '../../src/chain/programs/dca/instructions.ts';
import { LIMIT_ORDER_INSTRUCTIONS } from '../../src/chain/programs/limit-order/instructions.ts';
import { PERPS_INSTRUCTIONS } from '../../src/chain/programs/perps/instructions.ts';
import { createTpslInstruction, increaseInstruction } from '../../src/venue/tx/perps-instructions.ts';
import { recurringOpenInstructions } from '../../src/venue/tx/dca-instructions.ts';
import { studioClaimInstructions } from '../../src/venue/tx/dbc-instructions.ts';
import { triggerCreateInstructions } from '../../src/venue/tx/limit-order-instructions.ts';

export const TOKEN = new PublicKey(PROGRAMS.token);
export const TOKEN_2022 = new PublicKey(PROGRAMS.token2022);

/** One write operation per product, with the product's program and the discriminator of the instruction it performs. */
export const PRODUCT_OPERATIONS = [
  { product: 'perps', operationId: 'perps.increase', program: PROGRAMS.perps, discriminator: PERPS_INSTRUCTIONS.createIncreasePositionMarketRequest.discriminator },
  { product: 'trigger', operationId: 'trigger.createOrder', program: PROGRAMS.trigger, discriminator: LIMIT_ORDER_INSTRUCTIONS.initialize_order },
  { product: 'recurring', operationId: 'recurring.createOrder', program: PROGRAMS.recurring, discriminator: DCA_INSTRUCTIONS.open_dca_v2 },
  { product: 'ultra', operationId: 'ultra.order', program: PROGRAMS.aggregator, discriminator: AGGREGATOR_INSTRUCTIONS.route },
  { product: 'studio', operationId: 'studio.claimFee', program: PROGRAMS.dbc, discriminator: DBC_INSTRUCTIONS.claim_creator_trading_fee },
] as const satisfies ReadonlyArray<{ product: string; operationId: OperationId; program: string; discriminator: string }>;

export function randomKey(): PublicKey {
  return Keypair.generate().publicKey;
}

export function ata(owner: PublicKey, mint: string | PublicKey, tokenProgram: PublicKey = TOKEN): PublicKey {
  return associatedTokenAddress(owner, new PublicKey(mint), tokenProgram);
}

function amountData(code: number, amount: bigint, decimals?: number): Buffer {
  const data = Buffer.alloc(decimals === undefined ? 9 : 10);
  data.writeUInt8(code, 0);
  data.writeBigUInt64LE(amount, 1);
  if (decimals !== undefined) data.writeUInt8(decimals, 9);
  return data;
}

const w = (pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: true });
const r = (pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: false });
const s = (pubkey: PublicKey) => ({ pubkey, isSigner: true, isWritable: false });

export const spl = {
  transfer: (source: PublicKey, destination: PublicKey, owner: PublicKey, amount: bigint, program = TOKEN) =>
    new TransactionInstruction({ programId: program, keys: [w(source), w(destination), s(owner)], data: amountData(3, amount) }),
  transferChecked: (source: PublicKey, mint: PublicKey, destination: PublicKey, owner: PublicKey, amount: bigint, decimals: number, program = TOKEN) =>
    new TransactionInstruction({ programId: program, keys: [w(source), r(mint), w(destination), s(owner)], data: amountData(12, amount, decimals) }),
  approve: (source: PublicKey, delegate: PublicKey, owner: PublicKey, amount: bigint) =>
    new TransactionInstruction({ programId: TOKEN, keys: [w(source), r(delegate), s(owner)], data: amountData(4, amount) }),
  approveChecked: (source: PublicKey, mint: PublicKey, delegate: PublicKey, owner: PublicKey, amount: bigint, decimals: number) =>
    new TransactionInstruction({ programId: TOKEN, keys: [w(source), r(mint), r(delegate), s(owner)], data: amountData(13, amount, decimals) }),
  /** authorityType 2 = AccountOwner, 3 = CloseAccount. */
  setAuthority: (account: PublicKey, current: PublicKey, authorityType: number, newAuthority: PublicKey | null) =>
    new TransactionInstruction({
      programId: TOKEN,
      keys: [w(account), s(current)],
      data: Buffer.concat([Buffer.from([6, authorityType, newAuthority ? 1 : 0]), newAuthority ? newAuthority.toBuffer() : Buffer.alloc(0)]),
    }),
  closeAccount: (account: PublicKey, destination: PublicKey, owner: PublicKey) =>
    new TransactionInstruction({ programId: TOKEN, keys: [w(account), w(destination), s(owner)], data: Buffer.from([9]) }),
  burn: (account: PublicKey, mint: PublicKey, owner: PublicKey, amount: bigint) =>
    new TransactionInstruction({ programId: TOKEN, keys: [w(account), w(mint), s(owner)], data: amountData(8, amount) }),
  syncNative: (account: PublicKey) => new TransactionInstruction({ programId: TOKEN, keys: [w(account)], data: Buffer.from([17]) }),
  /** Associated token account create (idempotent by default) paid by `payer`. */
  createAta: (payer: PublicKey, owner: PublicKey, mint: PublicKey, idempotent = true, program = TOKEN) =>
    new TransactionInstruction({
      programId: new PublicKey(PROGRAMS.associatedToken),
      keys: [
        { pubkey: payer, isSigner: true, isWritable: true },
        w(associatedTokenAddress(owner, mint, program)),
        r(owner),
        r(mint),
        r(new PublicKey(PROGRAMS.system)),
        r(program),
      ],
      data: Buffer.from(idempotent ? [1] : [0]),
    }),
  memo: (text: string) => new TransactionInstruction({ programId: new PublicKey(PROGRAMS.memo), keys: [], data: Buffer.from(text, 'utf8') }),
};

/**
 * An instruction of a product's program, signed by the wallet (and a keeper slot for instant).
 * For perps, a real benign instruction of the wallet's SOL long: an increase request (legacy) or,
 * with a keeper, an instant TP/SL (allowed for perps.increase and perps.createTpsl). For the
 * trigger, recurring and Studio programs, the real instruction of the product's operation of
 * PRODUCT_OPERATIONS (initialize_order, open_dca_v2, claim_creator_trading_fee) as the venue builds
 * it, escrowing nothing (so intents of the value-rule tests need not name a mint); for the
 * aggregator, data that starts with a route's discriminator; for any other program, arbitrary data.
 */
export function productInstruction(program: string, wallet: PublicKey, extraSigners: PublicKey[] = [], extraAccounts: PublicKey[] = []): TransactionInstruction {
  if (program === PROGRAMS.perps) {
    const ix = benignPerpsInstruction(wallet, extraSigners[0]);
    ix.keys.push(...extraSigners.slice(1).map(s), ...extraAccounts.map(w));
    return ix;
  }
  const order = benignOrderInstruction(program, wallet.toBase58());
  if (order) {
    order.keys.push(...extraSigners.map(s), ...extraAccounts.map(w));
    return order;
  }
  return new TransactionInstruction({
    programId: new PublicKey(program),
    keys: [{ pubkey: wallet, isSigner: true, isWritable: true }, ...extraSigners.map(s), ...extraAccounts.map(w)],
    data: Buffer.concat([Buffer.from(PRODUCT_OPERATIONS.find((p) => p.program === program)?.discriminator ?? 'a1b2c3d4', 'hex'), Buffer.from([0, 1, 2, 3])]),
  });
}

/** A benign instruction of the trigger, recurring or Studio program that moves nothing of the wallet's (making and in amounts 0). */
function benignOrderInstruction(program: string, wallet: string): TransactionInstruction | undefined {
  const orderKey = 'BPFLoaderUpgradeab1e11111111111111111111111';
  const mints = { inputMint: MINTS.USDC, outputMint: MINTS.SOL };
  switch (program) {
    case PROGRAMS.trigger:
      return triggerCreateInstructions({ maker: wallet, orderKey, ...mints, makingAmount: 0n, takingAmount: 1n, expiredAtSec: null, slippageBps: 0 })[0];
    case PROGRAMS.recurring:
      return recurringOpenInstructions({ user: wallet, orderKey, ...mints, inAmount: 0n, inAmountPerCycle: 0n, intervalSec: 60, startAtSec: null, minOut: null, maxOut: null })[0];
    case PROGRAMS.dbc:
      return studioClaimInstructions({ creator: wallet, poolAddress: orderKey, quoteMint: MINTS.USDC, maxQuoteAmount: 0n })[0];
    default:
      return undefined;
  }
}

const SOL_CUSTODY = PERPS_ACCOUNTS.custody.SOL;

export function benignPerpsInstruction(wallet: PublicKey, keeper?: PublicKey): TransactionInstruction {
  const owner = wallet.toBase58();
  const position = perpsPositionAddress(owner, SOL_CUSTODY, SOL_CUSTODY, 'long');
  const keys = { owner, position, custody: SOL_CUSTODY, collateralCustody: SOL_CUSTODY };
  if (keeper) {
    const request = { counter: 7n, pubkey: perpsPositionRequestAddress(position, 7n, 'decrease') };
    return createTpslInstruction(keys, { request, desiredMint: MINTS.SOL, sizeUsdDelta: 0n, triggerPrice: 250_000_000n, triggerAboveThreshold: true, entirePosition: true }, { keeper: keeper.toBase58(), requestTimeSec: 1_800_000_000n });
  }
  // Pays nothing into the program, so intents of the value-rule tests need not name SOL.
  const request = { counter: 3n, pubkey: perpsPositionRequestAddress(position, 3n, 'increase') };
  return increaseInstruction(keys, { inputMint: MINTS.SOL, side: 'long', sizeUsdDelta: 1_000_000_000n, collateralTokenDelta: 0n, priceSlippage: 160_000_000n }, { request });
}

export function computeBudget(units = 300_000, microLamports = 50_000n): TransactionInstruction[] {
  return [ComputeBudgetProgram.setComputeUnitLimit({ units }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports })];
}

export const BLOCKHASH = randomKey().toBase58();

export interface BuildOptions {
  readonly payer: PublicKey;
  readonly instructions: TransactionInstruction[];
  readonly version: 'legacy' | 0;
  readonly blockhash?: string;
  readonly lookupTables?: AddressLookupTableAccount[];
}

export function buildTx(opts: BuildOptions): VersionedTransaction {
  const message = new TransactionMessage({ payerKey: opts.payer, recentBlockhash: opts.blockhash ?? BLOCKHASH, instructions: opts.instructions });
  return new VersionedTransaction(opts.version === 'legacy' ? message.compileToLegacyMessage() : message.compileToV0Message(opts.lookupTables ?? []));
}

export function toBase64(tx: VersionedTransaction): string {
  return Buffer.from(tx.serialize()).toString('base64');
}

export function lookupTable(key: PublicKey, addresses: PublicKey[]): AddressLookupTableAccount {
  return new AddressLookupTableAccount({
    key,
    state: { deactivationSlot: BigInt('0xffffffffffffffff'), lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses },
  });
}

/** The account data of a lookup table as the chain stores it (56-byte header, then the keys). */
export function lookupTableAccountData(addresses: PublicKey[], slots: { deactivationSlot?: bigint; lastExtendedSlot?: bigint } = {}): Buffer {
  const header = Buffer.alloc(56);
  header.writeUInt32LE(1, 0); // type index: lookup table
  header.writeBigUInt64LE(slots.deactivationSlot ?? BigInt('0xffffffffffffffff'), 4); // u64 max: active
  header.writeBigUInt64LE(slots.lastExtendedSlot ?? 1n, 12); // last extended slot
  header.writeUInt8(0, 20); // last extended start index
  header.writeUInt8(0, 21); // authority: none
  return Buffer.concat([header, ...addresses.map((a) => a.toBuffer())]);
}

/** What the chain says of the service's mints: every one is owned by the SPL Token program. */
export const KNOWN_MINT_FACTS: ChainFacts = { mintPrograms: new Map(Object.values(MINTS).map((mint) => [mint, PROGRAMS.token])), tokenAccounts: new Map() };

export function contextFor(wallet: PublicKey, operationId: OperationId, overrides: Partial<PolicyContext> = {}): PolicyContext {
  return { wallet, operationId, priorityFeeCapLamports: 1_000_000n, chain: KNOWN_MINT_FACTS, ...overrides };
}
