import type { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { decodeTransaction, LookupTableUnavailable, TransactionDecodeError, WireTransaction, type DecodedTransaction, type LookupTableResolver } from '../../chain/decode.ts';
import { ChainFactsReader, DEFAULT_MAX_ACCOUNT_SPACE_BYTES, inspectTransaction, type AccountReader, type BlockhashReader, type PerpsIntentBounds, type PolicyIntent, type Verdict } from '../../chain/policy/index.ts';
import { toBigInt } from '../../api/amounts.ts';
import { MINTS, RECEIVE_TOKEN_MINT } from '../../api/mints.ts';
import type { Intent } from '../../sdk/intent.ts';
import type { ActionRecord } from '../../records/action-record.ts';
import { MarkPriceUnavailable, type PositionAmounts } from './mark-price.ts';
import { LimitOrderUnlisted, type RestingLimitOrder } from './limit-order-lookup.ts';
import { isPerpsWrite, openedPosition, perpsWriteBounds } from './perps-write-bounds.ts';
import type { BuiltTransaction, TransactionInspector } from './ports.ts';
import type { CurrentTpsl } from '../../risk/reducing.ts';
import { swapIntentBounds, type SwapQuote, type SwapReference } from './swap-bounds.ts';
import { recurringIntentBounds } from './recurring-intent-bounds.ts';
import { studioIntentBounds } from './studio-intent-bounds.ts';
import { triggerIntentBounds } from './trigger-intent-bounds.ts';
import { isProtective, simulationBounds, watchedAccounts } from './simulation-bounds.ts';
import type { SimulationCheck } from './simulation-check.ts';

export interface PolicyInspectorOptions {
  readonly wallet: PublicKey;
  readonly priorityFeeCapLamports: bigint;
  readonly resolveLookupTable?: LookupTableResolver;
  /** Reads mints and token accounts from the chain; without it no mint's program is known (strictest). */
  readonly readAccounts?: AccountReader;
  /**
   * Asks our own RPC whether the build's blockhash is valid (rule stale_blockhash), and at which
   * slot: the verdict carries it (freshAtSlot). Without it the blockhash is taken on txMetadata's
   * word alone; the daemon always passes it.
   */
  readonly readBlockhash?: BlockhashReader;
  readonly slippageBps?: number;
  /**
   * The freshest mark price (USD × 10^6) of a position that the daemon read itself, or undefined
   * when none is fresh (then inspecting a decrease throws MarkPriceUnavailable: no verdict yet).
   * It bounds the worst price a decrease may fill at. With no source at all (`tx inspect` without
   * --mark-price) a decrease's market request is refused: the build alone would choose that price.
   */
  readonly markPrice?: (positionPubkey: string) => Promise<bigint | undefined>;
  /**
   * A position's size and collateral as the daemon last read them (positionAmountsFromSnapshots):
   * a partial decrease that names no collateral may withdraw its share of it, no more.
   */
  readonly positionAmounts?: (positionPubkey: string) => Promise<PositionAmounts | undefined>;
  /**
   * The freshest mark price (USD × 10^6) of a market the daemon read itself, or undefined when none
   * is fresh. It bounds the worst price an open (whose position does not exist yet), increase or
   * add-collateral may fill at, and the size a leverage-form open may ask for. Without a source,
   * those market requests are refused (no price the daemon knows bounds them).
   */
  readonly marketMarkPrice?: (marketMint: string) => Promise<bigint | undefined>;
  /** How far (bps) the market may move between that mark and the build, on top of the request's own slippage. */
  readonly priceDriftBps?: number;
  /** Largest account the wallet may fund the creation of (default: a token account, 165 bytes). */
  readonly maxAccountSpaceBytes?: bigint;
  /**
   * The TP/SL request a tpsl-update changes, as the latest positions snapshot shows it. The API's
   * update takes only a trigger, so the build may not grow the request's size beyond what it is
   * (a partial take-profit made into one of the whole position). Without it, or when the snapshot
   * does not show the request yet, the size is not bounded.
   */
  readonly currentTpsl?: (tpslPubkey: string) => Promise<CurrentTpsl | undefined>;
  /** A resting perps limit order as listed (src/pipeline/executor/limit-order-lookup.ts): an update is held to its size. */
  readonly limitOrder?: (positionRequestPubkey: string) => Promise<RestingLimitOrder | undefined>;
  /**
   * The balance-delta check by simulation (policy.simulation.*), run on a transaction every other
   * rule passed. Without it (or disabled) nothing is simulated.
   */
  readonly simulation?: SimulationCheck;
  /** execution.ultraPlatformFeeAccount: the one platform fee account a swap's route may name (absent: none). */
  readonly ultraPlatformFeeAccount?: string;
  /** execution.ultraMaxFeeBps: the service's own fee a route naming no fee account may take (absent: none). */
  readonly ultraMaxFeeBps?: number;
}

/** What the policy needs of a build: the operation, how it is routed, the blockhash it reported, a swap's quote. */
export type InspectionTarget = Pick<BuiltTransaction, 'operationId' | 'route' | 'positionPubkey' | 'createdTpslPubkeys'> & {
  readonly txMetadata?: { readonly blockhash: string; readonly accountRentLamports?: string } | null;
  /** A swap's quote: its in and out amounts are all the policy reads of it. */
  readonly swapQuote?: SwapQuote;
};

export interface DetailedInspection {
  /** Null when the message could not be decoded (the verdict is then `malformed`). */
  readonly decoded: DecodedTransaction | null;
  readonly verdict: Verdict;
}

/**
 * The transaction policy (src/chain/policy) applied to an action: the operation picks the program
 * allow-list, the route says whether a keeper slot is expected, and the intent bounds what the
 * wallet may send. Same rules in paper and live mode, and the same code `stratd tx inspect` runs.
 * Without an intent the strictest bounds apply: nothing may leave the wallet.
 */
export class PolicyInspector implements TransactionInspector {
  readonly #facts: ChainFactsReader | undefined;

  constructor(private readonly options: PolicyInspectorOptions) {
    this.#facts = options.readAccounts ? new ChainFactsReader(options.readAccounts) : undefined;
  }

  async inspect(tx: WireTransaction | VersionedTransaction, record: Pick<ActionRecord, 'intent'>, built: InspectionTarget): Promise<Verdict> {
    return (await this.inspectDetailed(tx, record.intent, built)).verdict;
  }

  /**
   * Decodes and judges. Bytes that do not decode (an unsupported message version, a message that
   * does not serialize) are a `malformed` verdict, never an exception: an exception would be
   * retried as if transient, pinning the action in `built`. RPC failures and a decrease without a
   * fresh mark price (MarkPriceUnavailable) still throw (transient).
   */
  async inspectDetailed(tx: WireTransaction | VersionedTransaction, intent: Intent | undefined, built: InspectionTarget, extraKnownAccounts: readonly string[] = []): Promise<DetailedInspection> {
    let decoded: DecodedTransaction;
    try {
      decoded = await decodeTransaction(tx, { resolveLookupTable: this.options.resolveLookupTable });
    } catch (error) {
      // An RPC that did not answer for a lookup table says nothing about the bytes: look again later.
      if (error instanceof LookupTableUnavailable) throw error;
      const detail = error instanceof TransactionDecodeError ? error.message : `the transaction does not decode (${(error as Error).message})`;
      return { decoded: null, verdict: { ok: false, violations: [{ rule: 'malformed', detail }], messageSha256: '' } };
    }
    const slippageBps = this.options.slippageBps ?? 0;
    const simulation = this.options.simulation;
    const wallet = this.options.wallet.toBase58();
    const unsignedTx = tx instanceof WireTransaction ? tx.bytes() : tx.serialize();
    // The simulation starts beside the reads below, watching the accounts known without the chain
    // facts; the check takes its answer when the facts add none (the common case), so a signature
    // waits for one round of reads instead of two. A transaction the rules refuse was simulated
    // for nothing: one RPC call, and no verdict rests on it.
    const begun = simulation?.enabled ? simulation.begin(unsignedTx, watchedAccounts(wallet, intent, undefined)) : undefined;
    // The mark, the current TP/SL, the chain facts and the blockhash's standing are independent reads: all at once.
    const [markPriceUsd, currentTpsl, restingOrder, chain, recentBlockhash, position] = await Promise.all([
      isDecrease(intent) && this.options.markPrice ? this.options.markPrice(intent.positionPubkey) : opensAtMarket(intent) ? this.marketMark(intent) : undefined,
      intent?.type === 'tpsl-update' && this.options.currentTpsl ? this.options.currentTpsl(intent.tpslPubkey) : undefined,
      intent?.type === 'limit-order-update' && this.options.limitOrder ? this.options.limitOrder(intent.positionRequestPubkey) : undefined,
      this.#facts ? this.#facts.factsFor(decoded, Object.keys(intentBounds(intent, slippageBps).maxMoveTokens ?? {})) : undefined,
      this.options.readBlockhash?.(decoded.recentBlockhash),
      isDecrease(intent) && intent.entirePosition !== true && intent.collateralUsdDelta === undefined
        ? this.options.positionAmounts?.(intent.positionPubkey)
        : // An open or increase with a stop, into a position the wallet holds: its stop protects the combined position.
          (intent?.type === 'open' || intent?.type === 'increase') && intent.stopLossPrice !== undefined
          ? this.options.positionAmounts?.(intent.type === 'open' ? openedPosition(intent, this.options.wallet.toBase58()) : intent.positionPubkey)
          : undefined,
    ]);
    // A configured mark source that knows no fresh mark: no verdict yet (transient), not a violation.
    if (isDecrease(intent) && this.options.markPrice && markPriceUsd === undefined) throw new MarkPriceUnavailable(intent.positionPubkey);
    if (opensAtMarket(intent) && this.options.marketMarkPrice && markPriceUsd === undefined) throw new MarkPriceUnavailable(intent.marketMint, 'market');
    // An order not listed yet (the list lags a fresh order): no verdict yet, inspected again; not a hostile build.
    if (intent?.type === 'limit-order-update' && this.options.limitOrder && restingOrder === undefined) throw new LimitOrderUnlisted(intent.positionRequestPubkey);
    const swap: SwapReference = { quote: built.swapQuote, platformFeeAccount: this.options.ultraPlatformFeeAccount, maxPlatformFeeBps: this.options.ultraMaxFeeBps };
    const bounds = intentBounds(intent, slippageBps, { markPriceUsd, driftBps: this.options.priceDriftBps ?? 0, wallet: this.options.wallet.toBase58(), createdTpslPubkeys: built.createdTpslPubkeys, restingOrder, position }, currentTpsl, swap);
    const verdict = inspectTransaction(decoded, {
      wallet: this.options.wallet,
      operationId: built.operationId,
      transactionType: built.route === 'perps-execute' ? 'instant' : 'legacy',
      txMetadata: built.txMetadata ?? undefined,
      recentBlockhash,
      priorityFeeCapLamports: this.options.priorityFeeCapLamports,
      intent: bounds,
      knownAccounts: [...knownAccounts(intent, bounds), ...extraKnownAccounts],
      chain,
      maxAccountSpaceBytes: this.options.maxAccountSpaceBytes,
    });
    // Only a transaction every other rule passed is judged by its simulation: a refusal needs no second opinion.
    if (!verdict.ok || !simulation || !begun) return { decoded, verdict };
    const violations = await simulation.check({
      unsignedTx,
      begun,
      wallet,
      watched: watchedAccounts(wallet, intent, chain),
      bounds: simulationBounds(intent, decoded, { accountRentLamports: built.txMetadata?.accountRentLamports, quotedOutAmount: built.swapQuote?.outAmount }, this.options.maxAccountSpaceBytes ?? DEFAULT_MAX_ACCOUNT_SPACE_BYTES, slippageBps),
      protective: isProtective(intent),
    });
    if (violations.length === 0) return { decoded, verdict };
    return { decoded, verdict: { ...verdict, ok: false, violations: [...verdict.violations, ...violations] } };
  }

  /** An increase's own position mark when it is known, else the market's. */
  private async marketMark(intent: Extract<Intent, { type: 'open' | 'increase' | 'add-collateral' }>): Promise<bigint | undefined> {
    const own = intent.type !== 'open' && this.options.markPrice ? await this.options.markPrice(intent.positionPubkey) : undefined;
    return own ?? (await this.options.marketMarkPrice?.(intent.marketMint));
  }
}

/** Intents whose request fills at the market: bounded by the daemon's mark of the market. */
function opensAtMarket(intent: Intent | undefined): intent is Extract<Intent, { type: 'open' | 'increase' | 'add-collateral' }> {
  return intent?.type === 'open' || intent?.type === 'increase' || intent?.type === 'add-collateral';
}

/**
 * What an intent may move out of the wallet. Decreases, TP/SL updates and cancels move nothing of
 * the wallet's own (the fee of a with-fee operation is taken from the position or collateral). A
 * trigger or recurring create escrows exactly its making / in amount of the input mint: the
 * program takes it by CPI, and the policy counts the decoded amount against this bound. Order
 * cancels and Studio fee claims move nothing out. No intent: nothing may move.
 */
export function intentBounds(intent: Intent | undefined, slippageBps: number, price: PriceReference = {}, currentTpsl?: CurrentTpsl, swap: SwapReference = {}): PolicyIntent {
  if (intent?.type === 'swap') return swapIntentBounds(intent, slippageBps, swap);
  if (intent?.type === 'lp-mint' || intent?.type === 'deposit-borrow') return lendingBounds(intent);
  if (intent?.type === 'trigger-create') {
    // The escrow is the exact making amount: no slippage on top of it.
    return { maxMoveLamports: 0n, maxMoveTokens: { [intent.inputMint]: toBigInt(intent.makingAmount) }, slippageBps: 0, trigger: triggerIntentBounds(intent) };
  }
  if (intent?.type === 'trigger-cancel' || intent?.type === 'trigger-cancel-all') {
    return { maxMoveLamports: 0n, maxMoveTokens: {}, slippageBps, trigger: triggerIntentBounds(intent) };
  }
  if (intent?.type === 'recurring-create') {
    return { maxMoveLamports: 0n, maxMoveTokens: { [intent.inputMint]: toBigInt(intent.inAmount) }, slippageBps: 0, recurring: recurringIntentBounds(intent) };
  }
  if (intent?.type === 'recurring-cancel') return { maxMoveLamports: 0n, maxMoveTokens: {}, slippageBps, recurring: recurringIntentBounds(intent) };
  if (intent?.type === 'studio-claim-fee') return { maxMoveLamports: 0n, maxMoveTokens: {}, slippageBps, studio: studioIntentBounds(intent) };
  if (intent === undefined) return { maxMoveLamports: 0n, maxMoveTokens: {}, slippageBps: 0 };
  if (intent.type === 'tpsl-create' || intent.type === 'tpsl-update' || intent.type === 'tpsl-cancel') {
    // The integrator fee, in USDC, to the fee receiver the intent names (none on the plain routes);
    // a create acts on the intent's position at exactly its trigger, an update or cancel on the
    // request the intent names (an update to exactly its trigger).
    const fee: Record<string, bigint> = intent.feeTokenAmount === undefined ? {} : { [MINTS.USDC]: toBigInt(intent.feeTokenAmount) };
    const perps: PerpsIntentBounds =
      intent.type === 'tpsl-create'
        ? {
            positionPubkey: intent.positionPubkey,
            triggerPriceUsd: toBigInt(intent.triggerPrice),
            desiredMint: RECEIVE_TOKEN_MINT[intent.receiveToken],
            triggerOnly: true,
            // A long's take-profit and a short's stop-loss fire when the price rises above the trigger.
            triggerAboveThreshold: (intent.requestType === 'tp') === (intent.side === 'long'),
            // What the builder asks for: the whole position unless a partial size is given.
            entirePosition: intent.entirePosition ?? intent.sizeUsdDelta === undefined,
            maxSizeUsdDelta: intent.sizeUsdDelta === undefined ? undefined : toBigInt(intent.sizeUsdDelta),
            // A trigger request that names its own worst fill price may not set it further from
            // the trigger than the configured slippage: a take-profit with a floor of 0 sells at
            // any price once it fires. One that names none (null, or the instant variant, which
            // has no such argument) fills as the program's trigger rules say.
            referencePriceUsd: toBigInt(intent.triggerPrice),
            maxSlippageBps: BigInt(Math.max(0, Math.trunc(slippageBps))),
          }
        : intent.type === 'tpsl-update'
          ? {
              positionRequestPubkey: intent.tpslPubkey,
              triggerPriceUsd: toBigInt(intent.triggerPrice),
              triggerOnly: true,
              // The update moves the trigger only: a partial request stays at most its size.
              maxSizeUsdDelta: currentTpsl !== undefined && currentTpsl.entirePosition !== true ? currentTpsl.sizeUsd : undefined,
            }
          : { positionRequestPubkey: intent.tpslPubkey, triggerOnly: true };
    return { maxMoveLamports: 0n, maxMoveTokens: fee, slippageBps, perps };
  }
  if (isPerpsWrite(intent)) return perpsWriteBounds(intent, slippageBps, price);
  // Not yet bounded by their own rules: nothing of the wallet's may move, so a transaction that
  // spends is refused rather than signed unchecked.
  if (!isDecrease(intent)) return { maxMoveLamports: 0n, maxMoveTokens: {}, slippageBps };
  // A decrease acts on its position only, by at most the size and collateral it names. When it
  // names no collateral the API works it out (the cut's share): held to that share of the
  // collateral last read, so a build cannot empty the margin behind a sliver of size (the risk
  // gate counts such a decrease as lowering exposure).
  const entire = intent.entirePosition === true;
  // The worst fill price: the request's own slippage (what the builder asked the API for) plus the
  // drift allowed since the daemon's own mark was read.
  const requestSlippageBps = intent.maxSlippageBps === undefined ? BigInt(Math.trunc(slippageBps)) : toBigInt(intent.maxSlippageBps);
  const perps: PerpsIntentBounds = {
    positionPubkey: intent.positionPubkey,
    desiredMint: RECEIVE_TOKEN_MINT[intent.receiveToken],
    entirePosition: entire,
    maxSizeUsdDelta: entire ? undefined : toBigInt(intent.sizeUsdDelta ?? '0'),
    maxCollateralUsdDelta: entire || intent.collateralUsdDelta === undefined ? undefined : toBigInt(intent.collateralUsdDelta),
    maxCollateralShareUsd: entire || intent.collateralUsdDelta !== undefined ? undefined : collateralShare(price.position, toBigInt(intent.sizeUsdDelta ?? '0')),
    referencePriceUsd: price.markPriceUsd,
    maxSlippageBps: price.markPriceUsd === undefined ? undefined : requestSlippageBps + BigInt(Math.max(0, Math.trunc(price.driftBps ?? 0))),
    requirePriceBound: true,
  };
  const fee: Record<string, bigint> = intent.type === 'decrease-with-fee' ? { [MINTS.USDC]: toBigInt(intent.feeTokenAmount) } : {};
  return { maxMoveLamports: 0n, maxMoveTokens: fee, slippageBps, perps };
}

/**
 * The collateral a cut of `sizeUsdDelta` takes with it when the decrease names none: the
 * position's collateral × cut ÷ size, rounded up, and 1 % more (the service works it out on the
 * collateral at its build, which fees have only lowered since the read; rounding). Undefined
 * (unbounded, as the policy was before) when the position is not known.
 */
function collateralShare(position: PositionAmounts | undefined, sizeUsdDelta: bigint): bigint | undefined {
  if (position === undefined || position.sizeUsd <= 0n) return undefined;
  const share = (position.collateralUsd * sizeUsdDelta + position.sizeUsd - 1n) / position.sizeUsd;
  return share + (share + 99n) / 100n;
}

/** The custody mint of each LP deposit token the API takes. */
const LP_DEPOSIT_MINT: Readonly<Record<Extract<Intent, { type: 'lp-mint' }>['depositToken'], string>> = { WBTC: MINTS.BTC, ETH: MINTS.ETH, SOL: MINTS.SOL, USDC: MINTS.USDC };

/**
 * An LP mint deposits exactly its amount of its token (and takes at least minLpAmount LP when
 * given); a deposit-borrow deposits exactly its JLP and borrows exactly its USDC. The deposits
 * are the only tokens of the wallet's that may move; what comes back must land in the wallet's own
 * accounts (check-product-instructions.ts).
 */
function lendingBounds(intent: Extract<Intent, { type: 'lp-mint' | 'deposit-borrow' }>): PolicyIntent {
  if (intent.type === 'lp-mint') {
    const depositMint = LP_DEPOSIT_MINT[intent.depositToken];
    const tokenAmountIn = toBigInt(intent.depositTokenAmount);
    const minLpAmountOut = intent.minLpAmount === undefined ? undefined : toBigInt(intent.minLpAmount);
    return { maxMoveLamports: 0n, maxMoveTokens: { [depositMint]: tokenAmountIn }, slippageBps: 0, perps: { lpMint: { depositMint, tokenAmountIn, minLpAmountOut } } };
  }
  const depositAmount = toBigInt(intent.depositTokenAmount);
  return {
    maxMoveLamports: 0n,
    maxMoveTokens: { [MINTS.JLP]: depositAmount },
    slippageBps: 0,
    perps: { depositBorrow: { depositAmount, borrowAmount: toBigInt(intent.borrowTokenAmount) } },
  };
}

/**
 * The daemon's own mark price a decrease (or an open's market request) is bounded by, the drift
 * (bps) allowed from it, and the wallet an open's position derives from.
 */
export interface PriceReference {
  readonly markPriceUsd?: bigint;
  readonly driftBps?: number;
  readonly wallet?: string;
  /** The TP/SL requests an open's or increase's reply says it creates, in attachedTpslOf's order (the TP/SL book's word for them). */
  readonly createdTpslPubkeys?: readonly string[];
  /** A limit order update's order, as listed: the update's size is held to it. */
  readonly restingOrder?: RestingLimitOrder;
  /**
   * The position as last read: a partial decrease naming no collateral withdraws its share at most;
   * an open into it has its stop judged against the combined position.
   */
  readonly position?: PositionAmounts;
}

type DecreaseIntent = Extract<Intent, { type: 'decrease' | 'decrease-with-fee' }>;
function isDecrease(intent: Intent | undefined): intent is DecreaseIntent {
  return intent?.type === 'decrease' || intent?.type === 'decrease-with-fee';
}

/**
 * Accounts the intent names: value or control may go there. Never an account only the build's
 * reply names (its positionPubkey): a hostile reply would name its own key there and have
 * authority or collateral handed to it. The position an open or a limit order creates is the one
 * derived from the wallet (the perps bounds' position), not the one the reply says.
 */
function knownAccounts(intent: Intent | undefined, bounds: PolicyIntent): string[] {
  const named = [bounds.perps?.positionPubkey];
  switch (intent?.type) {
    case 'decrease':
      named.push(intent.positionPubkey);
      break;
    case 'decrease-with-fee':
      named.push(intent.positionPubkey, intent.feeReceiver);
      break;
    case 'tpsl-create':
      named.push(intent.positionPubkey, intent.feeReceiver);
      break;
    case 'tpsl-update':
      named.push(intent.tpslPubkey, intent.feeReceiver);
      break;
    case 'tpsl-cancel':
      named.push(intent.tpslPubkey);
      break;
    case 'trigger-cancel':
      named.push(intent.order);
      break;
    case 'increase':
    case 'add-collateral':
      named.push(intent.positionPubkey);
      break;
    case 'limit-order-update':
    case 'limit-order-cancel':
      named.push(intent.positionRequestPubkey);
      break;
    default:
      break;
  }
  return named.filter((a): a is string => a !== undefined);
}

/** The operation that serves an intent (ApiActionBuilder: the with-fee route when a TP/SL intent carries a fee), for `stratd tx inspect --intent`. */
export function operationOfIntent(intent: Intent): BuiltTransaction['operationId'] {
  switch (intent.type) {
    case 'decrease':
      return 'perps.decrease';
    case 'decrease-with-fee':
      return 'perps.decreaseWithFee';
    case 'tpsl-create':
      return intent.feeTokenAmount !== undefined ? 'perps.createTpslWithFee' : 'perps.createTpsl';
    case 'tpsl-update':
      return intent.feeTokenAmount !== undefined ? 'perps.updateTpslWithFee' : 'perps.updateTpsl';
    case 'tpsl-cancel':
      return intent.feeTokenAmount !== undefined ? 'perps.cancelTpslWithFee' : 'perps.cancelTpsl';
    case 'trigger-create':
      return 'trigger.createOrder';
    case 'trigger-cancel':
      return 'trigger.cancelOrder';
    case 'trigger-cancel-all':
      return 'trigger.cancelOrders';
    case 'open':
    case 'increase':
    case 'add-collateral':
      return 'perps.increase';
    case 'limit-order-create':
      return 'perps.createLimitOrder';
    case 'limit-order-update':
      return 'perps.updateLimitOrder';
    case 'limit-order-cancel':
      return 'perps.cancelLimitOrder';
    case 'lp-mint':
      return 'perps.lpMint';
    case 'deposit-borrow':
      return 'perps.depositBorrow';
    case 'recurring-create':
      return 'recurring.createOrder';
    case 'recurring-cancel':
      return 'recurring.cancelOrder';
    case 'swap':
      return 'ultra.order';
    case 'studio-claim-fee':
      return 'studio.claimFee';
  }
}
