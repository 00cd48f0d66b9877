import { decodePerpsArgs, type PerpsArgValue } from '../programs/perps/codec.ts';
import { perpsLayoutOf, type PerpsInstructionName } from '../programs/perps/instructions.ts';
import { accountsByRole } from './anchor-instruction.ts';

/** A Jupiter Perpetuals instruction read through its IDL layout: accounts by role, arguments by name. */
export interface PerpsInstruction {
  readonly program: 'perps';
  readonly type: PerpsInstructionName;
  /** Role (the IDL's account name) → address, in the IDL's order. */
  readonly accounts: Readonly<Record<string, string>>;
  /** Accounts beyond the IDL's list (Anchor "remaining accounts"). */
  readonly extraAccounts: readonly string[];
  readonly args: Readonly<Record<string, PerpsArgValue>>;
}

/**
 * Decodes a perps instruction; undefined when its discriminator is none of the instructions
 * stratd knows (the policy refuses those), an error when a known one has the wrong shape.
 */
export function decodePerpsInstruction(accounts: readonly string[], data: Uint8Array): PerpsInstruction | undefined {
  const layout = perpsLayoutOf(data);
  if (!layout) return undefined;
  return { program: 'perps', type: layout.name as PerpsInstructionName, ...accountsByRole(layout, accounts), args: decodePerpsArgs(layout, data) };
}
