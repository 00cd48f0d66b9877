import { PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { anchorEventAuthority } from '../../chain/programs/anchor-event-authority.ts';
import { DCA_LAYOUTS } from '../../chain/programs/dca/layouts.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import { anchorInstruction, u64OfKey, venueTokenAccount } from './anchor-instruction.ts';
import { foreignAccountFor, HOSTILE_AMOUNT_FACTOR, hostileUnknownInstruction, type OrderHostileKind } from './hostile.ts';

/**
 * DCA instructions of recurring orders, as the live service builds them: open_dca_v2 (the user
 * signs, the wallet pays the rent), close_dca; the order is the address the venue names it by, its
 * escrows the order's token accounts of the two mints, the user's the wallet's own. `hostile`
 * alters them as tx/hostile.ts describes.
 */

function common(): Record<string, string> {
  return {
    systemProgram: PROGRAMS.system,
    tokenProgram: PROGRAMS.token,
    associatedTokenProgram: PROGRAMS.associatedToken,
    eventAuthority: anchorEventAuthority(PROGRAMS.recurring),
    program: PROGRAMS.recurring,
  };
}

interface RecurringOpenOrder {
  readonly user: string;
  readonly orderKey: string;
  readonly inputMint: string;
  readonly outputMint: string;
  readonly inAmount: bigint;
  readonly inAmountPerCycle: bigint;
  readonly intervalSec: number;
  readonly startAtSec: number | null;
  /** Stand-ins of the program's per-cycle output bounds, when the request bounds the price. */
  readonly minOut: bigint | null;
  readonly maxOut: bigint | null;
}

export function recurringOpenInstructions(o: RecurringOpenOrder, hostile?: OrderHostileKind): TransactionInstruction[] {
  const foreign = foreignAccountFor(o.orderKey).toBase58();
  const factor = hostile === 'amount_x100' ? HOSTILE_AMOUNT_FACTOR : 1n;
  const open = anchorInstruction(
    PROGRAMS.recurring,
    DCA_LAYOUTS.open_dca_v2,
    {
      ...common(),
      dca: o.orderKey,
      user: hostile === 'foreign_owner' ? foreign : o.user,
      payer: o.user,
      inputMint: o.inputMint,
      outputMint: o.outputMint,
      userAta: venueTokenAccount(o.user, o.inputMint),
      inAta: venueTokenAccount(hostile === 'foreign_destination' ? foreign : o.orderKey, o.inputMint),
      outAta: venueTokenAccount(o.orderKey, o.outputMint),
    },
    {
      applicationIdx: u64OfKey(o.orderKey),
      inAmount: o.inAmount * factor,
      inAmountPerCycle: o.inAmountPerCycle * factor,
      cycleFrequency: BigInt(o.intervalSec),
      minPrice: o.minOut,
      maxPrice: o.maxOut,
      startAt: o.startAtSec === null ? null : BigInt(o.startAtSec),
    },
  );
  return withUnknown(open, hostile, o.user, o.inputMint);
}

interface RecurringCloseOrder {
  readonly user: string;
  readonly orderKey: string;
  readonly inputMint: string;
  readonly outputMint: string;
}

/** close_dca: what is left of the input and what was bought go back to the user's own token accounts. */
export function recurringCloseInstructions(o: RecurringCloseOrder, hostile?: OrderHostileKind): TransactionInstruction[] {
  const foreign = foreignAccountFor(o.orderKey).toBase58();
  const refundTo = hostile === 'foreign_destination' ? foreign : o.user;
  const close = anchorInstruction(
    PROGRAMS.recurring,
    DCA_LAYOUTS.close_dca,
    {
      ...common(),
      user: hostile === 'foreign_owner' ? foreign : o.user,
      dca: o.orderKey,
      inputMint: o.inputMint,
      outputMint: o.outputMint,
      inAta: venueTokenAccount(o.orderKey, o.inputMint),
      outAta: venueTokenAccount(o.orderKey, o.outputMint),
      userInAta: venueTokenAccount(refundTo, o.inputMint),
      userOutAta: venueTokenAccount(refundTo, o.outputMint),
    },
    {},
  );
  return withUnknown(close, hostile, o.user, o.inputMint);
}

/** deposit (a deprecated price-based order's top-up): the policy refuses it; built so it is refused for what it is. */
export function recurringDepositInstructions(o: RecurringCloseOrder, amount: bigint): TransactionInstruction[] {
  return [
    anchorInstruction(
      PROGRAMS.recurring,
      DCA_LAYOUTS.deposit,
      {
        user: o.user,
        dca: o.orderKey,
        inAta: venueTokenAccount(o.orderKey, o.inputMint),
        userInAta: venueTokenAccount(o.user, o.inputMint),
        tokenProgram: PROGRAMS.token,
        eventAuthority: anchorEventAuthority(PROGRAMS.recurring),
        program: PROGRAMS.recurring,
      },
      { depositIn: amount },
    ),
  ];
}

function withUnknown(ix: TransactionInstruction, hostile: OrderHostileKind | undefined, wallet: string, mint: string): TransactionInstruction[] {
  if (hostile !== 'unknown_instruction') return [ix];
  return [ix, hostileUnknownInstruction(PROGRAMS.recurring, new PublicKey(wallet), new PublicKey(venueTokenAccount(wallet, mint)))];
}
