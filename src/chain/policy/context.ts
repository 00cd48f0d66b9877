import type { PublicKey } from '@solana/web3.js';
import type { OperationId } from '../../api/registry.ts';

/** What the operation asked for; the transaction may not move more from the wallet. */
export interface PolicyIntent {
  /** Lamports the wallet may send to accounts it does not own. */
  readonly maxMoveLamports?: bigint;
  /** Per mint, the smallest units the wallet may send or approve to accounts it does not own. */
  readonly maxMoveTokens?: Readonly<Record<string, bigint>>;
  /** Tolerance on both limits, in basis points. */
  readonly slippageBps?: number;
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
  /** The most the transaction may pay as priority fee, in lamports. */
  readonly priorityFeeCapLamports: bigint;
  readonly intent?: PolicyIntent;
  /** Accounts the operation explains (fee receiver, position, order, escrow): value may go there. */
  readonly knownAccounts?: readonly string[];
}

/** 0.005 SOL: well above what a normal priority fee costs, far below what a drain would take. */
export const DEFAULT_PRIORITY_FEE_CAP_LAMPORTS = 5_000_000n;
