import { DCA_LAYOUT_BY_DISCRIMINATOR, type DcaLayoutName } from '../programs/dca/layouts.ts';
import { decodeAnchorInstruction, type AnchorProgramInstruction } from './anchor-instruction.ts';

/** A DCA instruction (recurring orders) read through its IDL layout. */
export type DcaInstruction = AnchorProgramInstruction<'dca', DcaLayoutName>;

/** Undefined for an instruction without a layout (keeper fills, admin, unknown); throws InstructionDataError on a bad shape. */
export function decodeDcaInstruction(accounts: readonly string[], data: Uint8Array): DcaInstruction | undefined {
  return decodeAnchorInstruction('dca', DCA_LAYOUT_BY_DISCRIMINATOR, accounts, data);
}
