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
    this.#changed(); // the gauge reads 0, not nothing, until the first slot is taken
  }

  /** Slots taken now. */
  get inUse(): number {
    return this.#inUse;
  }

  /** Actions waiting for a slot. */
  get waiting(): number {
    return this.#waiting;
  }

  /** A slot now if one is free and nobody waits for it, else undefined (a fresh accept builds ahead only with one). */
  tryAcquire(): PreparationSlot | undefined {
    return this.#inUse < this.limit && this.#waiting === 0 ? this.#take() : undefined;
  }

  /**
   * A slot once one is free, in arrival order; undefined if `signal` aborts first (shutdown).
   * Release it exactly when the preparation ends: releasing twice frees one slot.
   */
  acquire(signal?: AbortSignal): Promise<PreparationSlot | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    const free = this.tryAcquire();
    if (free) return Promise.resolve(free);
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

/**
 * One drive's turn to prepare: the slot it holds, or its place in the queue. A wait is bounded
 * (the drive renews its lease and looks at the record between waits: another process may have
 * moved the action on) and keeps the place, so bounded waits still go in arrival order.
 */
export class PreparationTurn {
  readonly #slots: PreparationSlots;
  #slot: PreparationSlot | undefined;
  #pending: { readonly granted: Promise<PreparationSlot | undefined>; readonly cancel: AbortController } | undefined;

  /** `slot`: one already taken for this drive (a fresh accept's, for its build ahead). */
  constructor(slots: PreparationSlots, slot?: PreparationSlot) {
    this.#slots = slots;
    this.#slot = slot;
  }

  get holds(): boolean {
    return this.#slot !== undefined;
  }

  /** Waits at most `maxWaitMs` (less if `signal` aborts) for the slot; true once it is held. */
  async wait(maxWaitMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#slot) return true;
    if (!this.#pending) {
      const cancel = new AbortController();
      this.#pending = { granted: this.#slots.acquire(cancel.signal), cancel };
    }
    const slot = await within(this.#pending.granted, maxWaitMs, signal);
    if (!slot) return false;
    this.#pending = undefined;
    this.#slot = slot;
    return true;
  }

  /** Gives back the slot, or the place in the queue (a slot granted meanwhile is passed on). */
  release(): void {
    this.#slot?.release();
    this.#slot = undefined;
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = undefined;
    pending.cancel.abort();
    void pending.granted.then((slot) => slot?.release());
  }
}

/** `promise`'s value, or undefined once `ms` passed or `signal` aborted; leaves no timer or listener behind. */
function within<T>(promise: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | undefined> {
  if (signal?.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const done = (value: T | undefined) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(undefined);
    const timer = setTimeout(() => done(undefined), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    void promise.then(done);
  });
}
