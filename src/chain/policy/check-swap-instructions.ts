import { MINTS } from '../../api/mints.ts';
import type { AggregatorInstruction, DecodedInstruction, DecodedTransaction } from '../decode.ts';
import { AGGREGATOR_EVENT_AUTHORITY } from '../programs/aggregator/layouts.ts';
import { PROGRAMS } from '../programs.ts';
import type { Outflow } from './check-value-flows.ts';
import type { PolicyContext, SwapIntentBounds } from './context.ts';
import { aggregatorInstructionsOf } from './operation-instructions.ts';
import type { ProductReport } from './check-product-instructions.ts';
import type { Violation } from './verdict.ts';
import { associatedTokenAccountOf, type WalletAccounts } from './wallet-accounts.ts';

/** Routes that sell an exact input: in_amount and quoted_out_amount (less slippage_bps: the least out). */
const EXACT_IN: ReadonlySet<string> = new Set(['route', 'shared_accounts_route', 'route_v2', 'shared_accounts_route_v2']);
/** Routes that buy an exact output: out_amount and quoted_in_amount (plus slippage_bps: the most in). */
const EXACT_OUT: ReadonlySet<string> = new Set(['exact_out_route', 'shared_accounts_exact_out_route', 'exact_out_route_v2', 'shared_accounts_exact_out_route_v2']);
/** Routes whose input is whatever a token ledger recorded: no argument says how much. */
const TOKEN_LEDGER: ReadonlySet<string> = new Set(['route_with_token_ledger', 'shared_accounts_route_with_token_ledger']);

const TOKEN_PROGRAMS: readonly string[] = [PROGRAMS.token, PROGRAMS.token2022];
/** Roles whose address the program and its deployment fix (only checked where the layout has them). */
const FIXED_ROLES: Readonly<Record<string, readonly string[]>> = {
  token_program: TOKEN_PROGRAMS,
  source_token_program: TOKEN_PROGRAMS,
  destination_token_program: TOKEN_PROGRAMS,
  token2022_program: [PROGRAMS.token2022],
  event_authority: [AGGREGATOR_EVENT_AUTHORITY],
  program: [PROGRAMS.aggregator],
};
const SOURCE_ROLES = ['user_source_token_account', 'source_token_account'] as const;
const DESTINATION_ROLES = ['user_destination_token_account', 'destination_token_account'] as const;

const BPS = 10_000n;

/**
 * Rules product_account and intent_exceeded on the aggregator routes of a swap (operation
 * ultra.order; which instructions it may carry is the instruction gate's), decoded from their IDL
 * layouts:
 * - product_account: the user transfer authority is the wallet; the source account is the
 *   wallet's associated token account of the input mint, every destination the wallet's of the
 *   output mint (or the wallet); the mints are the intent's; token programs, event authority and
 *   program are the real ones; no platform fee account but the configured one; among the AMM
 *   accounts after the layout, no token account of the wallet but the route's own source and
 *   destination.
 * - intent_exceeded: one route, taking at most the intent's amount and settling for no less than
 *   the larger of the quote's out amount less the allowed slippage and the intent's minOutAmount;
 *   no fee unless it names the configured platform fee account; a token-ledger route (its input is
 *   not an argument) or a swap with neither a known quote nor an intent floor is refused.
 * The input a route takes moves by CPI, invisible to the value-flow rule: it is returned as a
 * payment, counted with the transaction's other outflows of that mint.
 */
export function checkSwapInstructions(decoded: DecodedTransaction, ctx: PolicyContext, accounts: WalletAccounts): ProductReport {
  const allowed = aggregatorInstructionsOf(ctx.operationId);
  const violations: Violation[] = [];
  const payments: Outflow[] = [];
  let routes = 0;
  for (const ix of decoded.instructions) {
    if (ix.programId !== PROGRAMS.aggregator || ix.accounts.some((a) => a.pubkey === null)) continue;
    const parsed = ix.parsed?.program === 'aggregator' ? ix.parsed : undefined;
    if (!parsed || !allowed.has(parsed.type) || !isRoute(parsed.type)) continue;
    routes++;
    violations.push(...checkRoute(ix, parsed, ctx, accounts, payments));
  }
  if (ctx.intent?.swap !== undefined && routes > 1) violations.push({ rule: 'intent_exceeded', detail: `${routes} aggregator routes in one swap; the intent asks for one` });
  return { violations, payments };
}

function isRoute(type: string): boolean {
  return EXACT_IN.has(type) || EXACT_OUT.has(type) || TOKEN_LEDGER.has(type);
}

/** The wallet's associated token accounts of `mint` it may hold under either token program (or only under the one the chain names). */
function walletAtasOf(wallet: string, mint: string, ctx: PolicyContext): string[] {
  const known = ctx.chain?.mintPrograms.get(mint);
  const programs = known !== undefined ? [known] : TOKEN_PROGRAMS;
  const out: string[] = [];
  for (const program of programs) {
    try {
      out.push(associatedTokenAccountOf(wallet, mint, program));
    } catch {
      // A mint text that is no public key has no associated account: nothing matches it.
    }
  }
  return out;
}

function sourceMintOf(source: string | undefined, wallet: string, ctx: PolicyContext, accounts: WalletAccounts): string | undefined {
  if (source === undefined) return undefined;
  return accounts.mintOf(source) ?? Object.values(MINTS).find((mint) => walletAtasOf(wallet, mint, ctx).includes(source));
}

function checkRoute(ix: DecodedInstruction, p: AggregatorInstruction, ctx: PolicyContext, accounts: WalletAccounts, payments: Outflow[]): Violation[] {
  const out: Violation[] = [];
  const wallet = ctx.wallet.toBase58();
  const a = p.accounts;
  const where = `instruction ${ix.index} (${p.type})`;
  const account = (detail: string) => out.push({ rule: 'product_account', detail: `${where}: ${detail}` });
  const bounds = ctx.intent?.swap;

  if (a.user_transfer_authority !== wallet) account(`user_transfer_authority is ${a.user_transfer_authority}, not the wallet`);
  for (const [role, expected] of Object.entries(FIXED_ROLES)) {
    const address = a[role];
    if (address !== undefined && !expected.includes(address)) account(`${role} is ${address}, expected ${expected.join(' or ')}`);
  }

  // The mints: the intent's when there is one (the route's mint roles must agree), else the route's own.
  // A v1 route names no source mint: without an intent, the mint is the one whose wallet account it is.
  const inputMint = bounds?.inputMint ?? a.source_mint ?? sourceMintOf(a.user_source_token_account, wallet, ctx, accounts);
  const outputMint = bounds?.outputMint ?? a.destination_mint;
  if (bounds && a.source_mint !== undefined && a.source_mint !== bounds.inputMint) account(`source_mint is ${a.source_mint}; the intent sells ${bounds.inputMint}`);
  if (bounds && a.destination_mint !== undefined && a.destination_mint !== bounds.outputMint) account(`destination_mint is ${a.destination_mint}; the intent buys ${bounds.outputMint}`);

  const own = new Set<string>([wallet]);
  for (const role of SOURCE_ROLES) {
    const address = a[role];
    if (address === undefined) continue;
    const atas = inputMint === undefined ? [] : walletAtasOf(wallet, inputMint, ctx);
    if (atas.includes(address)) own.add(address);
    else account(`${role} ${address} is not the wallet's associated token account of ${inputMint === undefined ? 'the input mint (the route names none)' : `mint ${inputMint}`}`);
  }
  for (const role of DESTINATION_ROLES) {
    const address = a[role];
    if (address === undefined) continue;
    const atas = outputMint === undefined ? [] : walletAtasOf(wallet, outputMint, ctx);
    if (address === wallet || atas.includes(address)) own.add(address);
    else account(`${role} ${address} is neither the wallet nor its associated token account of ${outputMint === undefined ? 'the output mint' : `mint ${outputMint}`}: the output would go to someone else`);
  }

  const fee = a.platform_fee_account;
  if (fee !== undefined && fee !== bounds?.platformFeeAccount) {
    account(`platform_fee_account ${fee} is not the configured one (${bounds?.platformFeeAccount ?? 'none configured'}): the fee would go to someone else`);
  } else if (fee === undefined) {
    out.push(...unnamedFees(p, where, bounds?.maxPlatformFeeBps ?? 0n));
  }

  // The AMMs get the accounts after the layout, and the wallet's signature with them: none of the
  // wallet's other token accounts may be among them.
  const walletTokenAccounts = new Set<string>();
  for (const mint of [...Object.values(MINTS), inputMint, outputMint]) {
    if (mint !== undefined) for (const ata of walletAtasOf(wallet, mint, ctx)) walletTokenAccounts.add(ata);
  }
  for (const extra of p.extraAccounts) {
    if (own.has(extra)) continue;
    if (accounts.isWalletOwned(extra) || walletTokenAccounts.has(extra)) account(`hands the wallet's token account ${extra} to the AMMs, beyond the route's own source and destination`);
  }

  if (bounds) out.push(...checkAmounts(p, bounds, where));
  const paid = EXACT_IN.has(p.type) ? bigintArg(p, 'in_amount') : EXACT_OUT.has(p.type) ? mostIn(p) : undefined;
  if (paid !== undefined && paid > 0n && inputMint !== undefined) payments.push({ asset: inputMint, amount: paid, to: PROGRAMS.aggregator, instruction: ix.index });
  return out;
}

/**
 * A route that names no platform fee account (every v2 route: its layout has no such role) pays
 * its fee to an account among the AMM accounts, which nothing here binds: the service's own fee
 * (0 to 50 bps by pair, what the order discloses as feeBps) is allowed up to `maxBps` (that
 * feeBps, at most execution.ultraMaxFeeBps), no more. Positive slippage kept as a fee is output the wallet never
 * sees: none.
 */
function unnamedFees(p: AggregatorInstruction, where: string, maxBps: bigint): Violation[] {
  const out: Violation[] = [];
  const fee = bigintArg(p, 'platform_fee_bps');
  if (fee !== undefined && fee > maxBps) {
    out.push({ rule: 'intent_exceeded', detail: `${where}: platform_fee_bps ${fee} takes more than the ${maxBps} bps allowed (the order's own feeBps, at most execution.ultraMaxFeeBps) as a fee to an account the route does not name (none configured, or a v2 route, which cannot name one)` });
  }
  const kept = bigintArg(p, 'positive_slippage_bps');
  if (kept !== undefined && kept !== 0n) {
    out.push({ rule: 'intent_exceeded', detail: `${where}: positive_slippage_bps ${kept} takes a fee of the output above the quote, to an account the route does not name` });
  }
  return out;
}

function bigintArg(p: AggregatorInstruction, name: string): bigint | undefined {
  const value = p.args[name];
  return typeof value === 'string' ? BigInt(value) : undefined;
}

/** The least an exact-in route settles for, as the program computes it: quoted out less slippage_bps, rounded down. */
function leastOut(p: AggregatorInstruction): bigint | undefined {
  const quoted = bigintArg(p, 'quoted_out_amount');
  const slippage = bigintArg(p, 'slippage_bps');
  if (quoted === undefined || slippage === undefined) return undefined;
  return slippage >= BPS ? 0n : (quoted * (BPS - slippage)) / BPS;
}

/** The most an exact-out route takes: quoted in plus slippage_bps, rounded up. */
function mostIn(p: AggregatorInstruction): bigint | undefined {
  const quoted = bigintArg(p, 'quoted_in_amount');
  const slippage = bigintArg(p, 'slippage_bps');
  if (quoted === undefined || slippage === undefined) return undefined;
  return (quoted * (BPS + slippage) + BPS - 1n) / BPS;
}

function checkAmounts(p: AggregatorInstruction, b: SwapIntentBounds, where: string): Violation[] {
  const out: Violation[] = [];
  const exceeded = (detail: string) => out.push({ rule: 'intent_exceeded', detail: `${where}: ${detail}` });
  if (TOKEN_LEDGER.has(p.type)) {
    exceeded('the input is whatever the token ledger records, not an argument: the swap amount cannot be bounded');
    return out;
  }
  let inAmount: bigint | undefined;
  let outAmount: bigint | undefined;
  let outWhat: string;
  if (EXACT_IN.has(p.type)) {
    inAmount = bigintArg(p, 'in_amount');
    outAmount = leastOut(p);
    outWhat = `quoted_out_amount ${String(p.args.quoted_out_amount)} less slippage_bps ${String(p.args.slippage_bps)}`;
    if (inAmount !== undefined && inAmount > b.maxInAmount) exceeded(`in_amount ${inAmount} of mint ${b.inputMint} is above the intent's amount ${b.maxInAmount}`);
  } else {
    inAmount = mostIn(p);
    outAmount = bigintArg(p, 'out_amount');
    outWhat = `out_amount ${String(p.args.out_amount)}`;
    if (inAmount !== undefined && inAmount > b.maxInAmount) {
      exceeded(`quoted_in_amount ${String(p.args.quoted_in_amount)} plus slippage_bps ${String(p.args.slippage_bps)} may take ${inAmount} of mint ${b.inputMint}, above the intent's amount ${b.maxInAmount}`);
    }
  }
  if (b.minOutAmount === undefined) {
    exceeded(
      b.minOutBasis === undefined
        ? `no quote is known to bound the minimum out of mint ${b.outputMint} (the route's own quoted amount bounds nothing)`
        : `nothing bounds the minimum out of mint ${b.outputMint}: ${b.minOutBasis}, and the intent names no minOutAmount`,
    );
  } else if (outAmount !== undefined && outAmount < b.minOutAmount) {
    exceeded(`settles for ${outAmount} of mint ${b.outputMint} (${outWhat}), below ${b.minOutAmount}, ${b.minOutBasis ?? 'the least the intent accepts'}`);
  }
  return out;
}
