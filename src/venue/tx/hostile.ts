import { createHash } from 'node:crypto';
import { PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { MINTS } from '../../api/mints.ts';
import { PROGRAMS } from '../../chain/programs.ts';

/**
 * Ways a hostile venue alters a transaction so it no longer does only what was requested;
 * stratd's inspection must refuse to sign each of them.
 */
export const HOSTILE_KINDS = ['sol_transfer', 'token_transfer', 'token_approve', 'fee_payer', 'unknown_program', 'durable_nonce', 'price_slippage'] as const;

/**
 * Ways a hostile venue alters an Ultra swap's route (aggregator-instructions.ts); the builds of
 * other operations stay honest under them: in-amount ×100, a minimum out of 1, the output to a
 * foreign account, a foreign platform fee account, a made-up aggregator instruction beside the
 * route carrying the taker's token accounts.
 */
export const SWAP_HOSTILE_KINDS = ['swap_in_amount', 'swap_min_out', 'swap_foreign_destination', 'swap_foreign_platform_fee', 'aggregator_unknown_instruction'] as const;
export type SwapHostileKind = (typeof SWAP_HOSTILE_KINDS)[number];
/**
 * A hostile venue's Ultra quote that gives the input away: its out amount, its threshold and the
 * route's quoted out amount are all a thousandth of the market's and agree with each other, so
 * the route keeps the quote's slippage and only prices read apart from the quote can tell.
 */
export const SWAP_QUOTE_HOSTILE_KINDS = ['swap_off_market_quote'] as const;
type SwapQuoteHostileKind = (typeof SWAP_QUOTE_HOSTILE_KINDS)[number];
/** How much less than the market the off-market quote offers. */
export const OFF_MARKET_QUOTE_DIVISOR = 1000n;
/** The generic kinds, which alter any operation's build. */
export type HostileKind = (typeof HOSTILE_KINDS)[number];
/** Any kind the venue's `hostile` fault takes. */
export type AnyHostileKind = HostileKind | SwapHostileKind | SwapQuoteHostileKind;

export function isSwapHostileKind(kind: AnyHostileKind | undefined): kind is SwapHostileKind {
  return (SWAP_HOSTILE_KINDS as readonly string[]).includes(kind ?? '');
}

/**
 * Ways a hostile venue alters the instructions of the order and fee-claim programs (Limit Order
 * v2, DCA, DBC) themselves, which no extra instruction of another program reveals:
 * - amount_x100: the amount escrowed or claimed is 100 times the request's (a create, a claim);
 * - foreign_destination: where tokens go (an order's escrow, a refund, a claim's receiving account)
 *   is a token account of someone else;
 * - foreign_owner: the maker / user / creator is someone else (our wallet still pays);
 * - unknown_instruction: an extra instruction of the same program, with a discriminator the program
 *   does not have, carrying the wallet and its token account.
 * A kind that does not apply to an operation (an amount on a cancel) leaves its build honest.
 */
export const ORDER_HOSTILE_KINDS = ['amount_x100', 'foreign_destination', 'foreign_owner', 'unknown_instruction'] as const;
export type OrderHostileKind = (typeof ORDER_HOSTILE_KINDS)[number];
export const HOSTILE_AMOUNT_FACTOR = 100n;

/** The discriminator of the made-up instruction of 'unknown_instruction': no program has it. */
const HOSTILE_UNKNOWN_DISCRIMINATOR = createHash('sha256').update('global:venue_drain').digest().subarray(0, 8);

/** 'unknown_instruction': a made-up instruction of `programId` carrying the wallet (signer) and its token account. */
export function hostileUnknownInstruction(programId: string, wallet: PublicKey, walletTokenAccount: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(programId),
    keys: [
      { pubkey: wallet, isSigner: true, isWritable: true },
      { pubkey: walletTokenAccount, isSigner: false, isWritable: true },
    ],
    data: Buffer.concat([HOSTILE_UNKNOWN_DISCRIMINATOR, Buffer.alloc(8, 0xff)]),
  });
}

/** Lamports the hostile SOL transfer takes (1 SOL). */
export const HOSTILE_LAMPORTS = 1_000_000_000n;
/** USDC units the hostile token transfer takes (1,000 USDC). */
export const HOSTILE_TOKEN_AMOUNT = 1_000_000_000n;
/** The hostile approval delegates everything (u64 max). */
export const HOSTILE_APPROVE_AMOUNT = 0xffff_ffff_ffff_ffffn;
/**
 * The worst price a hostile market request accepts ('price_slippage'): a sale at any price down to
 * nothing, a purchase at any price up to u64's maximum. Only perps market requests carry such a
 * price; the other builds of a venue with this fault stay honest.
 */
export function hostilePriceSlippage(direction: 'less' | 'more'): bigint {
  return direction === 'less' ? 0n : 0xffff_ffff_ffff_ffffn;
}

/** A program id no chain has: the hostile "unknown program". */
export const UNKNOWN_PROGRAM_ID = new PublicKey(createHash('sha256').update('stratd-venue:unknown-program').digest());

// SPL Token instruction discriminators.
const SPL_TRANSFER = 3;
const SPL_APPROVE = 4;

/** A deterministic account that belongs to nobody involved: where hostile transfers go. */
export function foreignAccountFor(requestId: string): PublicKey {
  return new PublicKey(createHash('sha256').update(`stratd-venue:foreign:${requestId}`).digest());
}

/**
 * The nonce account of the hostile durable-nonce variant. Anyone can create a nonce account whose
 * authority is our wallet; advancing it needs only the wallet's signature, which the transaction
 * already asks for.
 */
export function hostileNonceAccountFor(requestId: string): PublicKey {
  return new PublicKey(createHash('sha256').update(`stratd-venue:nonce:${requestId}`).digest());
}

/** The associated token account of `owner` for `mint` (SPL Token program). */
function associatedTokenAddress(owner: PublicKey, mint: PublicKey): PublicKey {
  const [address] = PublicKey.findProgramAddressSync(
    [owner.toBuffer(), new PublicKey(PROGRAMS.token).toBuffer(), mint.toBuffer()],
    new PublicKey(PROGRAMS.associatedToken),
  );
  return address;
}

function splAmountData(discriminator: number, amount: bigint): Buffer {
  const data = Buffer.alloc(9);
  data.writeUInt8(discriminator, 0);
  data.writeBigUInt64LE(amount, 1);
  return data;
}

/** SPL Token Transfer: accounts [source (w), destination (w), owner (s)], data 3 + u64 LE. */
function splTransferInstruction(source: PublicKey, destination: PublicKey, owner: PublicKey, amount: bigint): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(PROGRAMS.token),
    keys: [
      { pubkey: source, isSigner: false, isWritable: true },
      { pubkey: destination, isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: true, isWritable: false },
    ],
    data: splAmountData(SPL_TRANSFER, amount),
  });
}

/** SPL Token Approve: accounts [source (w), delegate, owner (s)], data 4 + u64 LE. */
function splApproveInstruction(source: PublicKey, delegate: PublicKey, owner: PublicKey, amount: bigint): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(PROGRAMS.token),
    keys: [
      { pubkey: source, isSigner: false, isWritable: true },
      { pubkey: delegate, isSigner: false, isWritable: false },
      { pubkey: owner, isSigner: true, isWritable: false },
    ],
    data: splAmountData(SPL_APPROVE, amount),
  });
}

/** Kinds whose instruction goes first: the runtime treats a transaction as durable only then. */
export function hostileGoesFirst(kind: AnyHostileKind): boolean {
  return kind === 'durable_nonce';
}

/**
 * The extra instruction a hostile kind adds (none for 'fee_payer', which changes the
 * message's fee payer instead, nor for 'price_slippage', which changes a perps request's argument).
 */
export function hostileInstruction(kind: AnyHostileKind, payer: PublicKey, foreign: PublicKey, nonceAccount: PublicKey = foreign): TransactionInstruction | undefined {
  const usdc = new PublicKey(MINTS.USDC);
  switch (kind) {
    case 'sol_transfer':
      return SystemProgram.transfer({ fromPubkey: payer, toPubkey: foreign, lamports: HOSTILE_LAMPORTS });
    case 'token_transfer':
      return splTransferInstruction(associatedTokenAddress(payer, usdc), associatedTokenAddress(foreign, usdc), payer, HOSTILE_TOKEN_AMOUNT);
    case 'token_approve':
      return splApproveInstruction(associatedTokenAddress(payer, usdc), foreign, payer, HOSTILE_APPROVE_AMOUNT);
    case 'unknown_program':
      return new TransactionInstruction({
        programId: UNKNOWN_PROGRAM_ID,
        keys: [{ pubkey: payer, isSigner: true, isWritable: true }],
        data: Buffer.from([0]),
      });
    case 'durable_nonce':
      // advanceNonceAccount as the first instruction: the signed transaction never expires.
      return SystemProgram.nonceAdvance({ noncePubkey: nonceAccount, authorizedPubkey: payer });
    case 'fee_payer':
    case 'price_slippage':
      return undefined;
    default:
      // The swap kinds change the route itself (aggregator-instructions.ts).
      return undefined;
  }
}
