import { createHash } from 'node:crypto';
import type { VersionedTransaction } from '@solana/web3.js';
import { serializedMessage } from './v0-message.ts';

/** The API request a venue-built transaction belongs to. */
export interface PendingRequest {
  readonly requestId: string;
  /** Registry operation id that built it (e.g. "perps.decreasePosition"). */
  readonly operationId: string;
  readonly wallet: string;
  readonly createdAtMs: number;
  readonly transactionType: 'legacy' | 'instant';
  /** Whatever the market model needs to apply the request when it lands. */
  readonly payload: unknown;
}

/** The key of a message: sha256 of its serialized bytes, hex. */
function messageKey(message: Uint8Array): string {
  return createHash('sha256').update(message).digest('hex');
}

/**
 * Every transaction the venue built, by its exact message bytes. Execute operations and the
 * landing handler use it to find the request a signed transaction belongs to; a message that
 * differs by one byte from what was built is simply not found, which is the byte-identity check.
 */
export class RequestBook {
  private readonly byMessage = new Map<string, PendingRequest>();
  private readonly byId = new Map<string, PendingRequest>();

  register(tx: VersionedTransaction, request: PendingRequest): void {
    this.byMessage.set(messageKey(serializedMessage(tx.message)), request);
    this.byId.set(request.requestId, request);
  }

  /** The request whose built message is byte-identical to `message`. */
  lookup(message: Uint8Array): PendingRequest | undefined {
    return this.byMessage.get(messageKey(message));
  }

  byRequestId(requestId: string): PendingRequest | undefined {
    return this.byId.get(requestId);
  }

  /**
   * Forgets requests created before `beforeMs` (their blockhash has long expired, so their
   * transactions can no longer land); keeps a long paper run's memory bounded. Returns how many.
   */
  prune(beforeMs: number): number {
    let removed = 0;
    for (const [key, request] of this.byMessage) {
      if (request.createdAtMs >= beforeMs) continue;
      this.byMessage.delete(key);
      this.byId.delete(request.requestId);
      removed += 1;
    }
    return removed;
  }

  get size(): number {
    return this.byId.size;
  }
}
