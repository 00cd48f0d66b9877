import type { PublicKey } from '@solana/web3.js';
import type { OperationId } from '../../api/registry.ts';
import type { ChainFacts } from './chain-facts.ts';

/** What our own RPC says of a blockhash: whether it is still valid, and the slot it answered at. */
export interface BlockhashStanding {
  readonly valid: boolean;
  readonly slot: number;
}

/** What the operation asked for; the transaction may not move more from the wallet. */
export interface PolicyIntent {
  /** Lamports the wallet may send to accounts it does not own. */
  readonly maxMoveLamports?: bigint;
  /** Per mint, the smallest units the wallet may send or approve to accounts it does not own. */
  readonly maxMoveTokens?: Readonly<Record<string, bigint>>;
  /** Tolerance on both limits, in basis points. */
  readonly slippageBps?: number;
  /** What perps instructions may ask for; checked against their decoded arguments. */
  readonly perps?: PerpsIntentBounds;
  /** What an aggregator route (an Ultra swap) may ask for; checked against its decoded arguments. */
  readonly swap?: SwapIntentBounds;
  /** What Limit Order v2 instructions may ask for (trigger orders). */
  readonly trigger?: TriggerIntentBounds;
  /** What DCA instructions may ask for (recurring orders). */
  readonly recurring?: RecurringIntentBounds;
  /** What a Dynamic Bonding Curve fee claim may ask for (Studio). */
  readonly studio?: StudioIntentBounds;
}

/**
 * Bounds on an aggregator route (check-swap-instructions.ts). Mints are base58, amounts in the
 * mints' smallest units.
 */
export interface SwapIntentBounds {
  readonly inputMint: string;
  readonly outputMint: string;
  /** The most of inputMint the route may take: the intent's amount. */
  readonly maxInAmount: bigint;
  /**
   * The least of outputMint the route may settle for: the larger of the quote's out amount less the
   * allowed slippage and the intent's own minOutAmount. Undefined when neither is known: then the
   * route is refused, since its own quoted amount comes from the very bytes under judgement and
   * bounds nothing.
   */
  readonly minOutAmount?: bigint;
  /**
   * How minOutAmount was derived (for the refusal's one line), e.g. "the quote's 1000 less 50 bps";
   * without minOutAmount, why there is none when it is not the missing quote.
   */
  readonly minOutBasis?: string;
  /** The one platform fee account a route may name (execution.ultraPlatformFeeAccount); absent: none. */
  readonly platformFeeAccount?: string;
  /** The most platform_fee_bps a route naming no fee account may take (execution.ultraMaxFeeBps); absent: none. */
  readonly maxPlatformFeeBps?: bigint;
}

/**
 * A trigger order's bounds: a create's exact amounts and mints (the taking amount is the limit
 * price), or the orders a cancel may close (absent: any order whose maker is the wallet).
 */
export type TriggerIntentBounds =
  | {
      readonly kind: 'create';
      readonly inputMint: string;
      readonly outputMint: string;
      readonly makingAmount: bigint;
      readonly takingAmount: bigint;
      /** Unix seconds, when the intent names an expiry. */
      readonly expiredAt?: bigint;
      /** The most slippage the order may allow at fill time (none asked: 0). */
      readonly maxSlippageBps: bigint;
    }
  | { readonly kind: 'cancel'; readonly orders?: readonly string[] };

/** A recurring order's bounds: a create's exact plan, or the one order a cancel may close. */
export type RecurringIntentBounds =
  | {
      readonly kind: 'create';
      readonly inputMint: string;
      readonly outputMint: string;
      readonly inAmount: bigint;
      readonly numberOfOrders: bigint;
      readonly intervalSec: bigint;
      /** Unix seconds, when the intent names a start. */
      readonly startAt?: bigint;
      /** Unix seconds: with no start named, the latest the order may start (soon, not in a year: the deposit would wait idle). */
      readonly latestStartAt?: bigint;
      /** Whether the intent bounds the price from below / above: then the order must carry that bound. */
      readonly minPrice: boolean;
      readonly maxPrice: boolean;
    }
  | { readonly kind: 'cancel'; readonly order: string };

/** A Studio fee claim's bounds: the pool, and the most quote token the claim may take. */
export interface StudioIntentBounds {
  readonly pool: string;
  readonly maxQuoteAmount: bigint;
}

/**
 * Bounds on the arguments of perps instructions (USD and prices × 10^6). An absent bound is not
 * checked; token amounts paid into the program count against `maxMoveTokens`.
 */
export interface PerpsIntentBounds {
  /** The only position the instructions may act on. */
  readonly positionPubkey?: string;
  /** The only existing request an update may change (a TP/SL or limit order). */
  readonly positionRequestPubkey?: string;
  readonly maxSizeUsdDelta?: bigint;
  readonly maxCollateralUsdDelta?: bigint;
  /**
   * A partial decrease that names no collateral: the most its build may withdraw, the cut's share
   * of the collateral the daemon last read (rule collateral_share: the position may have changed
   * since, so the refusal is the moment's, not the build's fault).
   */
  readonly maxCollateralShareUsd?: bigint;
  /**
   * An open or increase: exactly this collateral paid in (collateralTokenDelta). Less would carry
   * the same size on less margin: a leverage above the one the intent (and risk.maxLeverage) judged.
   */
  readonly collateralTokenDelta?: bigint;
  /** Whether closing the whole position is asked for; otherwise entirePosition must not be set. */
  readonly entirePosition?: boolean;
  /** The mint a decrease or TP/SL request pays out in (the intent's receiveToken): its desiredMint must be it. */
  readonly desiredMint?: string;
  /** The exact trigger price of a TP/SL or limit order. */
  readonly triggerPriceUsd?: bigint;
  /**
   * With maxSlippageBps: the worst execution price a request may accept is this far from it (a
   * decrease's: the position's mark; a TP/SL's: its trigger).
   */
  readonly referencePriceUsd?: bigint;
  readonly maxSlippageBps?: bigint;
  /**
   * A market request must carry a priceSlippage that the reference price bounds: without a
   * reference (no fresh mark price known) or without the argument, the request could fill at any
   * price, and it is refused.
   */
  readonly requirePriceBound?: boolean;
  /**
   * A TP/SL intent: no instruction may fill at the market (a market request, or a request2 of
   * requestType market), and a request2 must carry its trigger price.
   */
  readonly triggerOnly?: boolean;
  /** Which side of the trigger fires the request (a long's TP and a short's SL fire above it). */
  readonly triggerAboveThreshold?: boolean;
  /** An LP mint: exactly this deposit of this mint, and at least minLpAmountOut LP back when given. */
  readonly lpMint?: { readonly depositMint: string; readonly tokenAmountIn: bigint; readonly minLpAmountOut?: bigint };
  /** Lending: exactly this JLP deposit and this USDC borrow (0: no instruction of that kind). */
  readonly depositBorrow?: { readonly depositAmount: bigint; readonly borrowAmount: bigint };
  /**
   * An open or increase with TP/SL attached (the request's tpsl member): the TP/SL instructions
   * the transaction must carry, each exactly once, on the bounded position, for the whole
   * position, at exactly this trigger and firing side, paying out in `desiredMint` (the mint the
   * build asked for: the position's collateral), creating `requestPubkey` when given (the request
   * the build's reply names for it: the TP/SL book goes by that name). Present (even empty): a TP/SL instruction
   * beside the increase that is not in the list is refused.
   */
  readonly attachedTpsl?: ReadonlyArray<{ readonly triggerPriceUsd: bigint; readonly triggerAboveThreshold: boolean; readonly desiredMint?: string; readonly requestPubkey?: string }>;
  /**
   * An open or increase with a stop-loss attached (rule stop_past_liquidation): the stop must fire
   * before the position could be liquidated at the worst entry its request accepts (priceSlippage), for
   * its sizeUsdDelta on `collateralUsd` (the collateral's value at the daemon's mark), the
   * maintenance margin, fees and price impact taken off; into a held position, on the combined
   * position (sizes and collaterals added, the entry their size-weighted average). Absent when the
   * collateral's value is not known (paid in a third token).
   */
  readonly stopShortOfLiquidation?: {
    readonly side: 'long' | 'short';
    readonly stopLossPriceUsd: bigint;
    readonly collateralUsd: bigint;
    /** The position the open adds to, as the daemon last read it (USD × 10^6): judged combined. */
    readonly held?: { readonly sizeUsd: bigint; readonly collateralUsd: bigint; readonly entryPriceUsd: bigint };
  };
}

/** Everything the policy knows about the action a transaction claims to perform. */
export interface PolicyContext {
  /** Our wallet: the only fee payer and the only signer we provide. */
  readonly wallet: PublicKey;
  /** The operation that built the transaction; its product selects the program allow-list. */
  readonly operationId: OperationId;
  /**
   * 'instant' (or a response with requireKeeperSignature: true) allows one extra, still unsigned,
   * signer slot for the keeper. Absent means legacy: the wallet is the only signer.
   */
  readonly transactionType?: 'legacy' | 'instant';
  /** The blockhash the service reported; the transaction must carry the same one. */
  readonly txMetadata?: { readonly blockhash: string } | null;
  /**
   * What our own RPC says of the transaction's blockhash (check-blockhash.ts). Absent: not
   * checked (no RPC to ask).
   */
  readonly recentBlockhash?: BlockhashStanding;
  /** The most the transaction may pay as priority fee, in lamports. */
  readonly priorityFeeCapLamports: bigint;
  readonly intent?: PolicyIntent;
  /** Accounts the operation explains (fee receiver, position, order, escrow): value may go there. */
  readonly knownAccounts?: readonly string[];
  /**
   * What the chain says about the mints and token accounts the transaction names
   * (ChainFactsReader). Absent: no mint's token program is known, so no associated token account
   * counts as the wallet's.
   */
  readonly chain?: ChainFacts;
  /** The largest account (bytes of data) the wallet may fund the creation of. Default: a token account. */
  readonly maxAccountSpaceBytes?: bigint;
}

/** 165 bytes: an SPL token account, the largest account a trade needs the wallet to create. */
export const DEFAULT_MAX_ACCOUNT_SPACE_BYTES = 165n;

/** 0.005 SOL: well above what a normal priority fee costs, far below what a drain would take. */
export const DEFAULT_PRIORITY_FEE_CAP_LAMPORTS = 5_000_000n;
