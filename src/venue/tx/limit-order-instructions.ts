import { PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { anchorEventAuthority, constantProgramAddress } from '../../chain/programs/anchor-event-authority.ts';
import { LIMIT_ORDER_LAYOUTS } from '../../chain/programs/limit-order/layouts.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import type { TriggerAction } from '../market/trigger-orders.ts';
import { anchorInstruction, u64OfKey, venueTokenAccount } from './anchor-instruction.ts';
import { foreignAccountFor, HOSTILE_AMOUNT_FACTOR, hostileUnknownInstruction, type OrderHostileKind } from './hostile.ts';

/**
 * Limit Order v2 instructions of trigger orders, as the live service builds them: the order is the
 * address the venue names it by, its escrow (input_mint_reserve) the order's token account of the
 * input mint, the input taken from the maker's own token account; no integrator fee (referral
 * "none", the program id). `hostile` alters them as tx/hostile.ts describes.
 */

/** What the market model planned for the order (its create action). */
type TriggerCreateOrder = Omit<Extract<TriggerAction, { kind: 'trigger.create' }>, 'kind'>;

function common(): Record<string, string> {
  return { event_authority: anchorEventAuthority(PROGRAMS.trigger), program: PROGRAMS.trigger };
}

export function triggerCreateInstructions(o: TriggerCreateOrder, hostile?: OrderHostileKind): TransactionInstruction[] {
  const foreign = foreignAccountFor(o.orderKey).toBase58();
  const maker = hostile === 'foreign_owner' ? foreign : o.maker;
  const accounts = {
    ...common(),
    payer: o.maker,
    maker,
    order: o.orderKey,
    input_mint_reserve: venueTokenAccount(hostile === 'foreign_destination' ? foreign : o.orderKey, o.inputMint),
    maker_input_mint_account: venueTokenAccount(o.maker, o.inputMint),
    fee: constantProgramAddress(PROGRAMS.trigger, 'fee'),
    referral: PROGRAMS.trigger,
    input_mint: o.inputMint,
    output_mint: o.outputMint,
    input_token_program: PROGRAMS.token,
    output_token_program: PROGRAMS.token,
    system_program: PROGRAMS.system,
    associated_token_program: PROGRAMS.associatedToken,
  };
  const create = anchorInstruction(PROGRAMS.trigger, LIMIT_ORDER_LAYOUTS.initialize_order, accounts, {
    unique_id: u64OfKey(o.orderKey),
    making_amount: hostile === 'amount_x100' ? o.makingAmount * HOSTILE_AMOUNT_FACTOR : o.makingAmount,
    taking_amount: o.takingAmount,
    expired_at: o.expiredAtSec === null ? null : BigInt(o.expiredAtSec),
    fee_bps: null,
    slippage_bps: o.slippageBps === 0 ? null : BigInt(o.slippageBps),
  });
  return withUnknown([create], hostile, o.maker, o.inputMint);
}

interface TriggerCancelOrder {
  readonly orderKey: string;
  readonly inputMint: string;
}

/** One cancel_order per order; the refund goes to the maker's token account of the input mint. */
export function triggerCancelInstructions(maker: string, orders: readonly TriggerCancelOrder[], hostile?: OrderHostileKind): TransactionInstruction[] {
  const cancels = orders.map((o) => {
    const foreign = foreignAccountFor(o.orderKey).toBase58();
    return anchorInstruction(
      PROGRAMS.trigger,
      LIMIT_ORDER_LAYOUTS.cancel_order,
      {
        ...common(),
        signer: maker,
        maker: hostile === 'foreign_owner' ? foreign : maker,
        order: o.orderKey,
        input_mint_reserve: venueTokenAccount(o.orderKey, o.inputMint),
        maker_input_mint_account: venueTokenAccount(hostile === 'foreign_destination' ? foreign : maker, o.inputMint),
        input_mint: o.inputMint,
        input_token_program: PROGRAMS.token,
      },
      {},
    );
  });
  return withUnknown(cancels, hostile, maker, orders[0]?.inputMint);
}

function withUnknown(instructions: TransactionInstruction[], hostile: OrderHostileKind | undefined, wallet: string, mint: string | undefined): TransactionInstruction[] {
  if (hostile !== 'unknown_instruction' || mint === undefined) return instructions;
  return [...instructions, hostileUnknownInstruction(PROGRAMS.trigger, new PublicKey(wallet), new PublicKey(venueTokenAccount(wallet, mint)))];
}
