import type { OperationFaults } from '../http/faults.ts';
import { FaultPlan } from '../http/faults.ts';
import type { VenueChain } from './chain.ts';
import { FINALIZED_AFTER_SLOTS, STATUS_CACHE_SLOTS } from './chain.ts';

/**
 * Faults of the venue's JSON-RPC endpoint (POST /__venue/faults, member `rpc`): per method the
 * same decisions as the API's operations (latency, 5xx, 429, hang, reset, processed-but-reply-
 * lost, an HTML page), and a frozen node — one that stopped following the chain: its slot, block
 * height, latest blockhash and signature statuses stay where they were when it froze, while the
 * transactions sent to it are still forwarded (a lagging node in front of a live cluster).
 */
export class RpcFaults {
  readonly plan: FaultPlan;
  private frozenView: VenueChain | undefined;

  constructor(seed: number) {
    this.plan = new FaultPlan(seed, 'rpc-faults');
  }

  setMethod(method: string, faults: OperationFaults | null): void {
    this.plan.set(method, faults);
  }

  /** Freezes the node at the chain's current slot (a second freeze keeps the first), or thaws it. */
  setFrozen(chain: VenueChain, frozen: boolean): void {
    if (!frozen) this.frozenView = undefined;
    else this.frozenView ??= frozenChainView(chain);
  }

  get frozen(): boolean {
    return this.frozenView !== undefined;
  }

  clear(): void {
    this.plan.clear();
    this.frozenView = undefined;
  }

  /** The chain a method answers from: the frozen view, except sends, which reach the real chain. */
  chainFor(chain: VenueChain, method: string | undefined): VenueChain {
    return this.frozenView && method !== 'sendTransaction' ? this.frozenView : chain;
  }

  snapshot(): { methods: Record<string, OperationFaults>; frozen: boolean } {
    return { methods: this.plan.snapshot(), frozen: this.frozen };
  }
}

/** The chain as a node stuck at the current slot sees it; everything else reads through. */
function frozenChainView(chain: VenueChain): VenueChain {
  const slot = chain.slot();
  const height = chain.blockHeight();
  const latest = chain.latestBlockhash();
  const view = Object.create(chain) as VenueChain;
  const overrides: Partial<VenueChain> = {
    slot: () => slot,
    blockHeight: () => height,
    latestBlockhash: () => latest,
    isBlockhashValid: (blockhash: string) => {
      const info = chain.blockhashInfo(blockhash);
      return info !== undefined && height <= info.lastValidBlockHeight;
    },
    getSignatureStatus: (signature: string, opts: { searchTransactionHistory?: boolean } = {}) => {
      const status = chain.getSignatureStatus(signature, { searchTransactionHistory: true });
      if (!status || status.slot > slot) return null;
      const age = slot - status.slot;
      if (opts.searchTransactionHistory === false && age > STATUS_CACHE_SLOTS) return null;
      if (age >= FINALIZED_AFTER_SLOTS) return { ...status, confirmations: null, confirmationStatus: 'finalized' };
      return { ...status, confirmations: age, confirmationStatus: age >= 1 ? 'confirmed' : 'processed' };
    },
  };
  return Object.assign(view, overrides);
}
