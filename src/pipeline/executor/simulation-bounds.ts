import { toBigInt } from '../../api/amounts.ts';
import { MINTS } from '../../api/mints.ts';
import type { DecodedTransaction } from '../../chain/decode.ts';
import { priorityFeeLamports, rentExemptMinimum, type ChainFacts, type SimulationBounds, type WatchedAccount } from '../../chain/policy/index.ts';
import { associatedTokenAccountOf } from '../../chain/policy/wallet-accounts.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import type { Intent } from '../../sdk/intent.ts';
import { slippageFloor } from '../../sdk/slippage-floor.ts';
import { swapSlippageBps } from './swap-bounds.ts';

/** 5000 lamports per signature: the base fee of every transaction. */
const LAMPORTS_PER_SIGNATURE = 5_000n;
/** Most accounts one operation creates with the wallet's rent (a position request, an order, a token account or two). */
const MAX_CREATED_ACCOUNTS = 4n;
/** The simulation reads at most this many accounts in one call. */
const MAX_WATCHED = 100;

const LP_DEPOSIT_MINT: Readonly<Record<string, string>> = { WBTC: MINTS.BTC, ETH: MINTS.ETH, SOL: MINTS.SOL, USDC: MINTS.USDC };

/** Protective actions wait at most policy.simulation.protectiveTimeoutMs: a decrease, a TP/SL create or update. */
export function isProtective(intent: Intent | undefined): boolean {
  return intent?.type === 'decrease' || intent?.type === 'decrease-with-fee' || intent?.type === 'tpsl-create' || intent?.type === 'tpsl-update';
}

/** Operations that create no account: they may spend the fee only, no rent. */
const CREATES_NOTHING: ReadonlySet<string> = new Set(['tpsl-update', 'tpsl-cancel', 'trigger-cancel', 'trigger-cancel-all', 'recurring-cancel', 'limit-order-update', 'limit-order-cancel']);

/** What the build says about it that the bounds may use (each capped by our own numbers). */
export interface BuildFacts {
  /** txMetadata.accountRentLamports: the rent the operation's new accounts take (capped by MAX_CREATED_ACCOUNTS token-account-sized ones). */
  readonly accountRentLamports?: string;
  /** A swap's quoted out amount (smallest unit of the output): its minimum out is this less the intent's slippage. */
  readonly quotedOutAmount?: string;
}

/**
 * What the intent lets the wallet's balances do (docs/safety.md, "Simulation"):
 * - decrease, TP/SL create/update/cancel: no token leaves but the fee the intent names;
 * - trigger / recurring cancel, Studio fee claim: nothing leaves;
 * - trigger create: exactly the making amount; recurring create: exactly the in amount;
 * - swap: at most the amount in, at least the larger of the quote's out less the slippage and the
 *   intent's minOutAmount out (neither: something must arrive);
 * - open, increase, add collateral, LP mint, deposit-borrow, perps limit order: at most the intent's input amount.
 * Lamports spent: the fee of every signature, the priority fee and, for operations that create
 * accounts, their rent (no more than MAX_CREATED_ACCOUNTS accounts of maxAccountSpaceBytes).
 */
export function simulationBounds(intent: Intent | undefined, decoded: DecodedTransaction, build: BuildFacts, maxAccountSpaceBytes: bigint, slippageBps: number): SimulationBounds {
  const rentCap = MAX_CREATED_ACCOUNTS * rentExemptMinimum(maxAccountSpaceBytes);
  const reportedRent = build.accountRentLamports === undefined ? 0n : toBigInt(build.accountRentLamports);
  const rent = intent === undefined || CREATES_NOTHING.has(intent.type) ? 0n : reportedRent < rentCap ? reportedRent : rentCap;
  const maxLamportsSpent = LAMPORTS_PER_SIGNATURE * BigInt(Math.max(decoded.signers.length, 1)) + priorityFeeLamports(decoded).fee + rent;
  const fee = (amount: string | undefined): Record<string, bigint> => (amount === undefined ? {} : { [MINTS.USDC]: toBigInt(amount) });
  switch (intent?.type) {
    case undefined:
      return { maxLamportsSpent, maxOutflow: {} };
    case 'decrease':
      return { maxLamportsSpent, maxOutflow: {} };
    case 'decrease-with-fee':
    case 'tpsl-create':
    case 'tpsl-update':
    case 'tpsl-cancel':
      return { maxLamportsSpent, maxOutflow: fee(intent.feeTokenAmount) };
    case 'trigger-cancel':
    case 'trigger-cancel-all':
    case 'recurring-cancel':
    case 'studio-claim-fee':
      return { maxLamportsSpent, maxOutflow: {} };
    case 'trigger-create':
      return { maxLamportsSpent, maxOutflow: {}, exactOutflow: { [intent.inputMint]: toBigInt(intent.makingAmount) } };
    case 'recurring-create':
      return { maxLamportsSpent, maxOutflow: {}, exactOutflow: { [intent.inputMint]: toBigInt(intent.inAmount) } };
    case 'swap': {
      const quoted = build.quotedOutAmount === undefined ? undefined : slippageFloor(toBigInt(build.quotedOutAmount), swapSlippageBps(intent, slippageBps));
      const floor = intent.minOutAmount === undefined ? undefined : toBigInt(intent.minOutAmount);
      // The larger of the quote's floor and the intent's; neither: something must arrive.
      const minOut = [quoted, floor, 1n].reduce<bigint>((most, v) => (v !== undefined && v > most ? v : most), 0n);
      return { maxLamportsSpent, maxOutflow: { [intent.inputMint]: toBigInt(intent.amount) }, minInflow: { [intent.outputMint]: minOut } };
    }
    case 'open':
    case 'increase':
    case 'add-collateral':
      return { maxLamportsSpent, maxOutflow: { [intent.inputMint ?? intent.collateralMint]: toBigInt(intent.collateralTokenDelta) } };
    case 'lp-mint':
      return { maxLamportsSpent, maxOutflow: { [LP_DEPOSIT_MINT[intent.depositToken] ?? MINTS.USDC]: toBigInt(intent.depositTokenAmount) } };
    case 'deposit-borrow':
      return { maxLamportsSpent, maxOutflow: { [MINTS.JLP]: toBigInt(intent.depositTokenAmount) } };
    case 'limit-order-create':
      return { maxLamportsSpent, maxOutflow: { [intent.inputMint]: toBigInt(intent.inputTokenAmount) } };
    case 'limit-order-update':
    case 'limit-order-cancel':
      return { maxLamportsSpent, maxOutflow: {} };
  }
}

/** Mints the intent names. */
function intentMints(intent: Intent | undefined): string[] {
  switch (intent?.type) {
    case 'trigger-create':
    case 'recurring-create':
    case 'swap':
      return [intent.inputMint, intent.outputMint];
    case 'open':
    case 'increase':
    case 'add-collateral':
      return [intent.inputMint ?? intent.collateralMint, intent.collateralMint];
    case 'lp-mint':
      return [LP_DEPOSIT_MINT[intent.depositToken] ?? MINTS.USDC, MINTS.JLP];
    default:
      return [];
  }
}

/**
 * The accounts to simulate: the wallet, its associated token account of every mint the service
 * knows, the intent names or the transaction's token accounts hold (under the mint's token
 * program; the SPL Token program when the chain did not say), and every other token account of
 * the wallet the transaction names.
 */
export function watchedAccounts(wallet: string, intent: Intent | undefined, facts: ChainFacts | undefined): WatchedAccount[] {
  const watched: WatchedAccount[] = [{ address: wallet, kind: 'wallet' }];
  const seen = new Set<string>([wallet]);
  const add = (address: string, mint: string) => {
    if (seen.has(address) || watched.length >= MAX_WATCHED) return;
    seen.add(address);
    watched.push({ address, kind: 'token', mint });
  };
  const named = [...(facts?.tokenAccounts ?? new Map())].filter(([, token]) => token.owner === wallet);
  const mints = new Set<string>([...intentMints(intent), ...Object.values(MINTS), ...named.map(([, token]) => token.mint)]);
  for (const mint of mints) {
    try {
      add(associatedTokenAccountOf(wallet, mint, facts?.mintPrograms.get(mint) ?? PROGRAMS.token), mint);
    } catch {
      // A mint that is no public key has no account to watch.
    }
  }
  for (const [address, token] of named) add(address, token.mint);
  return watched;
}
