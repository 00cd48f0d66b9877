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
  /** Whether closing the whole position is asked for; otherwise entirePosition must not be set. */
  readonly entirePosition?: boolean;
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
  /**
   * An open or increase with TP/SL attached (the request's tpsl member): the TP/SL instructions
   * the transaction must carry, each exactly once, on the bounded position, for the whole
   * position, at exactly this trigger and firing side. Present (even empty): a TP/SL instruction
   * beside the increase that is not in the list is refused.
   */
  readonly attachedTpsl?: ReadonlyArray<{ readonly triggerPriceUsd: bigint; readonly triggerAboveThreshold: boolean }>;
  /** How many acting perps instructions (attached TP/SL aside) the intent asks for, each of a different kind; default 1. */
  readonly maxInstructions?: number;
  /** An LP mint: the least LP the instruction may accept (minLpAmountOut). */
  readonly minLpAmountOut?: bigint;
  /** A borrow: the most the instruction may borrow (borrowFromCustody amount). */
  readonly maxBorrowAmount?: bigint;
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
  /**
   * Refuse trigger orders (check-trigger-orders.ts): their amounts cannot be checked. The daemon
   * sets it outside paper mode unless execution.allowUncheckedTriggerOrders is on.
   */
  readonly refuseUncheckedTriggerOrders?: boolean;
}

/** 165 bytes: an SPL token account, the largest account a trade needs the wallet to create. */
export const DEFAULT_MAX_ACCOUNT_SPACE_BYTES = 165n;

/** 0.005 SOL: well above what a normal priority fee costs, far below what a drain would take. */
export const DEFAULT_PRIORITY_FEE_CAP_LAMPORTS = 5_000_000n;
