/**
 * How many actions one executor prepares at once: builds, inspects and signs (the work that costs
 * CPU and API requests). Without a bound, decisions that outpace the process all start together,
 * every one of them slows down, the ones already sent wait longer for their confirmation polls,
 * and the rate of landed actions falls the more is asked (measured: a daemon that lands 100/s when
 * asked for 100/s landed 35/s when asked for 300/s). With it, the excess waits its turn in arrival
 * order, already durable as `accepted`, and a decision that waited past the action TTL is refused
 * as stale instead of being traded late.
 *
 * What does not take a slot: confirming a sent action (it must never wait behind new work) and the
 * actions of protective strategies (config risk.protectiveStrategies): a liquidation guard's
 * decrease starts at once however busy the process is.
 */
export class PreparationSlots {
  readonly limit: number;
  #inUse = 0;
  /** Waiters in arrival order; an aborted one stays in place, marked, and is skipped. */
  #queue: Array<Waiter | undefined> = [];
  #head = 0;
  #waiting = 0;
  readonly #onChange?: (inUse: number, waiting: number) => void;

  /**
   * @param limit actions prepared at once (config execution.maxPreparingActions)
   * @param onChange told the counts after every change (the ops gauge); must not throw
   */
  constructor(limit: number, onChange?: (inUse: number, waiting: number) => void) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a preparation limit must be a positive integer, got ${limit}`);
    this.limit = limit;
    this.#onChange = onChange;
  }

  /** Slots taken now. */
  get inUse(): number {
    return this.#inUse;
  }

  /** Actions waiting for a slot. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Whether a slot is free now (an accept builds ahead only then). */
  get available(): boolean {
    return this.#inUse < this.limit;
  }

  /**
   * A slot once one is free, in arrival order; undefined if `signal` aborts first (shutdown).
   * Release it exactly when the preparation ends: releasing twice frees one slot.
   */
  acquire(signal?: AbortSignal): Promise<PreparationSlot | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    if (this.#inUse < this.limit && this.#waiting === 0) return Promise.resolve(this.#take());
    return new Promise((resolve) => {
      const waiter: Waiter = {
        cancelled: false,
        grant: (slot) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(slot);
        },
      };
      const onAbort = () => {
        waiter.cancelled = true;
        this.#waiting--;
        this.#changed();
        resolve(undefined);
      };
      this.#queue.push(waiter);
      this.#waiting++;
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#changed();
    });
  }

  #take(): PreparationSlot {
    this.#inUse++;
    this.#changed();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#inUse--;
        this.#next();
      },
    };
  }

  /** Hands free slots to the oldest waiters. */
  #next(): void {
    while (this.#inUse < this.limit && this.#head < this.#queue.length) {
      const waiter = this.#queue[this.#head];
      this.#queue[this.#head++] = undefined;
      if (!waiter || waiter.cancelled) continue;
      this.#waiting--;
      waiter.grant(this.#take());
    }
    // Compacted when drained, so a queue that never empties for long does not keep its history.
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#changed();
  }

  #changed(): void {
    this.#onChange?.(this.#inUse, this.#waiting);
  }
}

interface Waiter {
  cancelled: boolean;
  readonly grant: (slot: PreparationSlot) => void;
}

export interface PreparationSlot {
  /** Frees the slot for the next waiter; idempotent. */
  release(): void;
}
