import { PublicKey, type TransactionInstruction, type VersionedTransaction } from '@solana/web3.js';
import type { Product } from '../../api/operation.ts';
import { LAMPORTS_PER_SIGNATURE } from '../chain/compute-budget.ts';
import type { VenueChain } from '../chain/chain.ts';
import type { VenueAction } from '../market/market.ts';
import { derivedRequestId } from '../market/keys.ts';
import { derivedBase58 } from '../chain/blockhashes.ts';
import { buildRequestTransaction, DEFAULT_COMPUTE_UNIT_LIMIT, DEFAULT_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS, toBase64, type AnyHostileKind } from '../tx/builder.ts';
import type { RequestBook } from '../tx/request-book.ts';

/** txMetadata of spec 2.3: integer strings. */
interface TxMetadataJson {
  blockhash: string;
  lastValidBlockHeight: string;
  transactionFeeLamports: string;
  accountRentLamports: string;
}

export interface IssueRequest {
  readonly operationId: string;
  readonly product: Exclude<Product, 'tokens'>;
  readonly wallet: string;
  readonly transactionType: 'legacy' | 'instant';
  readonly action: VenueAction;
  /** Accounts the request touches (position, pool, custody, order...). */
  readonly accounts?: readonly string[];
  /** Use this request id (ultra orders name theirs before the tx exists). */
  readonly requestId?: string;
  readonly priorityFeeMicroLamports?: bigint;
  /** Rent of the accounts the request creates (position request, order account...). */
  readonly accountRentLamports?: bigint;
  readonly hostile?: AnyHostileKind;
  /** Build on a blockhash the chain has expired or never issued (txMetadata still claims a fresh one's lastValidBlockHeight). */
  readonly staleBlockhash?: 'expired' | 'never_issued';
  /** The discriminator (hex) of the program instruction the operation performs (BuildRequestOptions). */
  readonly discriminator?: string;
  /** The product program's own instructions (perps); without them a request-id instruction. */
  readonly instructions?: readonly TransactionInstruction[];
  readonly nowMs: number;
}

export interface IssuedTransaction {
  readonly requestId: string;
  readonly transaction: VersionedTransaction;
  readonly base64: string;
  readonly txMetadata: TxMetadataJson;
}

const keyCache = new Map<string, PublicKey>();
function key(address: string): PublicKey {
  let k = keyCache.get(address);
  if (!k) {
    k = new PublicKey(address);
    // Keys are immutable: answer toBase58 from the text we already have (the compiler asks
    // for it several times per key, and base58 encoding dominates a build's cost).
    Object.defineProperty(k, 'toBase58', { value: () => address });
    if (keyCache.size > 10_000) keyCache.clear();
    keyCache.set(address, k);
  }
  return k;
}

/**
 * Builds the unsigned transaction of a write operation (fee payer = the caller's wallet, a
 * recent blockhash of the venue chain, compute budget, the product's program) and registers
 * it in the request book with the action it will apply when it lands.
 */
export class TxIssuer {
  private counter = 0;
  private readonly keeper: PublicKey;

  constructor(
    private readonly seed: number,
    private readonly chain: VenueChain,
    private readonly requests: RequestBook,
  ) {
    this.keeper = key(chain.keeper.publicKey.toBase58());
  }

  /** The keeper that co-signs instant transactions (its key fills the keeper and apiKeeper slots). */
  get keeperAddress(): string {
    return this.keeper.toBase58();
  }

  nextRequestId(): string {
    this.counter++;
    return derivedRequestId('venue-request', this.seed, this.counter);
  }

  issue(req: IssueRequest): IssuedTransaction {
    const requestId = req.requestId ?? this.nextRequestId();
    const latest = this.chain.latestBlockhash();
    const { lastValidBlockHeight } = latest;
    const blockhash =
      req.staleBlockhash === 'expired' ? this.chain.expiredBlockhash() : req.staleBlockhash === 'never_issued' ? derivedBase58(`stratd-venue:never-issued:${requestId}`) : latest.blockhash;
    const unitPrice = req.priorityFeeMicroLamports ?? DEFAULT_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS;
    const transaction = buildRequestTransaction({
      payer: key(req.wallet),
      product: req.product,
      requestId,
      blockhash,
      computeUnitPriceMicroLamports: unitPrice,
      accounts: (req.accounts ?? []).map(key),
      keeperSigner: req.transactionType === 'instant' ? this.keeper : undefined,
      hostile: req.hostile,
      discriminator: req.discriminator,
      instructions: req.instructions,
    });
    this.requests.register(transaction, {
      requestId,
      operationId: req.operationId,
      wallet: req.wallet,
      createdAtMs: req.nowMs,
      transactionType: req.transactionType,
      payload: req.action,
    });
    return {
      requestId,
      transaction,
      base64: toBase64(transaction),
      txMetadata: {
        blockhash,
        lastValidBlockHeight: String(lastValidBlockHeight),
        // 5000 lamports per signature plus the priority fee, as the chain charges it.
        transactionFeeLamports: (
          LAMPORTS_PER_SIGNATURE * BigInt(transaction.message.header.numRequiredSignatures) +
          (unitPrice * BigInt(DEFAULT_COMPUTE_UNIT_LIMIT) + 999_999n) / 1_000_000n
        ).toString(),
        accountRentLamports: (req.accountRentLamports ?? 0n).toString(),
      },
    };
  }
}
