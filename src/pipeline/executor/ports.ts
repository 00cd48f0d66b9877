import type { TradeRecord } from '../../api/schemas/perps.ts';
import type { WireTransaction } from '../../chain/decode.ts';
import type { Verdict } from '../../chain/policy/index.ts';
import type { TransactionSigner } from '../../chain/signer.ts';
import type { OperationId } from '../../api/registry.ts';
import type { TxMetadata } from '../../api/schemas/common.ts';
import type { PerpsExecuteAction } from '../../api/schemas/perps.ts';
import type { Ledger } from '../../records/ledger.ts';
import type { ActionRecord, Route, SwapQuote } from '../../records/action-record.ts';
import type { ChainTip, SendResult, SignatureSeen } from '../../chain/rpc-client.ts';
import type { ExecuteReply } from './execute-reply.ts';

/** What the executor needs from the world, one small interface each (tests and modes swap them). */

export interface BuiltTransaction {
  readonly operationId: OperationId;
  readonly route: Route;
  /** The perps execute action when `route` is perps-execute. */
  readonly executeAction?: PerpsExecuteAction;
  /** The build's request id when `route` is trigger-, recurring- or ultra-execute. */
  readonly requestId?: string;
  readonly unsignedTx: string;
  readonly txMetadata?: TxMetadata | null;
  /** A perps request sent as a legacy transaction: the keeper applies it later (api-facts 5). */
  readonly awaitsKeeper: boolean;
  readonly positionPubkey?: string;
  /** The position request a legacy perps transaction creates (the build response's positionRequestPubkey). */
  readonly positionRequestPubkey?: string;
  readonly marketMint?: string;
  /** USD × 10^6 the quote says landing realises (decreases). */
  readonly realisedPnlUsd?: string;
  /** USD × 10^6 the built transaction moves, from the API's quote (the risk gate's check before signing). */
  readonly notionalUsd?: string;
  /**
   * A swap's quote (the Ultra order's inAmount, outAmount, otherAmountThreshold): the policy bounds
   * the route's minimum out by it, and the action record keeps it.
   */
  readonly swapQuote?: SwapQuote;
  /** The TP/SL requests a create makes (its response's tpslPubkeys): booked to the strategy when it lands (src/risk/tpsl-book.ts). */
  readonly createdTpslPubkeys?: readonly string[];
}

/**
 * A builder's refusal to build an intent (a type it cannot carry out, a request the venue cannot
 * serve): the action ends rejected with `rule`, nothing is sent.
 */
export class BuildRefused extends Error {
  override readonly name = 'BuildRefused';
  readonly kind = 'build_refused' as const;
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ActionBuilder {
  build(record: ActionRecord, signal?: AbortSignal): Promise<BuiltTransaction>;
}

export interface TransactionInspector {
  /** Judges the wire bytes the executor will sign: the policy's verdict (src/chain/policy), whose messageSha256 must be theirs. */
  inspect(tx: WireTransaction, record: ActionRecord, built: BuiltTransaction): Promise<Verdict>;
}

export type { TransactionSigner };

export { allowAllRisk, type RiskDecision, type RiskGate } from '../../risk/risk-gate-port.ts';

/** The ledger (src/records/ledger.ts), as far as the executor writes to it. */
export type ActionLedger = Pick<Ledger, 'append'>;

/** Answers whether the keeper has executed exactly this action's perps request (never "some fill of the position"). */
export interface KeeperFillWatch {
  /**
   * Whether the keeper executed this action's request: false, or its fill (the trade, when the
   * watch reads trades: what the fill realised). `lastLook` is the look before the action is
   * called refused: it may cost more (a wider window of fills), since it happens once.
   */
  fulfilled(record: ActionRecord, options?: { readonly lastLook?: boolean }): Promise<KeeperFill | false>;
}

/** A keeper's fill of an action's request; `trade` when the watch read it from the trade history. */
export interface KeeperFill {
  readonly trade?: TradeRecord;
}

/** Reads `maxRequestExecutionSec` of a market from the latest pool-info (fallback when unknown). */
export type RequestValidity = (marketMint: string | undefined) => Promise<number>;

/**
 * Tells the strategy side how an action ended (settleAction in src/pipeline/strategy-runtime/settle.ts): landed or
 * ambiguous commits the strategy's state; landed, rejected or expired frees the intent key.
 */
export type ActionSettler = (record: ActionRecord, outcome: 'landed' | 'ambiguous' | 'rejected' | 'expired') => Promise<void>;

/** The chain reads the executor makes (the RPC client answers them; tests wrap one to lag or fail). */
export interface ChainReads {
  /** The chain's block height (cached briefly): a height past the build's lastValidBlockHeight starts an expiry's proof. */
  blockHeight(): Promise<number>;
  /** The signature's status, searching history (an earlier landing of the same bytes too); null when unseen. */
  signatureStatus(signature: string): Promise<SignatureSeen | null>;
  /** The expiry's proof, read fresh: one node's slot and block height from one answer. */
  tip(): Promise<ChainTip>;
  /** Whether the node holds the blockhash valid at `minContextSlot` or later; undefined when it is behind that slot. */
  blockhashValidSince(blockhash: string, minContextSlot: number): Promise<{ readonly slot: number; readonly valid: boolean } | undefined>;
  /** The signature's status and the slot of the node that answered. */
  signatureStatusAt(signature: string): Promise<{ readonly contextSlot: number; readonly seen: SignatureSeen | null }>;
}

/** An action's signed bytes and what the route needs to send them. */
export type SignedAction = Pick<ActionRecord, 'route' | 'requestId' | 'executeAction' | 'signedTx' | 'signature'>;

/** What one send answered: the RPC's word on the transaction, or the product's execute reply. */
export type SendAnswer = { readonly via: 'rpc'; readonly sent: SendResult } | { readonly via: 'execute'; readonly reply: ExecuteReply };

/**
 * Sends signed bytes by the action's route (routed-submitter.ts holds the one switch). A post the
 * API refused or never answered throws (an ApiError): whether it proves nothing was sent is the
 * caller's judgement (api-error-evidence.ts). `repeat`: the same bytes may have been posted before.
 */
export interface Submitter {
  submit(action: SignedAction, options: { readonly repeat: boolean }): Promise<SendAnswer>;
}
