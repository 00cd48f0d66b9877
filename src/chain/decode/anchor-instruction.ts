import { decodeAnchorArgs, type AnchorArgValue } from '../programs/anchor-codec.ts';
import { discriminatorOf } from '../programs/anchor-discriminator.ts';
import type { AnchorInstructionLayout } from '../programs/anchor-layout.ts';
import { InstructionDataError } from './instruction-data.ts';

/** An instruction of an Anchor product program read through its IDL layout: accounts by role, arguments by name. */
export interface AnchorProgramInstruction<Program extends string, Name extends string> {
  readonly program: Program;
  readonly type: Name;
  /** Role (the IDL's account name) → address, in the IDL's order. */
  readonly accounts: Readonly<Record<string, string>>;
  /** Accounts beyond the IDL's list (Anchor "remaining accounts"). */
  readonly extraAccounts: readonly string[];
  readonly args: Readonly<Record<string, AnchorArgValue>>;
}

/**
 * Decodes one instruction with the layout its discriminator selects; undefined when the
 * discriminator is none of the layouts (an instruction the trader never signs, or none the
 * program has: the instruction gate refuses both by name), InstructionDataError when a known one
 * has too few accounts, short data or data beyond its arguments.
 */
export function decodeAnchorInstruction<Program extends string, Name extends string>(
  program: Program,
  layouts: ReadonlyMap<string, AnchorInstructionLayout<Name>>,
  accounts: readonly string[],
  data: Uint8Array,
): AnchorProgramInstruction<Program, Name> | undefined {
  const disc = discriminatorOf(data);
  const layout = disc === null ? undefined : layouts.get(disc);
  if (!layout) return undefined;
  return { program, type: layout.name, ...accountsByRole(layout, accounts), args: decodeAnchorArgs(layout, data) };
}

/** An instruction's accounts named by the layout's roles, and those beyond its list; too few is InstructionDataError. */
export function accountsByRole(
  layout: { readonly name: string; readonly accounts: ReadonlyArray<{ readonly name: string }> },
  accounts: readonly string[],
): { accounts: Record<string, string>; extraAccounts: string[] } {
  if (accounts.length < layout.accounts.length) {
    throw new InstructionDataError(`${layout.name}: ${accounts.length} accounts, the layout names ${layout.accounts.length}`);
  }
  const byRole: Record<string, string> = {};
  layout.accounts.forEach((spec, i) => {
    byRole[spec.name] = accounts[i] as string;
  });
  return { accounts: byRole, extraAccounts: accounts.slice(layout.accounts.length) };
}
