import { DBC_LAYOUT_BY_DISCRIMINATOR, type DbcLayoutName } from '../programs/dbc/layouts.ts';
import { decodeAnchorInstruction, type AnchorProgramInstruction } from './anchor-instruction.ts';

/** A Dynamic Bonding Curve fee-claim instruction (Studio) read through its IDL layout. */
export type DbcInstruction = AnchorProgramInstruction<'dbc', DbcLayoutName>;

/** Undefined for an instruction without a layout (pools, swaps, migrations, unknown); throws InstructionDataError on a bad shape. */
export function decodeDbcInstruction(accounts: readonly string[], data: Uint8Array): DbcInstruction | undefined {
  return decodeAnchorInstruction('dbc', DBC_LAYOUT_BY_DISCRIMINATOR, accounts, data);
}
