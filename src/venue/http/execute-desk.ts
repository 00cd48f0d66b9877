import { VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import type { Product } from '../../api/operation.ts';
import { operations, isOperationId } from '../../api/registry.ts';
import type { VenueChain } from '../chain/chain.ts';
import type { TransactionErrorValue } from '../chain/landed.ts';
import { ChainRejection, type ChainRejectionKind } from '../chain/rejection.ts';
import { serializedMessage } from '../tx/v0-message.ts';
import type { PendingRequest, RequestBook } from '../tx/request-book.ts';

const MAX_REPLIES = 50_000;

export type ExecuteRefusal = 'malformed' | 'unknown_message' | 'request_mismatch' | 'wrong_product' | ChainRejectionKind;

export type ExecuteResult =
  | {
      readonly ok: true;
      readonly signature: string;
      readonly slot: number;
      /** False when a drop fault swallowed it: accepted, never landing. */
      readonly landed: boolean;
      readonly duplicate: boolean;
      readonly err: TransactionErrorValue | null;
      readonly request: PendingRequest;
    }
  | { readonly ok: false; readonly refusal: ExecuteRefusal; readonly message: string; readonly signature?: string };

interface CachedReply {
  readonly status: number;
  readonly body: unknown;
  /** Venue time of the first answer (Ultra answers a repeat as the same swap only for a while). */
  readonly atMs?: number;
}

/**
 * The execute operations' common path: the signed transaction must be byte-identical (message)
 * to one the venue built for this product (and request id), then the chain verifies every
 * signature and the blockhash and lands it once. Replies are kept by signature, so a repeat of
 * the same signed transaction gets the same answer and applies nothing twice.
 */
export class ExecuteDesk {
  private readonly replies = new Map<string, CachedReply>();

  constructor(
    private readonly chain: VenueChain,
    private readonly requests: RequestBook,
  ) {}

  submit(base64: string, expect: { product: Product; requestId?: string }): ExecuteResult {
    let raw: Buffer;
    let tx: VersionedTransaction;
    try {
      raw = Buffer.from(base64, 'base64');
      tx = VersionedTransaction.deserialize(raw);
    } catch (cause) {
      return { ok: false, refusal: 'malformed', message: `not a serialized transaction: ${(cause as Error).message}` };
    }
    const signature = tx.signatures[0] ? bs58.encode(tx.signatures[0]) : undefined;
    const request = this.requests.lookup(serializedMessage(tx.message));
    if (!request) {
      return { ok: false, refusal: 'unknown_message', message: 'the signed message is not byte-identical to any transaction this service built', signature };
    }
    if (expect.requestId !== undefined && request.requestId !== expect.requestId && !request.requestId.startsWith(`${expect.requestId}/`)) {
      return { ok: false, refusal: 'request_mismatch', message: `the transaction belongs to request ${request.requestId}, not ${expect.requestId}`, signature };
    }
    const product = isOperationId(request.operationId) ? operations[request.operationId].product : undefined;
    if (product !== expect.product) {
      return { ok: false, refusal: 'wrong_product', message: `the transaction was built by ${request.operationId}, not by a ${expect.product} operation`, signature };
    }
    try {
      const outcome = this.chain.submit(raw, { via: 'execute' });
      const landed = this.chain.landedTransaction(outcome.signature);
      return { ok: true, signature: outcome.signature, slot: landed?.slot ?? this.chain.slot(), landed: outcome.landed, duplicate: outcome.duplicate, err: outcome.err, request };
    } catch (error) {
      if (error instanceof ChainRejection) return { ok: false, refusal: error.kind, message: error.message, signature };
      throw error;
    }
  }

  cached(signature: string): CachedReply | undefined {
    return this.replies.get(signature);
  }

  remember(signature: string, reply: CachedReply): void {
    this.replies.set(signature, reply);
    // Repeats come within the blockhash's lifetime; a long paper run must not keep them all.
    if (this.replies.size > MAX_REPLIES) this.replies.delete(this.replies.keys().next().value as string);
  }
}
