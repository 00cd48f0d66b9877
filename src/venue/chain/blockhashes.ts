import { createHash } from 'node:crypto';
import bs58 from 'bs58';

export interface BlockhashInfo {
  readonly blockhash: string;
  readonly slot: number;
  /** Block height of the block that produced it. */
  readonly blockHeight: number;
  /** Last block height at which a transaction using it may land (real nodes: height + 150). */
  readonly lastValidBlockHeight: number;
}

/** base58 of sha256(label): deterministic 32-byte ids (blockhashes, genesis hash, keys). */
export function derivedBase58(label: string): string {
  return bs58.encode(createHash('sha256').update(label).digest());
}

export function blockhashForSlot(seed: number, slot: number): string {
  return derivedBase58(`stratd-venue:blockhash:${String(seed)}:${String(slot)}`);
}

// Blockhashes expired for this many further blocks are forgotten (then reported as not
// found, like a real node whose status cache moved on); keeps a long paper run bounded.
const FORGET_AFTER_BLOCKS = 10_000;

/**
 * The blockhashes this chain has handed out. A blockhash is "known" once issued: clients can
 * only have learnt it from getLatestBlockhash or a venue-built transaction.
 */
export class BlockhashRegistry {
  private readonly bySlot = new Map<number, BlockhashInfo>();
  private readonly byHash = new Map<string, BlockhashInfo>();
  private issuedSincePrune = 0;

  constructor(
    private readonly seed: number,
    private readonly validBlocks: number,
  ) {}

  /** The blockhash of `slot`, remembered from now on. */
  issue(slot: number, blockHeight: number): BlockhashInfo {
    const known = this.bySlot.get(slot);
    if (known) return known;
    const info: BlockhashInfo = {
      blockhash: blockhashForSlot(this.seed, slot),
      slot,
      blockHeight,
      lastValidBlockHeight: blockHeight + this.validBlocks,
    };
    this.bySlot.set(slot, info);
    this.byHash.set(info.blockhash, info);
    if (++this.issuedSincePrune >= 1_000) this.prune(blockHeight);
    return info;
  }

  lookup(blockhash: string): BlockhashInfo | undefined {
    return this.byHash.get(blockhash);
  }

  private prune(currentHeight: number): void {
    this.issuedSincePrune = 0;
    for (const [slot, info] of this.bySlot) {
      if (info.lastValidBlockHeight + FORGET_AFTER_BLOCKS >= currentHeight) continue;
      this.bySlot.delete(slot);
      this.byHash.delete(info.blockhash);
    }
  }
}
