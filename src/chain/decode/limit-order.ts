import { LIMIT_ORDER_LAYOUT_BY_DISCRIMINATOR, type LimitOrderLayoutName } from '../programs/limit-order/layouts.ts';
import { decodeAnchorInstruction, type AnchorProgramInstruction } from './anchor-instruction.ts';

/** A Limit Order v2 instruction (trigger orders) read through its IDL layout. */
export type LimitOrderInstruction = AnchorProgramInstruction<'limitOrder', LimitOrderLayoutName>;

/** Undefined for an instruction without a layout (keeper, admin, unknown); throws InstructionDataError on a bad shape. */
export function decodeLimitOrderInstruction(accounts: readonly string[], data: Uint8Array): LimitOrderInstruction | undefined {
  return decodeAnchorInstruction('limitOrder', LIMIT_ORDER_LAYOUT_BY_DISCRIMINATOR, accounts, data);
}
