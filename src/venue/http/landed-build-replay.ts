import { VersionedTransaction } from '@solana/web3.js';
import type { VenueChain } from '../chain/chain.ts';

/** Write answers remembered (the oldest are forgotten first): enough for any test or chaos run. */
const REMEMBERED_MAX = 2_000;

interface Remembered {
  readonly operationId: string;
  readonly body: unknown;
}

/** The message bytes of a serialized transaction: past the signature count and the signatures. */
function messageKey(serialized: Buffer): string | undefined {
  const signatures = serialized[0];
  // A transaction carries a handful of signatures: the count is one short-vec byte.
  if (signatures === undefined || signatures >= 0x80) return undefined;
  return serialized.subarray(1 + 64 * signatures).toString('base64');
}

/**
 * The `replayLanded` fault: a hostile API that answers a new build with its answer to an earlier
 * build of the same operation and wallet whose transaction has landed. Ed25519 is deterministic,
 * so the wallet signing those bytes again makes the signature the chain already shows landed.
 * Every write answer is remembered by its message bytes (a map entry each, nothing decoded), so
 * an answer given before the fault was set can be replayed.
 */
export class LandedBuildReplay {
  readonly #answers = new Map<string, Remembered>();

  constructor(private readonly chain: VenueChain) {}

  /** Remembers a write answer (one that carries a transaction); other answers are ignored. */
  remember(operationId: string, body: unknown): void {
    const serialized = serializedTxOf(body);
    const key = serialized && messageKey(Buffer.from(serialized, 'base64'));
    if (!key) return;
    if (this.#answers.size >= REMEMBERED_MAX) this.#answers.delete(this.#answers.keys().next().value as string);
    this.#answers.set(key, { operationId, body });
  }

  /**
   * The latest remembered answer of `operationId` whose transaction landed without error, for the
   * fee payer of `fresh` (the honest answer to this build); undefined when there is none.
   */
  replayFor(operationId: string, fresh: unknown): unknown {
    const serialized = serializedTxOf(fresh);
    if (!serialized) return undefined;
    const payer = VersionedTransaction.deserialize(Buffer.from(serialized, 'base64')).message.staticAccountKeys[0];
    if (!payer) return undefined;
    const landed = this.chain.landed();
    for (let i = landed.length - 1; i >= 0; i--) {
      const tx = landed[i]!;
      if (tx.err !== null || !tx.transaction.message.staticAccountKeys[0]?.equals(payer)) continue;
      const answer = this.#answers.get(Buffer.from(tx.message).toString('base64'));
      if (answer?.operationId === operationId) return answer.body;
    }
    return undefined;
  }
}

function serializedTxOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const serialized = (body as { serializedTxBase64?: unknown }).serializedTxBase64;
  return typeof serialized === 'string' && serialized.length > 0 ? serialized : undefined;
}
