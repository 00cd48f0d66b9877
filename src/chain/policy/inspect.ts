import type { VersionedTransaction } from '@solana/web3.js';
import { decodeTransaction, readWireTransaction, TransactionDecodeError, type DecodedTransaction, type LookupTableResolver, type WireTransaction } from '../decode.ts';
import { checkBlockhash } from './check-blockhash.ts';
import { checkDbcInstructions } from './check-dbc-instructions.ts';
import { checkDcaInstructions } from './check-dca-instructions.ts';
import { checkLimitOrderInstructions } from './check-limit-order-instructions.ts';
import { checkIntent } from './check-intent.ts';
import { checkNonce } from './check-nonce.ts';
import { checkLookupTables } from './check-lookup-tables.ts';
import { checkOperationInstructions } from './check-operation-instructions.ts';
import { checkPriorityFee } from './check-priority-fee.ts';
import { checkProductInstructions } from './check-product-instructions.ts';
import { checkPrograms } from './check-programs.ts';
import { checkSigners } from './check-signers.ts';
import { checkStructure } from './check-structure.ts';
import { checkSwapInstructions } from './check-swap-instructions.ts';
import { checkValueFlows } from './check-value-flows.ts';
import type { PolicyContext } from './context.ts';
import type { Verdict, Violation } from './verdict.ts';
import { WalletAccounts } from './wallet-accounts.ts';

/**
 * Applies every rule of the policy to a decoded transaction. Pure and synchronous: the executor
 * calls it once per action, right before signing, with the context of that action.
 */
export function inspectTransaction(decoded: DecodedTransaction, ctx: PolicyContext): Verdict {
  const walletAccounts = new WalletAccounts(decoded, ctx);
  const flows = checkValueFlows(decoded, walletAccounts, ctx.maxAccountSpaceBytes);
  const product = checkProductInstructions(decoded, ctx);
  const swap = checkSwapInstructions(decoded, ctx, walletAccounts);
  // The order and fee-claim programs, each read through its IDL layout.
  const orders = [checkLimitOrderInstructions(decoded, ctx), checkDcaInstructions(decoded, ctx), checkDbcInstructions(decoded, ctx)];
  const violations: Violation[] = [
    ...checkStructure(decoded, ctx),
    ...checkBlockhash(decoded, ctx),
    ...checkNonce(decoded),
    ...checkSigners(decoded, ctx),
    ...checkPrograms(decoded, ctx),
    ...flows.violations,
    ...checkPriorityFee(decoded, ctx),
    // What the perps program, a route or the order programs take by argument counts with every other outflow of its mint.
    ...checkIntent([...flows.outflows, ...product.payments, ...swap.payments, ...orders.flatMap((o) => o.payments)], ctx),
    // What the instructions do, whatever the operation is called: the right one, nothing else of its program.
    ...checkOperationInstructions(decoded, ctx),
    ...product.violations,
    ...swap.violations,
    ...orders.flatMap((o) => o.violations),
    ...checkLookupTables(decoded, walletAccounts),
  ];
  const freshAtSlot = ctx.recentBlockhash?.valid ? { freshAtSlot: ctx.recentBlockhash.slot } : {};
  return { ok: violations.length === 0, violations, messageSha256: decoded.messageSha256, ...freshAtSlot };
}

interface Inspection {
  /** The parsed transaction (what gets signed), null when the bytes are unreadable. */
  readonly transaction: VersionedTransaction | null;
  readonly decoded: DecodedTransaction | null;
  readonly verdict: Verdict;
}

/**
 * Reads, decodes (resolving lookup tables) and inspects a transaction as the service sent it.
 * Unreadable bytes are a `malformed` verdict, never an exception.
 */
export async function inspectSerialized(
  input: string | Uint8Array,
  ctx: PolicyContext,
  options: { readonly resolveLookupTable?: LookupTableResolver } = {},
): Promise<Inspection> {
  let wire: WireTransaction;
  try {
    wire = readWireTransaction(input);
  } catch (error) {
    if (!(error instanceof TransactionDecodeError)) throw error;
    return { transaction: null, decoded: null, verdict: { ok: false, violations: [{ rule: 'malformed', detail: error.message }], messageSha256: '' } };
  }
  const decoded = await decodeTransaction(wire, options);
  return { transaction: wire.toVersionedTransaction(), decoded, verdict: inspectTransaction(decoded, ctx) };
}
