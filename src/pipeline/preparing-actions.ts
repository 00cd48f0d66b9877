import type { ActionRecord } from '../records/action-record.ts';

/** States of an action this process's executor is still preparing: nothing of it has been sent yet. */
const BEFORE_FIRST_SEND: ReadonlySet<ActionRecord['state']> = new Set(['accepted', 'built', 'inspected', 'signed']);

/**
 * The actions this process's executor is preparing (accepted and not yet sent), so that work that
 * can wait does: the pollers read the sources that share a tick with the positions after the
 * decreases that tick decided were sent, not in the middle of them (a busy daemon's reads and their
 * parsing took the CPU the decreases waited for: bench/daemon.ts, "busy"). Fed by the executor's
 * `observe` hook with every state it records; what it tracks is this process's memory only.
 */
export class PreparingActions {
  readonly #ids = new Set<string>();
  #waiters: Array<() => void> = [];

  /** Told every state the executor records (accept included). */
  observe(record: Pick<ActionRecord, 'actionId' | 'state'>): void {
    if (BEFORE_FIRST_SEND.has(record.state)) {
      this.#ids.add(record.actionId);
      return;
    }
    if (!this.#ids.delete(record.actionId) || this.#ids.size > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Actions accepted here and not yet sent. */
  get count(): number {
    return this.#ids.size;
  }

  /**
   * Resolves once no action is being prepared here, or after `maxWaitMs` (an action held at its
   * build by an RPC outage must not hold the reads back for longer).
   */
  settled(maxWaitMs: number): Promise<void> {
    if (this.#ids.size === 0 || maxWaitMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== wake);
        resolve();
      }, maxWaitMs);
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      this.#waiters.push(wake);
    });
  }
}
