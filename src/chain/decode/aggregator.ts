import { decodeAggregatorArgs, type AggregatorArgValue, type RouteStep } from '../programs/aggregator/codec.ts';
import type { AggregatorInstructionName } from '../programs/aggregator/instructions.ts';
import { aggregatorLayoutOf } from '../programs/aggregator/layouts.ts';
import { PROGRAMS } from '../programs.ts';
import { InstructionDataError } from './instruction-data.ts';

/** A Jupiter Aggregator v6 instruction read through its IDL layout: accounts by role, arguments by name. */
export interface AggregatorInstruction {
  readonly program: 'aggregator';
  readonly type: AggregatorInstructionName;
  /**
   * Role (the IDL's account name) → address, in the IDL's order. An optional account given as the
   * program id (Anchor's "none") is left out: absent and "none" read the same.
   */
  readonly accounts: Readonly<Record<string, string>>;
  /** Accounts beyond the IDL's list: the accounts of the AMMs a route swaps through. */
  readonly extraAccounts: readonly string[];
  readonly args: Readonly<Record<string, AggregatorArgValue>>;
  readonly routePlan: readonly RouteStep[];
}

/**
 * Decodes an aggregator instruction; undefined when its discriminator is none of the program's
 * (the instruction gate refuses those by name), an error when a known one has the wrong shape:
 * fewer accounts than its layout names, short or extra data, a route step that cannot be walked.
 */
export function decodeAggregatorInstruction(accounts: readonly string[], data: Uint8Array): AggregatorInstruction | undefined {
  const layout = aggregatorLayoutOf(data);
  if (!layout) return undefined;
  if (accounts.length < layout.accounts.length) {
    throw new InstructionDataError(`${layout.name}: ${accounts.length} accounts, the layout names ${layout.accounts.length}`);
  }
  const byRole: Record<string, string> = {};
  layout.accounts.forEach((spec, i) => {
    const address = accounts[i] as string;
    if (!(spec.optional && address === PROGRAMS.aggregator)) byRole[spec.name] = address;
  });
  const { args, routePlan } = decodeAggregatorArgs(layout, data);
  return { program: 'aggregator', type: layout.name, accounts: byRole, extraAccounts: accounts.slice(layout.accounts.length), args, routePlan };
}
